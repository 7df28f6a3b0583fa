"""Who a message's leading pronoun refers to in the previous message's memories.

"记错了，他今年四年级了" right after "我儿子在实验小学上三年级" is about the son: the extractor
reads the clause with the son as its holder (``holder_of``'s ``previous``). The referent is
the holder of the latest previous memory that fits the pronoun:

* 他 / he / his: a man or someone of unknown gender (a name, a colleague); 她 / she / her: a
  woman or someone of unknown gender. In English a pet may be he or she too; in Chinese never.
* 它 / it / its: the user's pet the previous message named, and only when the clause says what
  a pet is ("它是柯基", "it's a leopard gecko", "it's named Mango", "it eats…"): never a remark
  ("it's 3am here", "它很好吃"), never someone else's pet.
* a plural (他们, they), a pronoun no memory fits, or one two people of the previous
  message fit ("我老板姓陈，我同事叫小李" then "他…") refers to nobody here: the clause is read
  as it is.

A message that adds to the previous one without any subject ("还对芒果过敏", "也在学游泳",
"also allergic to shellfish", "and also plays violin") right after a third party's fact is
about that third party too (:func:`added_to_holder`), never the user.

A clause that names someone the previous message introduced ("Emma moved to Austin" after
"The user's sister Emma lives in Denver", "小林主要写React" after "用户的同事小林负责前端") is
about that same holder (:func:`known_holder`, :func:`named_holder`): its fact is keyed and
worded as theirs.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_engine.llm.rules_clauses import (
    EN_PRONOUN_LEAD_RE,
    PET_WORDS_EN,
    PET_WORDS_ZH,
    SAME_PET,
    Holder,
    holder_of,
)
from memory_engine.llm.rules_numbers import number_of
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.llm.rules_sentences import en_subject_dropped

__all__ = ["added_to_holder", "context_holder", "known_holder", "named_holder"]

_FEMALE_RE = re.compile(
    r"妈妈|母亲|老婆|妻子|太太|姐姐|妹妹|奶奶|外婆|女朋友|女儿|阿姨|姑姑|岳母|婆婆|姥姥|侄女|"
    r"孙女|未婚妻|媳妇|妈|\b(?:mom|mum|mother|wife|sister|grandma|grandmother|girlfriend|"
    r"daughter|aunt|niece|fiancee)\b",
    re.I,
)
_MALE_RE = re.compile(
    r"爸爸|父亲|老公|丈夫|先生|哥哥|弟弟|爷爷|外公|男朋友|儿子|叔叔|舅舅|岳父|公公|姥爷|侄子|孙子|"
    r"未婚夫|爸|\b(?:dad|father|husband|brother|grandpa|grandfather|boyfriend|son|uncle|nephew|"
    r"fiance)\b",
    re.I,
)
_PLURAL_RE = re.compile(
    r"父母|爸妈|家人|孩子们|\b(?:parents|in-laws|kids|children|sons|daughters|sisters|brothers|"
    r"siblings|friends|colleagues|coworkers|grandparents|twins|roommates|neighbou?rs)\b",
    re.I,
)
_PET_ZH_RE = re.compile(PET_WORDS_ZH)
_PET_EN_RE = re.compile(rf"\b(?:{PET_WORDS_EN})\b", re.I)
#: The user's own pet in a stored memory ("用户养了条狗", "用户的猫叫团子", "The user has a
#: lizard", "The user's dog Biscuit").
_USERS_PET_RE = re.compile(
    rf"^用户(?:的|家|养了|养的|有)?(?:一|两|\d)?(?:条|只|个|头)?(?:小)?(?P<zh>{PET_WORDS_ZH})|"
    rf"^The user (?:has|got|adopted|owns) (?:a|an) (?:new |little |pet )?(?P<en>{PET_WORDS_EN})\b|"
    rf"^The user's (?:new |little |pet )?(?P<en2>{PET_WORDS_EN})\b"
)
#: What a pet is: a kind, a name, an age, what it eats or likes.
_PET_CLAUSE_ZH_RE = re.compile(
    r"^它(?:是(?!不是)|叫|今年|已经|\d|[一二三四五六七八九十]+岁|喜欢|爱吃|吃|对|每天|平时)"
)
_PET_CLAUSE_EN_RE = re.compile(
    r"^(?:(?:oh|and|so|btw|also)[,]?\s+)*(?:(?:it's|it is) (?:a|an) "
    r"(?!(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\b)[a-z]|"
    r"(?:it's|it is) (?:named|called) |(?:it's |it is )?\d{1,2} (?:years?|months?|weeks?) old|"
    r"its name\b|it (?:likes|loves|eats|hates|is allergic|only eats|sleeps)\b)",
    re.I,
)
_ZH_PERSON_RE = re.compile(r"^(?:他|她)(?!们)")
_EN_PERSON_RE = re.compile(r"^(?P<p>he|she|his|her)\b", re.I)


def _pet(contents: Sequence[str]) -> Holder | None:
    """The user's pet of the latest memory naming an animal; None when that memory's animal is
    someone else's ("用户的同事养了一只狗")."""
    for content in reversed(contents):
        if not (_PET_ZH_RE.search(content) or _PET_EN_RE.search(content)):
            continue
        m = _USERS_PET_RE.match(content)
        if m is None:
            return None
        if m.group("zh"):
            animal = SAME_PET.get(m.group("zh"), m.group("zh"))
            return Holder(f"用户的{animal}", f"用户的{animal}")
        phrase = f"The user's {(m.group('en') or m.group('en2')).lower()}"
        return Holder(phrase, phrase)
    return None


