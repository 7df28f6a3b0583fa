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

from memory_engine.llm.rules_polarity import is_chinese

#: Longest distilled fact, in characters (Chinese / English).
ZH_MAX_CHARS = 50
EN_MAX_CHARS = 120

_ZH_RELATIONS = (
    "儿子|女儿|老婆|妻子|太太|老公|丈夫|先生|妈妈|母亲|爸爸|父亲|哥哥|姐姐|弟弟|妹妹|爷爷|奶奶|"
    "外公|外婆|男朋友|女朋友|朋友|同事|经理|老板|领导|上司|组长|主管|总监|老师|同学|室友|孩子|宝宝|"
    "客户|导师|医生|父母|爸妈|家人|岳父|岳母|公公|婆婆|姥姥|姥爷|叔叔|阿姨|舅舅|姑姑|侄子|侄女|"
    "外甥|孙子|孙女|邻居|房东|未婚妻|未婚夫|爱人|对象|另一半|媳妇|妈|爸"
)
_EN_RELATIONS = (
    "son|daughter|wife|husband|partner|mom|mum|mother|dad|father|brother|sister|grandma|"
    "grandmother|grandpa|grandfather|friend|best friend|colleague|coworker|co-worker|manager|"
    "boss|team lead|lead|kid|child|girlfriend|boyfriend|roommate|client|doctor|landlord|neighbor|"
    "neighbour|parents|in-laws|uncle|aunt|cousin|nephew|niece|fiance|fiancee|cat|dog"
)
_ZH_HOLDER_RE = re.compile(
    rf"^(?:我们?(?:的|家)?|用户的)(?P<rel>{_ZH_RELATIONS})"
    r"(?P<name>[A-Z][A-Za-z]+|[\u4e00-\u9fff]{2,3}(?=喜欢|是|在|对|说|要|想|会|不|住|刚|已经|每|特别|很|最|下|上个|明天|昨天|今天))?[，,]?"
)
_EN_HOLDER_RE = re.compile(
    rf"^(?:[Mm]y|[Oo]ur|[Tt]he user's) (?P<rel>{_EN_RELATIONS})(?P<poss>'s)?"
    r"(?:,? (?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?P<poss2>'s)?,?)?(?= )"
)
_EN_NAMED_RE = re.compile(
    r"^(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?)(?P<ctx> (?:from|in|at) [a-z][\w ]{1,20}?)? "
    r"(?P<verb>prefers|likes|loves|hates|dislikes|wants|needs|lives|works|doesn't|does not|"
    r"can't|is allergic|has)\b"
)
_EN_NOT_NAMES = {"The", "This", "That", "It", "There", "He", "She", "They", "We", "You", "My"}
_ZH_PRONOUN_RE = re.compile(r"^(?:他|她|它)(?:们)?(?!们)")
_EN_PRONOUN_RE = re.compile(r"^(?:[Hh]e|[Ss]he)(?:'s)?\b|^(?:[Hh]is|[Hh]er)\b")

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
    r"; |, (?=(?:I|I'm|my|he|she|He|She)\b(?! am\b))|, (?=(?:just |please )?(?:call|address) me\b)"
)
_ZH_SPLIT_RE = re.compile(r"[，,；;]|(?:而且|并且|另外)(?=我|他|她)")

_MARKER_ONLY_RE = re.compile(
    r"^(?:from now on|going forward|in the future|from today|starting today|starting now|"
    r"以后|今后|从现在起|从今天起|从今以后|以后的话|帮我记一下|记一下|记住|请记住|你记一下|"
    r"remember this|note this|for the record)$",
    re.I,
)

CORRECTION_RE = re.compile(
    r"其实|实际上|改成|改为|改到|换成|不是.{1,20}而是|计划有变|更正|纠正|说错了|记错了|弄错了|搞错了|口误|(?:换|改|变)了[，,]|"
    r"\b(?:actually|instead|make it|changed? to|correction|I meant|rather than|not .{1,30} but|"
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


def restate_change(sentence: str) -> str | None:
    """A changed value said without its subject in the second clause, restated as one fact:
    "车牌换了，现在是浙B67890" -> "我的车牌是浙B67890"; "My email changed, it's now a@b.c" ->
    "My email is a@b.c". None when ``sentence`` is not of that form."""
    m = _CHANGED_VALUE_RE.match(sentence.strip())
    if not m:
        return None
    if m.group("zx"):
        return f"我的{m.group('zx')}是{m.group('zy').strip()}"
    return f"My {m.group('ex')} is {m.group('ey').strip()}"


@dataclass(frozen=True)
class Holder:
    """Who a clause is about: ``phrase`` replaces the user in the fact ("用户的儿子")."""

    phrase: str
    entity: str


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
        out.append(lead + part)
        lead = ""
    return out


def holder_of(clause: str, previous: Holder | None) -> tuple[str, Holder | None]:
    """(clause rewritten to the first person, its third-party holder or None for the user).

    ``previous`` is the holder of the clause before (a leading 他/she refers to it).
    """
    if is_chinese(clause):
        m = _ZH_HOLDER_RE.match(clause)
        if m:
            name = m.group("name") or ""
            phrase = f"用户的{m.group('rel')}{name}"
            return "我" + clause[m.end() :], Holder(phrase, name or phrase)
        if previous is not None and _ZH_PRONOUN_RE.match(clause):
            return _ZH_PRONOUN_RE.sub("我", clause, count=1), previous
        return clause, None
    m = _EN_HOLDER_RE.match(clause)
    if m:
        name = m.group("name") or ""
        phrase = f"The user's {m.group('rel')}" + (f" {name}" if name else "")
        rest = clause[m.end() :]
        lead = "my" if (m.group("poss") or m.group("poss2")) else "I"
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
    if previous is not None and _EN_PRONOUN_RE.match(clause):
        word = _EN_PRONOUN_RE.match(clause).group(0).lower()  # type: ignore[union-attr]
        lead = "my" if word in ("his", "her") else "I'm" if word.endswith("'s") else "I"
        return lead + clause[len(word) :], previous
    return clause, None


_ZH_MARKERS = re.compile(
    r"^(?:其实|实际上|说实话|对了|顺便说一下|顺便说|顺便|另外|还有|那个|嗯+|哦|啊|我跟你说|告诉你|"
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
    return _cut(text, EN_MAX_CHARS)


def _cut(text: str, limit: int) -> str:
    text = text.strip(" ，,。.;；")
    if len(text) <= limit:
        return text
    for sep in ("，", "；", ", ", "; "):
        head = text[:limit].rsplit(sep, 1)[0]
        if len(head) >= limit // 2:
            return head
    return text[:limit].rstrip()
