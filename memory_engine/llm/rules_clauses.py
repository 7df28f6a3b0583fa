"""Clauses of an utterance for the ``rules`` provider: propositions, who they are about,
corrections, and the distilled third-person wording of a fact.

* ``propositions`` splits a sentence into clauses that each state one thing ("My name is Sam
  and I like pizza" -> two), rewriting "不是 X，而是 Y" / "not X but Y" to the corrected
  statement and dropping the clause that only recalls what was said before ("之前说…",
  "I said … before") or announces a change ("计划有变").
* ``holder_of`` finds a third party the clause is about ("我儿子…", "My manager, Priya, …",
  and a following "他"/"she"), rewrites the clause to the first person for the pattern table and
  returns the phrase the stored fact uses instead of "用户"/"the user" ("用户的儿子",
  "The user's manager Priya").
* ``distil`` turns a clause into a short third-person fact: discourse markers, fillers and
  final particles go, colloquial forms become plain ones (一般都 -> 通常, 别给我排东西 ->
  不要安排事情), and the result is cut to ``ZH_MAX_CHARS`` / ``EN_MAX_CHARS``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from memory_engine.llm.rules_names import PERSON_RE, SURNAMES
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.text import is_word

#: Longest distilled fact, in characters (Chinese / English).
ZH_MAX_CHARS = 50
EN_MAX_CHARS = 120

_ZH_RELATIONS = (
    "儿子|女儿|老婆|妻子|太太|老公|丈夫|先生|妈妈|母亲|爸爸|父亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|"
    "外公|外婆|男朋友|女朋友|朋友|同事|经理|老板|领导|上司|组长|主管|总监|老师|同学|室友|孩子|宝宝|"
    "客户|导师|医生|父母|爸妈|家人|岳父|岳母|公公|婆婆|姥姥|姥爷|叔叔|阿姨|舅舅|姑姑|侄子|侄女|"
    "外甥|孙子|孙女|邻居|房东|未婚妻|未婚夫|爱人|对象|另一半|媳妇|妈|爸|猫咪|猫(?!头鹰|眼)|狗狗|狗(?!年)"
)
_EN_RELATIONS = (
    "son|daughter|wife|husband|partner|mom|mum|mother|dad|father|brother|sister|grandma|"
    "grandmother|grandpa|grandfather|friend|best friend|colleague|coworker|co-worker|manager|"
    "boss|team lead|lead|kid|child|girlfriend|boyfriend|roommate|client|doctor|landlord|neighbor|"
    "neighbour|parents|in-laws|uncle|aunt|cousin|nephew|niece|fiance|fiancee|cat|dog|kids|children|"
    "sons|daughters|sisters|brothers|siblings|friends|colleagues|coworkers|grandparents|twins|"
    "roommates|neighbors|neighbours"
)
_ZH_HOLDER_RE = re.compile(
    rf"^(?:我们?(?:现在|目前|新)?(?:的|家)?|用户的)(?:新)?(?P<rel>{_ZH_RELATIONS})"
    r"(?P<name>[A-Z][A-Za-z]+|(?!其实|现在|已经|一直|刚刚|最近|平时|每天|也|还|都|的|对|在|从|把|给|跟|和|被|向|不|没|们|主要|负责|经常|一般)[\u4e00-\u9fff]{2,3}"
    r"(?=喜欢|是|在|对|说|要|想|会|不|住|刚|已经|每|特别|很|最|下|上个|明天|昨天|今天|负责|主要|做|写|"
    r"管|带|开|用|养|有|也|还|一直|经常|一般|总是))?[，,]?"
)
#: Capitalised words after "my X is" that are no person's name (nationalities, languages).
_NOT_PERSON_WORDS = frozenset(
    "English Chinese American British Canadian French German Italian Spanish Japanese Korean "
    "Indian Australian Russian Brazilian Mexican Dutch Swedish Irish Scottish Welsh Polish "
    "Portuguese Greek Turkish Thai Vietnamese Asian European African Catholic Muslim Jewish "
    "Christian Buddhist Hindu OK Monday Tuesday Wednesday Thursday Friday Saturday Sunday".split()
)
#: Discourse words before "my sister …" that do not change whose fact it is.
_EN_OPENER_RE = re.compile(
    r"^(?:(?:actually|oh|well|also|btw|by the way|so|and|but|plus|anyway|oops|sorry|update|fyi)"
    r"[,:]?\s+)+(?=[Mm]y |[Oo]ur |[A-Z][a-z]+ )",
    re.I,
)
_EN_HOLDER_RE = re.compile(
    rf"^(?:[Mm]y|[Oo]ur|[Tt]he user's) (?:new |current )?(?P<rel>{_EN_RELATIONS})(?P<poss>'s)?"
    r"(?:,? (?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?P<poss2>'s)?,?)?(?= )"
)
_EN_NAMED_RE = re.compile(
    r"^(?P<name>[A-Z][a-z]+(?:[A-Z][a-z]+)*(?: (?:[A-Z][a-z]+|[A-Z]{2,5}))?|[A-Z]\.(?:[A-Z]\.)+ [A-Z][a-z]+)"
    r"(?P<ctx> (?:from|in|at) [a-z][\w ]{1,20}?)? "
    r"(?P<verb>prefers|likes|loves|hates|dislikes|wants|needs|lives|works|doesn't|does not|"
    r"can't|is allergic|has|(?:moved|relocated) to(?= [A-Z])|(?:left|joined|quit)(?= [A-Z]))\b"
)
#: A Chinese clause that opens with a person's name and says something of them: "老王搬到北京了",
#: "张伟现在住在北京", "李医生不喜欢喝茶" (never "老张说…", which reports what someone said).
_ZH_NAMED_RE = re.compile(
    rf"^(?P<name>{PERSON_RE.pattern}|[{SURNAMES}][\u4e00-\u9fff]{{1,2}}?)(?=现在|住|搬|喜欢|爱|讨厌|不|没|在|是|要|去|已经|刚|"
    r"从|对|每|最|也|还|特别|很|下|上个|明天|昨天|今天|最近|一直)"
)
_EN_NOT_NAMES = {"The", "This", "That", "It", "There", "He", "She", "They", "We", "You", "My"}
#: Relations that name a person when they open a clause without 我 ("同事搬到北京了",
#: "妈妈不喜欢喝茶"), followed by what is said of them.
_ZH_BARE_RELATION_RE = re.compile(
    r"^(?:儿子|女儿|老婆|妻子|太太|老公|丈夫|妈妈|母亲|爸爸|父亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|外公|"
    r"外婆|男朋友|女朋友|同事|老板|室友|邻居|房东|爸妈|父母|妈|爸)(?=现在|住|搬|喜欢|爱|讨厌|不|没|在|"
    r"是|要|去|已经|刚|从|对|每|最|也|还|特别|很|下|上个|明天|昨天|今天|最近|一直|说|告诉)"
)
#: Hearsay and reported speech about the speaker themselves: "听说老王…", "老王说他…",
#: "小李告诉我她…"; "Tom said he …", "Anna told me she …" (what follows is the speaker's news).
_ZH_HEARSAY_RE = re.compile(r"^(?:听说|据说|听人说)[，,]?")
_ZH_REPORTED_RE = re.compile(
    r"^(?P<who>[^，,。说]{1,10}?)(?:说|告诉我|跟我说|和我说|提到)[，,]?(?:他|她)(?!们)"
)
_EN_REPORTED_RE = re.compile(
    r"^(?P<who>(?:[Mm]y|[Oo]ur) [a-z-]+(?: [a-z-]+)?|[A-Z][a-z]+(?: [A-Z][a-z]+)?) "
    r"(?:said|says|told me|tells me|mentioned)(?: that)? (?:he|she)(?= )"
)
_ZH_PRONOUN_RE = re.compile(r"^(?:他|她|它)(?:们)?(?!们)")
_EN_PRONOUN_RE = re.compile(r"^(?:[Hh]e|[Ss]he)(?:'s)?\b|^(?:[Hh]is|[Hh]er)\b")
#: Words a message opens with before its pronoun ("oh wait she turned 4", "turns out he quit").
EN_PRONOUN_LEAD_RE = re.compile(
    r"^(?:(?:oh|ah|um|well|wait|actually|oops|sorry|update|btw|fyi|also|and|but|so|"
    r"turns out|it turns out|oh wait|scratch that|correction|no)[,:!]?\s+)+(?=(?:he|she|his|her)\b)",
    re.I,
)

_RECALL_RE = re.compile(
    r"^(?:like|as) I (?:said|mentioned|told you)(?: before| earlier)?$|^(?:我)?(?:说过了?|刚说了?)$|^(?:我)?(?:之前|以前|上次|刚才|原来)(?:应该|好像|也)?(?:跟你|和你)?(?:说|讲|提到|提)(?:过)?|"
    r"^(?:我)?(?:应该|好像)?(?:跟你|和你)?(?:说|讲|提)过(?:的|了)?$|^(?:as )?I (?:think|believe) I (?:said|mentioned|told you)|"
    r"^(?:I|the user) (?:said|told you|mentioned)\b.*\b(?:before|earlier|last time)\b|"
    r"^(?:earlier|before|last time),? I (?:said|told you|mentioned)\b",
    re.I,
)
_ANNOUNCE_RE = re.compile(
    r"^(?:计划有变|有变化|更正一下|纠正一下|更正|纠正|我说错了|说错了|搞错了|(?:我)?(?:记错|弄错|搞错|说错)了?|"
    r"口误|不好意思(?:说错了)?|准确地说|确切地说|更准确地说|to be (?:precise|exact)|let me correct that|"
    r"I misspoke|my mistake|my bad|"
    r"change of plans?|plans? changed|correction|scratch that|update)$",
    re.I,
)
_LEAD_CORRECTION_EN = re.compile(
    r"^(?:scratch that|correction|small correction|change of plans?|update|sorry|oops|wait|"
    r"no wait|i meant|(?:just )?(?:a |as a )?(?:quick |friendly )?reminder(?: that|:|,)?|"
    r"just so you know|fyi|for the record)[,:;]?\s+(?=\S)",
    re.I,
)
_NOT_BUT_ZH = re.compile(r"不是(?P<old>[^，,。]{1,20}?)[，,]?\s*而是(?P<new>[^，,。]{1,30})")
_NOT_BUT_EN = re.compile(r"\bnot (?P<old>[\w\s'-]{1,30}?),? but (?P<new>[\w\s'-]{1,40})", re.I)
_EN_SPLIT_RE = re.compile(
    r",? (?:and|but) (?=(?:also |now |then |these days |today )?(?:I|I'm|I've|my|My|he|she|He|She|"
    r"they|we)\b)|"
    r",? so (?=(?:I|I'm|I've|I'll|my)\b)|"
    r"; |, (?=(?:I|I'm|my|he|she|He|She)\b(?! am\b))|, (?=(?:now|these days|nowadays) (?:I|I'm|my)\b)|, (?=(?:just |please )?(?:call|address) me\b)"
)
_ZH_SPLIT_RE = re.compile(r"[，,；;]|(?:而且|并且|另外)(?=我|他|她)")

#: "I'm A and B" where B is a state of its own (a diet, an allergy, a role, where one is from).
_EN_TWO_STATES_RE = re.compile(
    r"^(?P<lead>I'm|I am) (?P<a>[^,]{3,40}?) and (?P<b>(?:allergic|lactose|gluten|married|"
    r"single|pregnant|vegetarian|vegan|diabetic|left-handed|right-handed|from |based in |"
    r"retired|colou?r-?blind)[^,]{0,40})$"
)
#: An English conditional clause that cannot stand alone ("When I say 'the repo'", "If I ask
#: for the weather"): it is kept with the clause after it.
_CONDITION_ONLY_RE = re.compile(r"^(?:when|whenever|if|every time|each time) I \w+\b[^,;]*$", re.I)
_MARKER_ONLY_RE = re.compile(
    r"^(?:from now on|going forward|in the future|from today|starting today|starting now|"
    r"以后|今后|从现在起|从今天起|从今以后|以后的话|帮我记一下|记一下|记住|请记住|你记一下|"
    r"remember this|note this|for the record)$",
    re.I,
)

CORRECTION_RE = re.compile(
    r"其实|实际上|改成|改为|改到|换成|(?<![批修更删篡涂])改(?=[学吃喝用玩看练听养开骑坐])|换用|转用|切换到|不是.{1,20}而是|计划有变|更正|纠正|说错了|记错了|弄错了|搞错了|口误|(?:换|改|变)了[，,]|"
    r"^不对[，,]|^不是[，,]|"
    r"\b(?:actually|instead|make it|changed? to|correction|I meant|rather than|not .{1,30} but|"
    r"scratch that|I misspoke|my mistake|"
    r"(?:has|have|is|was|got) (?:changed|updated|new))\b|\b(?:changed|updated)[,;]",
    re.I,
)


_CHANGED_VALUE_RE = re.compile(
    r"^(?:我的)?(?P<zx>[\u4e00-\u9fffA-Za-z]{1,8}?)(?:也)?(?:换|改|变|更新)了[，,]\s*"
    r"(?:现在|目前|新的)(?:的)?(?:是|为|在|换成了?|改成了?)(?P<zy>[^，,。!！;；\s]{1,30}?)[。.!！]?$|"
    r"^(?:my|our) (?P<ex>[a-z][a-z ]{1,30}?) (?:has |have |got )?(?:changed|been updated|updated)"
    r"(?:[,;:]\s*(?:it's now|it is now|now it's|the new one is|it's|it is)| to) "
    r"(?P<ey>[^,;!?\s]{1,40}?|[^,;!?]{1,40}?)\.?$",
    re.I,
)


#: A plan announced as moved, its new time in the next clause: "体检改期了，改到下周五",
#: "会议时间变了，挪到周四", "The review got rescheduled, it's now on Friday".
_MOVED_PLAN_RE = re.compile(
    r"^(?:我的|我们的)?(?P<za>[\u4e00-\u9fffA-Za-z]{2,8}?)(?:的时间)?(?:也)?(?:改期|改时间|换时间|延期|推迟|提前|"
    r"时间(?:变|改|换)|变)了?[，,]\s*(?:现在|已经)?(?:改|挪|调|推迟|延期|提前|换)(?:到|成|为)"
    r"(?P<zv>[^，,。!！;；]{1,20}?)(?:了|啦)?[。.!！]?$|"
    r"^(?:the |my |our )(?P<ea>[a-z][a-z' ]{1,30}?) (?:got |was |has been |have been )?(?:rescheduled|"
    r"moved|postponed|pushed back|changed)[,;:]\s*(?:it's |it is )?(?:now )?(?:to |on |at |for )?"
    r"(?P<ev>(?!.*\b(?:is|are|was)\b)[^,;!?]{2,30}?)(?: now| instead)?\.?$",
    re.I,
)


#: A new job announced, the employer in the next clause: "我换工作了，现在在京东", "I changed
#: jobs, I'm at Initech now".
_NEW_JOB_RE = re.compile(
    r"^(?:我)?(?:换工作了|跳槽了|换了(?:份|个)?工作|换了(?:家|个)公司)[，,]\s*(?:现在)?(?:在|去了|到了|进了)"
    r"(?P<zorg>[^，,。!！;；]{2,12}?)(?:上班|工作)?(?:了)?[。.!！]?$|"
    r"^I (?:changed|switched) (?:jobs?|companies)[,;]\s*(?:I'm|I am|now I'm) (?:now )?(?:at|with) "
    r"(?P<eorg>[^,;!?]{2,30}?)(?: now)?\.?$",
    re.I,
)


#: A time a plan can move to ("Friday", "3pm", "April 8", "the 16th", "next week").
_WHEN_RE = re.compile(
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|tonight|noon|"
    r"next \w+|\d{1,2}(?::\d\d)?\s*(?:am|pm)|\d{1,2}:\d\d|(?:jan|feb|mar|apr|may|jun|jul|aug|"
    r"sep|oct|nov|dec)[a-z]* \d{1,2}|\d{1,2}(?:st|nd|rd|th))\b",
    re.I,
)


def restate_change(sentence: str) -> str | None:
    """A changed value said without its subject in the second clause, restated as one fact:
    "车牌换了，现在是浙B67890" -> "我的车牌是浙B67890"; "My email changed, it's now a@b.c" ->
    "My email is a@b.c"; a plan announced as moved: "体检改期了，改到下周五" -> "体检改到下周五",
    "The review got rescheduled, it's now on Friday" -> "The review moved to Friday". None when
    ``sentence`` is not of that form."""
    job = _NEW_JOB_RE.match(sentence.strip())
    if job:
        if job.group("zorg"):
            return f"我现在在{job.group('zorg').strip()}上班"
        return f"I work at {job.group('eorg').strip()}"
    m = _CHANGED_VALUE_RE.match(sentence.strip())
    if m and m.group("zx"):
        return f"我的{m.group('zx')}是{m.group('zy').strip()}"
    if m:
        return f"My {m.group('ex')} is {m.group('ey').strip()}"
    moved = _MOVED_PLAN_RE.match(sentence.strip())
    if moved and moved.group("za"):
        return f"{moved.group('za')}改到{moved.group('zv').strip()}"
    if moved and _WHEN_RE.search(moved.group("ev")):
        return f"The {moved.group('ea')} moved to {moved.group('ev').strip()}"
    return None


@dataclass(frozen=True)
class Holder:
    """Who a clause is about: ``phrase`` replaces the user in the fact ("用户的儿子")."""

    phrase: str
    entity: str


#: One pet, two words ("我的猫咪叫汤圆" is of 用户的猫).
SAME_PET = {"猫咪": "猫", "狗狗": "狗"}

USER_ZH = Holder("用户", "")
USER_EN = Holder("The user", "")


def propositions(sentence: str) -> list[str]:
    """The clauses of one sentence that each state one thing (see module docstring)."""
    text = _NOT_BUT_ZH.sub(
        lambda m: ("是" if not m.string[: m.start()].endswith("是") else "") + m.group("new"),
        sentence,
    )
    text = _NOT_BUT_EN.sub(lambda m: m.group("new"), text)
    text = _LEAD_CORRECTION_EN.sub("", text)
    if not is_chinese(text):  # "on Tuesday, not Monday": the corrected value only
        text = re.sub(r",\s*not (?:on |at |in )?[\w\s'-]{1,30}$", "", text)
    text = re.sub(
        r"^[^：:]{1,20}[：:]\s*",
        lambda m: "" if _ANNOUNCE_RE.match(m.group(0).rstrip("：: ")) else m.group(0),
        text,
    )
    parts = _ZH_SPLIT_RE.split(text) if is_chinese(text) else _EN_SPLIT_RE.split(text)
    out: list[str] = []
    lead = ""
    for part in parts:
        part = part.strip(" ，,。.!！;；")
        if not part or _ANNOUNCE_RE.match(part) or _RECALL_RE.search(part):
            continue
        if _MARKER_ONLY_RE.match(part):  # "From now on, call me Sam": one clause
            lead = part + ("，" if is_chinese(part) else ", ")
            continue
        both = _EN_TWO_STATES_RE.match(part)
        if both and not is_chinese(part):
            # "I'm vegetarian and allergic to nuts": two facts about the user
            out.extend(
                [
                    lead + f"{both.group('lead')} {both.group('a')}",
                    f"{both.group('lead')} {both.group('b')}",
                ]
            )
            lead = ""
            continue
        if _CONDITION_ONLY_RE.match(part) and not lead:
            # "When I say 'the repo', I mean …": the condition belongs to its main clause
            lead = part + ", "
            continue
        out.append(lead + part)
        lead = ""
    return out


def _is_person(name: str) -> bool:
    """True for a Chinese person's name: 老王, 小李, 李医生, or a surname and a given name that is
    no dictionary word (张伟; never 王府井 or 高兴)."""
    if PERSON_RE.fullmatch(name):
        return True
    return (
        len(name) in (2, 3)
        and not is_word(name)
        and not is_word(name[:2])
        and not re.search(r"[会末定报一二三四五六日天年月的地得了期]", name[1:])  # 周会, 周末
    )


def holder_of(clause: str, previous: Holder | None) -> tuple[str, Holder | None]:
    """(clause rewritten to the first person, its third-party holder or None for the user).

    ``previous`` is the holder of the clause before (a leading 他/she refers to it). What
    someone reports of themselves ("老王说他搬到北京了", "Tom told me he quit Google") and
    hearsay ("听说老王…") are about that person, never the user.
    """
    reported = _reported(clause)
    if reported is not None:
        rewritten, holder = holder_of(reported, previous)
        if holder is not None:
            return rewritten, holder
    if is_chinese(clause):
        if _ZH_BARE_RELATION_RE.match(clause):
            clause = "我的" + clause
        m = _ZH_HOLDER_RE.match(clause)
        if m:
            name = m.group("name") or ""
            phrase = f"用户的{SAME_PET.get(m.group('rel'), m.group('rel'))}{name}"
            rest = clause[m.end() :]
            called = re.fullmatch(r"是([\u4e00-\u9fff]{2,3})(?:了|啦)?", rest)
            if called and not name and _is_person(called.group(1)):
                rest = "叫" + called.group(1)  # "我现在的老板是王敏": the boss's name
            return "我" + rest, Holder(phrase, name or phrase)
        if previous is not None and _ZH_PRONOUN_RE.match(clause):
            return _ZH_PRONOUN_RE.sub("我", clause, count=1), previous
        person = _ZH_NAMED_RE.match(clause)
        if person and _is_person(person.group("name")):
            name = person.group("name")
            return "我" + clause[len(name) :], Holder(name, name)
        return clause, None
    opened = _EN_OPENER_RE.sub("", clause, count=1)
    if opened != clause and (
        _EN_HOLDER_RE.match(opened)
        or (
            (named := _EN_NAMED_RE.match(opened))
            and named.group("name").split()[0] not in _EN_NOT_NAMES
        )
    ):
        clause = opened  # "Actually my sister lives in Chicago": the sister's fact
    m = _EN_HOLDER_RE.match(clause)
    if m and re.match(
        r"\s+(?:all |usually |always |often )?(?:call|calls|called) me\b", clause[m.end() :]
    ):
        return clause, None  # "My friends call me Sam": how the user is called
    if m:
        name = m.group("name") or ""
        phrase = f"The user's {m.group('rel')}" + (f" {name}" if name else "")
        rest = clause[m.end() :]
        lead = "my" if (m.group("poss") or m.group("poss2")) else "I"
        called = re.fullmatch(r" is (?:now |called )?([A-Z][a-z]+(?: [A-Z][a-z]+)?)\.?", rest)
        if called and lead == "I" and not name and called.group(1) not in _NOT_PERSON_WORDS:
            # "My manager is Tom", "My new manager is Priya": the manager's name
            return f"I am {called.group(1)}", Holder(phrase, phrase[:1].lower() + phrase[1:])
        return lead + rest, Holder(phrase, name or phrase[:1].lower() + phrase[1:])
    named = _EN_NAMED_RE.match(clause)
    if named and named.group("name").split()[0] not in _EN_NOT_NAMES:
        verb = named.group("verb")
        lead = {
            "is allergic": "I am allergic",
            "has": "I have",
            "doesn't": "I don't",
            "does not": "I do not",
        }.get(verb, "I " + verb)
        phrase = named.group("name") + (named.group("ctx") or "")
        return lead + clause[named.end() :], Holder(phrase, named.group("name"))
    if previous is not None and EN_PRONOUN_LEAD_RE.match(clause):
        clause = EN_PRONOUN_LEAD_RE.sub("", clause, count=1)
    pronoun = _EN_PRONOUN_RE.match(clause)
    if pronoun is None and previous is not None and _is_animal(previous):
        pronoun = re.match(r"^(?:[Ii]t(?:'s)?|[Ii]ts)\b", clause)
    if previous is not None and pronoun is not None:
        word = pronoun.group(0).lower()
        lead = "my" if word in ("his", "her", "its") else "I'm" if word.endswith("'s") else "I"
        return lead + clause[len(word) :], previous
    return clause, None


#: Pets a holder may be (``holder_of`` lets "it" refer to one).
PET_WORDS_ZH = "狗狗|狗|猫咪|猫|鹦鹉|仓鼠|兔子|乌龟|金鱼|蜥蜴|龙猫|刺猬|柯基|泰迪|金毛"
PET_WORDS_EN = (
    "dog|puppy|cat|kitten|parrot|hamster|rabbit|bunny|turtle|tortoise|fish|lizard|gecko|snake|"
    "bird|horse|guinea pig|ferret"
)
_PET_RE = re.compile(rf"(?:{PET_WORDS_ZH})|\b(?:{PET_WORDS_EN})\b")


def _is_animal(holder: Holder) -> bool:
    return bool(_PET_RE.search(holder.phrase))


def _reported(clause: str) -> str | None:
    """The clause said of the speaker itself ("老王搬到北京了" for "老王说他搬到北京了",
    "Tom quit Google" for "Tom told me he quit Google"), or None when it is not reported."""
    if is_chinese(clause):
        body = _ZH_HEARSAY_RE.sub("", clause, count=1)
        m = _ZH_REPORTED_RE.match(body)
        if m:
            return m.group("who") + body[m.end() :]
        return body if body != clause else None
    m = _EN_REPORTED_RE.match(clause)
    return m.group("who") + clause[m.end() :] if m else None


_ZH_MARKERS = re.compile(
    r"^(?:其实|实际上|说实话|对了|话说|说起来|顺带一提|顺便说一下|顺便说|顺便|另外|还有|那个|嗯+|哦|啊|我跟你说|告诉你|"
    r"请记住|记住|记一下|帮我记一下|你记一下|请注意|注意)[，,：:]?"
)
_ZH_PLAIN = [
    (r"一般都|一般|基本上都|基本都|平时都|通常都|大多", "通常"),
    (
        r"(?:别|不要|不用)(?:再)?(?:给|帮|替)(?:我|用户)(?:排|安排)(?:任何)?(?:东西|事情|事|活动|会议)?",
        "不要安排事情",
    ),
    (r"(?:别|不要|不用)(?:再)?(?:给|帮|替)(?:我|用户)", "不要"),
    (r"已经|早就|都已经", ""),
    (r"(?:就行了|就行|就好了|就好|就可以了|就可以|吧|啦|呀|哦|呢|哈|嘛)$", ""),
    (r"(?<=[\u4e00-\u9fff])了$", ""),
    (r"的时候", "时"),
]
_EN_MARKERS = re.compile(
    r"^(?:actually|by the way|btw|oh|also|now|just so you know|fyi|ok so|so|well|hey|note that|"
    r"please remember that|remember that|remember|please note that|for the record),?\s+",
    re.I,
)


def distil(clause: str, holder: Holder | None) -> str:
    """A short third-person fact of ``clause`` (already time-resolved, first person)."""
    from memory_engine.llm.rules_person import third_person

    if is_chinese(clause):
        text = _ZH_MARKERS.sub("", clause.strip())
        for pattern, repl in _ZH_PLAIN:
            text = re.sub(pattern, repl, text)
        text = third_person(text)
        text = re.sub(  # "2023-05-24用户修好了自行车" -> "用户2023-05-24修好了自行车"
            r"^((?:\d{4}[-年][\d\-月日号]*|\d{4}-\d{2}-\d{2}那周)[^用，,]{0,6}?)(用户(?:团队)?)",
            r"\2\1",
            text,
        )
        text = re.sub(  # "膝盖受伤以后用户…" -> "用户膝盖受伤以后…": the subject first
            r"^([^，,用]{1,10}?(?:以后|之后|后|时|的时候))用户(?![的团时])", r"用户\1", text
        )
        text = re.sub(  # "用户2023-06-12生日" -> "用户的生日是2023-06-12"
            r"^(用户[^0-9]{0,8}?)(\d{4}-\d{2}-\d{2}|\d{4}年\d{1,2}月\d{1,2}[日号]?)(?:过)?生日$",
            r"\1的生日是\2",
            text,
        )
        if holder is not None:
            text = re.sub(r"^用户", holder.phrase, text, count=1)
            if not text.startswith(holder.phrase):
                text = holder.phrase + text
        return _cut(text, ZH_MAX_CHARS)
    text = _EN_MARKERS.sub("", clause.strip())
    text = re.sub(r",?\s+instead$", "", text, flags=re.I)
    text = third_person(text[:1].upper() + text[1:] if text[:2] != "I " else text)
    if holder is not None:
        text = re.sub(r"^The user\b", holder.phrase, text, count=1)
        if _PLURAL_HOLDER_RE.search(holder.phrase):  # "The user's parents live in Osaka"
            text = re.sub(
                rf"^({re.escape(holder.phrase)} (?:also |still |now |usually |often |never )?)(\w+'?\w*)",
                lambda m: m.group(1) + _PLURAL_VERB.get(m.group(2), _plural_verb(m.group(2))),
                text,
                count=1,
            )
    return _cut(text, EN_MAX_CHARS)


#: Holders that are several people: their verb takes no third-person -s.
_PLURAL_HOLDER_RE = re.compile(
    r"\b(?:parents|kids|children|sons|daughters|sisters|brothers|siblings|friends|colleagues|"
    r"grandparents|in-laws|roommates|folks|neighbors|neighbours|twins)$",
    re.I,
)
_PLURAL_VERB = {"is": "are", "was": "were", "has": "have", "doesn't": "don't", "does": "do"}


def _plural_verb(word: str) -> str:
    """``lives`` -> ``live``, ``studies`` -> ``study``, ``goes`` -> ``go``; other words as
    they are."""
    if re.fullmatch(r"[a-z]+ies", word):
        return word[:-3] + "y"
    if re.fullmatch(r"[a-z]+(?:sh|ch|x|z|ss|o)es", word):
        return word[:-2]
    if re.fullmatch(r"[a-z]+[^s]s", word) and not re.fullmatch(r"[a-z]*(?:us|is|ss)", word):
        return word[:-1]
    return word


def _cut(text: str, limit: int) -> str:
    text = text.strip(" ，,。.;；")
    if len(text) <= limit:
        return text
    for sep in ("，", "；", ", ", "; "):
        head = text[:limit].rsplit(sep, 1)[0]
        if len(head) >= limit // 2:
            return head
    return text[:limit].rstrip()