def _fits(holder: Holder, female: bool, chinese: bool) -> bool:
    phrase = holder.phrase
    if _PLURAL_RE.search(phrase):
        return False
    if _PET_ZH_RE.search(phrase) or _PET_EN_RE.search(phrase):
        return not chinese  # "she turned 4" of a dog; 他 is no cat
    return not (_MALE_RE.search(phrase) if female else _FEMALE_RE.search(phrase))


def context_holder(contents: Sequence[str], clause: str) -> Holder | None:
    """The holder a leading pronoun of ``clause`` refers to among ``contents`` (the previous
    message's memories, oldest first), or None (see the module docstring): the only one it
    fits. Never the user."""
    if clause.startswith("它"):
        return _pet(contents) if _PET_CLAUSE_ZH_RE.match(clause) else None
    if re.match(r"^(?:(?:oh|and|so|btw|also)[,]?\s+)*(?:it|its|it's)\b", clause, re.I):
        return _pet(contents) if _PET_CLAUSE_EN_RE.match(clause) else None
    zh = _ZH_PERSON_RE.match(clause)
    # "oh wait she turned 4": the opening words holder_of strips too
    en = None if zh else _EN_PERSON_RE.match(EN_PRONOUN_LEAD_RE.sub("", clause, count=1))
    if zh is None and en is None:
        return None
    female = (zh.group(0) == "她") if zh else en.group("p").lower() in ("she", "her")  # type: ignore[union-attr]
    fitting = {
        holder.phrase: holder
        for holder in (holder_of(content, None)[1] for content in contents)
        if holder is not None and _fits(holder, female, chinese=zh is not None)
    }
    # two people it may be ("我老板姓陈，我同事叫小李" then "大家都叫他陈总"): nobody
    return next(iter(fitting.values())) if len(fitting) == 1 else None


#: A Chinese clause without a subject that adds to what was said: 还/也 (after 而且/另外).
_ZH_ADDED_RE = re.compile(r"^(?:而且|并且|同时|另外)?(?:还|也)(?!是|有没有|没|不知道|行|可以|好)")
#: An English one: "also ...", "and also ...", "plus ...", never with its own subject.
_EN_ADDED_RE = re.compile(
    r"^(?:(?:oh )?and |plus |but )?also (?P<rest>(?!I\b|my\b|me\b|you\b).+)", re.I
)
#: What follows "also" that takes "is" ("also allergic to shellfish", "also into chess").
_EN_STATE_RE = re.compile(
    r"^(?:allergic|afraid|scared|into|vegan|vegetarian|lactose|intolerant|a |an |learning|"
    r"taking|studying|doing|playing|working|on )",
    re.I,
)


def _base_verb(word: str) -> str:
    """The base form of a third-person singular verb ("plays" -> "play", "has" -> "have")."""
    low = word.lower()
    irregular = {"has": "have", "does": "do", "goes": "go", "is": "am"}
    if low in irregular:
        return irregular[low]
    if low.endswith("ies") and len(low) > 4:
        return low[:-3] + "y"
    if re.search(r"(?:sh|ch|x|ss|z)es$", low):
        return low[:-2]
    return low[:-1] if low.endswith("s") and not low.endswith("ss") else low


def added_to_holder(contents: Sequence[str], clause: str) -> tuple[str, Holder] | None:
    """``clause`` in the first person with the third party of the previous message's latest
    memory as its holder, when the clause adds to it without a subject ("还对芒果过敏" after
    "用户的儿子对花生过敏" -> ("我还对芒果过敏", the son)); None when it has a subject, adds
    nothing, or the latest previous memory is the user's own."""
    if not contents:
        return None
    _, holder = holder_of(contents[-1], None)
    if holder is None:
        return None
    if is_chinese(clause):
        return ("我" + clause, holder) if _ZH_ADDED_RE.match(clause) else None
    m = _EN_ADDED_RE.match(clause.strip())
    if m is None:
        return None
    rest = m.group("rest")
    if _EN_STATE_RE.match(rest):
        return f"I'm also {rest}", holder
    verb, _, tail = rest.partition(" ")
    if re.fullmatch(r"[a-z]+s", verb, re.I) and tail:
        return f"I also {_base_verb(verb)} {tail}", holder
    restored = en_subject_dropped("also " + rest)
    return (restored, holder) if restored is not None else None


def known_holder(contents: Sequence[str], holder: Holder | None) -> Holder | None:
    """The holder of a previous message's memory (``contents``, oldest first) that ``holder``,
    a bare name ("Emma", "小林"), names: ("The user's sister Emma", "Emma"); else ``holder``
    unchanged (None stays None: the user)."""
    if holder is None or holder.phrase != holder.entity:
        return holder
    for content in reversed(contents):
        _, known = holder_of(content, None)
        if known is not None and known.phrase != holder.phrase:
            if known.entity.lower() == holder.entity.lower():
                return known
    return holder


_LEAD_RE = re.compile(
    r"^(?:(?:oh|and|also|plus|btw|so|actually|对了|另外|还有|而且|话说)\s*[,，:]?\s*)+", re.I
)
#: A word that is a verb after a name ("Helix Labs pays", "Grace wants").
_EN_VERB_RE = re.compile(
    r"^(?:is|was|has|had|does|did|can|will|would|should|must|got|went|made|took|left|bought|"
    r"sold|began|became|met|quit|won|lost|ran|came|saw|gave|found|broke|wrote|\w+ed|\w+s)$",
    re.I,
)
#: A verb that agrees with a plural noun before it ("invoices go", "reports are").
_EN_PLURAL_VERB_RE = re.compile(
    r"^(?:are|were|have|go|get|come|need|run|should|must|can|will|usually|always)$", re.I
)
#: A negated or adverb-led verb after a name, in the first person ("Lily isn't in school
#: yet" -> "I'm not in school yet"; "Emma never drinks coffee" -> "I never drink coffee").
_EN_NEGATED = {
    "isn't": "I'm not",
    "is not": "I'm not",
    "wasn't": "I wasn't",
    "doesn't": "I don't",
    "does not": "I don't",
    "didn't": "I didn't",
    "hasn't": "I haven't",
    "can't": "I can't",
    "won't": "I won't",
}
_EN_ADVERB_RE = re.compile(
    r"^(?:never|always|usually|often|rarely|still|also|only|recently|just|finally|already|now)$",
    re.I,
)
#: A clause about the user or the assistant ("May is my favorite month", "Will you
#: remember?", "小林觉得我应该换工作"): never the named holder's own fact.
_ABOUT_US_RE = re.compile(r"\b(?:i|i'm|i've|me|my|mine|you|your)\b|我|你|您|[?？]", re.I)
#: Reported speech after a Chinese name ("小林觉得…", "小林说…"): their view, not their attribute.
_ZH_REPORTED_RE = re.compile(r"^(?:觉得|认为|说|建议|问|让|叫|希望|告诉)")
_NOISE_TAIL_RE = re.compile(r"[\s,]*\b(?:btw|fyi|lol|haha)\b[.!]*$|[\s,.!]+$", re.I)


#: Someone of the holder's ("Lily's brother", "Emma's husband"): another person.
_EN_PERSON_NOUN_RE = re.compile(
    r"(?:mom|mum|mother|dad|father|parents?|brother|sister|sibling|husband|wife|partner|"
    r"boyfriend|girlfriend|fiance|fiancee|son|daughter|kids?|children|friend|cousin|aunt|uncle|"
    r"grand\w+|niece|nephew|boss|manager|coworker|colleague|roommate|neighbou?r|classmate)s?\b",
    re.I,
)
#: What follows a name's "'s" that is "is" ("Emma's in Boston", "Miso's sick", "Lily's
#: starting school"): a place, a state, a participle.
_EN_STATE_AFTER_RE = re.compile(
    r"(?:in|at|on|from|with|a|an|the|not|still|now|been|got|going|really|so|very|also|always|"
    r"never|back|home|off|out|away|here|there|busy|sick|allergic|afraid|into|over|about|"
    r"\d+|\w+ing|\w+ed)\b",
    re.I,
)


def _en_first_person(rest: str) -> str | None:
    """What follows a name ("'s birthday is in May", " isn't in school yet", " works at a
    bakery") in the first person, or None when the name opens another phrase ("Emma Stone",
    "Grace period", "Miso soup")."""
    if rest.startswith("'s "):
        tail = rest[3:]
        person = _EN_PERSON_NOUN_RE.match(tail)
        if person and not re.match(r"\w+ (?:is|was) [A-Z]", tail):
            return None  # "Lily's brother is 8", "Lily's friend Amy is 6": another person
        if re.search(r"\b(?:is|are|was|were|has)\b", tail):  # "Emma's birthday is in May"
            return "my " + tail
        word, _, after = tail.partition(" ")
        number = number_of(word)
        if number is not None:  # "Miso's eight btw" -> "I'm 8"
            return ("I'm " + number + " " + _NOISE_TAIL_RE.sub("", after)).strip()
        if _EN_STATE_AFTER_RE.match(tail):
            return "I'm " + tail  # "Emma's in Boston now", "Lily's starting school"
        return None  # "Emma's husband Mark works at Google": not what "'s" holds
    if not rest.startswith(" "):
        return None
    words = rest.split()
    if not words or words[0][:1].isupper():
        return None  # "Emma Stone", "Lily Chen": another name
    lowered = rest.strip()
    for negated, first in _EN_NEGATED.items():
        if lowered.lower().startswith(negated + " "):
            return first + lowered[len(negated) :]
    if _EN_ADVERB_RE.match(words[0]) and len(words) > 1 and _EN_VERB_RE.match(words[1]):
        return f"I {words[0]} {_base_verb(words[1])}" + lowered.split(words[1], 1)[1]
    if _EN_VERB_RE.match(words[0]) and not (len(words) > 1 and _EN_PLURAL_VERB_RE.match(words[1])):
        return ("I " + _base_verb(words[0]) + lowered[len(words[0]) :]).replace("I am ", "I'm ", 1)
    if words[0].lower().endswith("s") and len(words) > 1 and _EN_PLURAL_VERB_RE.match(words[1]):
        return "my" + rest  # "Helix Labs invoices go to ap@…": their invoices
    return None  # "Grace period ends Monday", "Miso soup is my favorite"


def named_holder(contents: Sequence[str], clause: str) -> tuple[str, Holder] | None:
    """``clause`` in the first person with the holder it opens with, when that holder is one
    a previous message's memory named ("小林主要写React" after "用户的同事小林负责前端" ->
    ("我主要写React", 用户的同事小林); "Emma's birthday is in May" after "The user's sister
    Emma lives in Denver" -> ("my birthday is in May", the sister Emma); "Helix Labs invoices
    go to ap@…" -> ("my invoices go to ap@…", the client Helix Labs)); None when the clause
    opens with no such name, the name opens another phrase ("Emma Stone…", "Grace period…",
    "小林子…"), or the clause is about the user or a question ("May is my favorite month",
    "小林觉得我应该换工作")."""
    body = _LEAD_RE.sub("", clause.strip())
    if _ABOUT_US_RE.search(body):
        return None
    for content in reversed(contents):
        _, known = holder_of(content, None)
        if known is None or known.phrase == known.entity or len(known.entity) < 2:
            continue
        name = known.entity
        if not body.lower().startswith(name.lower()):
            continue
        rest = body[len(name) :]
        if is_chinese(name):
            if (
                rest
                and "\u4e00" <= rest[0] <= "\u9fff"
                and not rest.startswith(("的", "和", "跟", "子", "儿"))  # 小林子 is another name
                and not _ZH_REPORTED_RE.match(rest)
            ):
                return "我" + rest, known
            continue
        first = _en_first_person(rest)
        if first is not None:
            return first, known
    return None
