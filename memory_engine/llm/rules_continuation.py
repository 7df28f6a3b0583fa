"""A message that continues the user's previous one (offline judge rule).

"We got a dog last year" then "she's a border collie, her name's Pepper"; "I play piano" then
"mostly jazz stuff"; "我养了一只鹦鹉" then "是玄凤鹦鹉，叫小黄"; "我有高血压" then "在吃氨氯地平".
The second message opens with a pronoun, an adverb of degree or a copula and names no subject
of its own: what it says is about the previous message's subject. Its fact is then a
supplement of the memory that message stored (``JudgeCandidate.recent``), unless it corrects
or denies it.

A message that takes back what was just said ("scratch that, sold the civic", "wait I typed
that wrong, it's Miso", "更正一下，我已经跳槽去字节了", "计划有变，五一改去青岛了") corrects the
previous message: :func:`corrects_previous`. The judge then lets its fact replace the memory
that message stored when it found nothing else the fact replaces.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Literal

from memory_engine.llm.rules_numbers import number_of

__all__ = ["TakeBack", "continues", "corrects_previous", "substituted", "without_denied"]

_EN_CONTINUATION_RE = re.compile(
    r"^(?:(?:oh|ah|yeah|yep|and|plus|btw|fyi|so)[,!]?\s+)*"
    r"(?:(?:she|he|it|they|that|this)(?:'s|'re|'ll|\s+(?:is|are|was|were|has|have|had|goes|"
    r"gets|needs|lives|likes|loves)\b)|(?:her|his|its|their)\s+\w+|"
    r"(?:mostly|mainly|especially|specifically|usually|typically|normally|generally|"
    r"primarily|particularly|always|only)\b)|"
    r"^[\w'-]+(?:\s+[\w'-]+){0,2},?\s+(?:specifically|in particular|to be exact)\b",
    re.I,
)
_ZH_CONTINUATION_RE = re.compile(
    r"^(?:对了|另外|还有|嗯|哦)?[，,]?\s*"
    r"(?:是(?!不是)|尤其(?:是)?|特别是|主要(?:是)?|一般|通常|平时|基本上|它|她|他(?!们)|牠|"
    r"在(?:吃|用|学|练|做)|每(?:天|周|次))"
)
_NEGATED_OPENING_RE = re.compile(r"^(?:不是|没|不|别|no\b|not\b|never\b)", re.I)


def continues(text: str) -> bool:
    """True when ``text`` (the user's message) opens as a continuation of the previous one:
    a pronoun, an adverb such as "mostly"/"一般", a bare copula ("是玄凤鹦鹉"), or a name
    followed by "specifically"; never when it opens with a negation."""
    first = re.split(r"(?<=[。！？!?])\s*|\n", text.strip(), maxsplit=1)[0].strip()
    if not first or _NEGATED_OPENING_RE.match(first):
        return False
    return bool(_EN_CONTINUATION_RE.match(first) or _ZH_CONTINUATION_RE.match(first))


#: How strongly a message takes back what was just said: an explicit retraction ("scratch
#: that", 更正, 说错了), a change of plans ("plans changed", 计划有变: only a plan or an event is
#: taken back), or a weak cue ("actually", "instead", 其实, 不对: only a fact of the same kind).
_STRONG_TAKE_BACK_RE = re.compile(
    r"\b(?:scratch that|that's (?:outdated|wrong|not right|old info)|that was wrong|"
    r"I (?:typed|wrote|said|spelled|got) (?:that|it) wrong|I meant\b(?! to say)|correction)\b|"
    r"更正|纠正|说错了|打错了|写错了|记错了|搞错了|弄错了|口误|之前说的不对|刚才说的不对",
    re.I,
)
_PLANS_CHANGED_RE = re.compile(
    r"\b(?:plans? (?:changed|have changed)|change of plans?)\b|计划有变|计划变了", re.I
)
_WEAK_TAKE_BACK_RE = re.compile(
    r"\b(?:my (?:bad|mistake)|oops|not anymore|no longer true|instead|typo|autocorrect)\b|"
    r"^(?:wait|actually|no wait)\b|^(?:(?:sorry|sry|oops|no)[,!]?\s+)*make (?:it|that)\b|"
    r"^(?:哦|噢|啊)?不对|^其实",
    re.I,
)
#: Words that add to what was said: never a take-back ("Oops, I also have a cat").
_ADDS_RE = re.compile(r"\b(?:also|too|as well)\b|也|还有|另外", re.I)

TakeBack = Literal["strong", "plans", "weak"]


def corrects_previous(text: str) -> TakeBack | None:
    """How ``text`` (the user's message) takes back what was just said: ``"strong"`` ("scratch
    that", "I typed that wrong", 更正, 说错了), ``"plans"`` ("plans changed", 计划有变),
    ``"weak"`` (a message opening with "actually"/"wait"/其实/不对, "instead", "oops"), or
    None (not a take-back, or it adds: "also", 也)."""
    text = text.strip()
    if _ADDS_RE.search(text):
        return None
    if _STRONG_TAKE_BACK_RE.search(text):
        return "strong"
    if _PLANS_CHANGED_RE.search(text):
        return "plans"
    return "weak" if _WEAK_TAKE_BACK_RE.search(text) else None


#: "it's Miso, not Mochi", "Munich, not Berlin", "on Wednesday now, not Tuesday", "I said
#: Munich not Berlin"; "是小绿，不是小黄", "它叫小绿，不叫小黄", "其实它叫豆包不是豆豆",
#: "不是小黄，是小绿". The sentence opens with the value or a bare copula: a sentence with a
#: subject of its own ("my wife is in Paris, not London", "我老婆是老师，不是医生") is no swap.
_LEAD = (
    r"^(?:(?:oh|wait|no|sorry|sry|ugh|actually|correction|lol)[,!:]?\s+)*"
    r"(?:(?:it's|it is|that's|that is|it was|I said|I meant|make it|make that)\s+)?"
    r"(?:on |at |in |a |an |the )?"
)
#: What a Chinese swap may open with: an interjection, then a remark on the slip ("说错了",
#: "啊刚才打错字了", "不对", "更正一下").
_ZH_LEAD = (
    r"^(?:其实|哦|噢|啊|诶|唉|抱歉|不好意思)?[，,]?\s*"
    r"(?:[^，,。！!\s]{0,4}?(?:说错|打错|写错|记错|搞错|弄错)(?:字)?了|不对|更正一下)?[，,]?\s*(?:其实)?"
)
_INSTEAD_OF_RES = (
    re.compile(
        _LEAD + r"(?P<new>[\w'.:$-]+(?:\s+[\w'.:$-]+){0,2}?)(?:\s+now)?,?\s+"
        r"(?:not|rather than|instead of)\s+(?:a |an |the |on |at |in )?"
        r"(?P<old>[\w'.:$-]+(?:\s+[\w'.:$-]+){0,2}?)$",
        re.I,
    ),
    re.compile(
        _ZH_LEAD + r"(?:它|牠)?(?:是|叫)(?P<new>[^，,。！!\s]{1,12}?)[，,]?\s*"
        r"(?:而)?不(?:是|叫)(?P<old>[^，,。！!\s]{1,12})$"
    ),
    re.compile(
        _ZH_LEAD + r"(?:它|牠)?不(?:是|叫)(?P<old>[^，,。！!\s]{1,12}?)[，,]\s*"
        r"(?:而)?(?:是|叫)(?P<new>[^，,。！!\s]{1,12})$"
    ),
)
_DENIAL_RE = re.compile(
    r"\b(?:i|i'm|we|we're|you|you're|they|they're|he|she)(?:\s+(?:am|are|is|was|were|do|does|did))?"
    r"\s+(?:not|never)\b|我不|我没|我并不",
    re.I,
)
_PRONOUN_RE = re.compile(
    r"\b(?:i|i'm|me|my|we|our|you|your|let's|please|she|he|they|she's|he's|they're)\b|我|你|他|她",
    re.I,
)
_SENTENCE_SPLIT_RE = re.compile(r"(?<=[。！？!?；;])|(?<=[.])\s+|\n")
_NOISE_RE = re.compile(
    r"[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]+|\s+(?:lol|haha|lmao)\b[.!]*|[（(][^）)]{0,12}[）)]|"
    # a remark on the slip itself ("我老是打错", "autocorrect", "my bad")
    r"[，,]\s*(?:我)?(?:老是|又|总是)?(?:打错|写错|说错|手滑)了?[^，,。]{0,6}$|"
    r"[,.]?\s*(?:autocorrect|my bad|typo)\b.*$|"
    r"[,.]?\s*(?:I\s+)?(?:always|keep|still)\s+(?:mix|mixing|confuse|confusing|forget|forgetting)"
    r"\b[^,.]*$",
    re.I,
)
#: "no wait, it's a 2017", "sorry, make it 45": a number said again in place of the previous
#: message's number of the same shape (digits, or a time).
_NUMBER_AGAIN_RE = re.compile(
    r"^(?:(?:oh|wait|no|sorry|sry|ugh|actually|correction|oops)[,!:]?\s+)*"
    r"(?:it's|it is|that's|that is|it was|I meant|make it|make that)\s+(?:a |an |the )?\$?"
    r"(?P<new>\d{1,2}:\d{2}|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?|[a-z]+)$|"
    # "不对，是35", "其实是3500", "说错了，应该是8点"
    r"^(?:不对|其实|哦|噢|啊|说错了|更正一下)?[，,]?\s*(?:应该|其实)?是\s*"
    r"(?P<zh>\d{1,2}:\d{2}|\d+(?:\.\d+)?)(?:岁|块|元|个|点|号|分|公里|斤)?$",
    re.I,
)
#: A time, a comma-grouped number ("1,200") or a plain one, as a whole.
_NUMBER_RE = re.compile(
    r"(?<![\d:.,])(?:\d{1,2}:\d{2}|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\d:.]|,\d)"
)


def _shape(number: str) -> tuple[bool, int]:
    """(is a time, digits before the point) of a number: "2019" and "2017" share a shape."""
    return ":" in number, len(number.replace(",", "").split(".")[0])


def _number_replaced(previous: str, said: str) -> str | None:
    """``previous`` with its one number of the shape of ``said`` (digits, a time or an
    English number word: "2017" for "2019", "900" for "$1,200") replaced by it, or None:
    no such number or more than one, another number of about its length ("10" after "son is
    12 and daughter is 9"), a bare hour where ``previous`` holds a time ("7" after
    "wakes up at 6:30 and runs 5 km" may be either), the same number, or one of them is 1
    (the noun after it would change its number: "1 brother")."""
    new = number_of(said) or said
    if not re.fullmatch(r"\d{1,2}:\d{2}|[\d,]+(?:\.\d+)?", new):
        return None
    found = list(_NUMBER_RE.finditer(previous))
    if ":" not in new and new.isdigit() and int(new) <= 24 and any(":" in m[0] for m in found):
        return None
    if len(found) > 1:  # of several, only the one of the same shape, the others far from it
        same = [m for m in found if _shape(m[0]) == _shape(new)]
        others = [m for m in found if m not in same]
        near = [m for m in others if abs(_shape(m[0])[1] - _shape(new)[1]) < 2]
        found = same if not near else []  # "12 and 9" then "it's 10": either one
    if len(found) != 1:
        return None
    old = found[0][0]
    if (":" in old) != (":" in new) or old.replace(",", "") == new.replace(",", ""):
        return None
    if "1" in (old, new):
        return None
    return previous[: found[0].start()] + new + previous[found[0].end() :]


_ZH_WHEN = (
    r"(?:每)?(?:周|星期|礼拜)[一二三四五六日天]+(?:早上|上午|中午|下午|晚上)?"
    r"(?:[\d一二三四五六七八九十两]+点(?:半|\d+分?)?)?|"
    r"(?:早上|上午|中午|下午|晚上)?[\d一二三四五六七八九十两]+点(?:半|\d+分?)?"
)
_EN_WHEN = (
    r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?(?: (?:mornings?|afternoons?|evenings?|"
    r"nights?))?(?: at \d{1,2}(?::\d{2})?\s*(?:am|pm)?)?|\d{1,2}(?::\d{2})?\s*(?:am|pm)"
)
_WHEN_RE = re.compile(rf"{_ZH_WHEN}|\b(?:{_EN_WHEN})\b", re.I)
#: "现在改成周六早上了", "改到周五了", "it's on Thursday evenings now", "moved to 4pm": a
#: changed time said without what it is of.
_WHEN_CHANGED_RES = (
    re.compile(
        rf"^(?:现在|以后|之后|后来|那就|就)?(?:改成|改到|改为|换成|换到|挪到|调到|推迟到|提前到)了?"
        rf"(?P<new>{_ZH_WHEN})(?:了|啦|吧)?$"
    ),
    re.compile(
        r"^(?:(?:oh|actually|update|fyi|btw|so)[,:]?\s+)*(?:it's|it is|that's|they're|we're)?\s*"
        rf"(?:now\s+)?(?:moved to|changed to|switched to|on)\s+(?P<new>{_EN_WHEN})(?:\s+now)?$",
        re.I,
    ),
)


def _when_replaced(previous: str, sentence: str) -> str | None:
    """``previous`` with its one time or day replaced by the one ``sentence`` changes it to
    ("用户每周三晚上去游泳" + "现在改成周六早上了" -> "用户每周六早上去游泳"), or None: no such
    sentence, or ``previous`` names no time or more than one."""
    m = next((r.match(sentence) for r in _WHEN_CHANGED_RES if r.match(sentence)), None)
    if m is None:
        return None
    spans = list(_WHEN_RE.finditer(previous))
    if len(spans) != 1:
        return None
    new = m.group("new")
    if spans[0][0].startswith("每") and not new.startswith("每"):
        new = "每" + new  # a weekly habit stays weekly
    if spans[0][0].lower() == new.lower():
        return None
    return previous[: spans[0].start()] + new + previous[spans[0].end() :]


def _value_at(previous: str, old: str) -> int:
    """Where ``old`` stands in ``previous`` as a whole value (not inside a longer word or
    number: "Max" is not in "Maxwell", "3" not in "13点", 小黄 not in 小黄狗), or -1."""
    lower, target = previous.lower(), old.lower()
    start = 0
    while (at := lower.find(target, start)) >= 0:
        before = previous[at - 1] if at else " "
        after = previous[at + len(old)] if at + len(old) < len(previous) else " "
        word = re.compile(r"[A-Za-z0-9_$]")
        latin_ok = not (word.match(before) and word.match(old[0])) and not (
            word.match(after) and word.match(old[-1])
        )
        han = "\u4e00" <= old[0] <= "\u9fff"
        # a Han value ends a word ("小黄" is not in "小黄狗") and is not a repeat's tail
        # ("豆豆" in "豆豆豆")
        han_ok = not (han and "\u4e00" <= after <= "\u9fff") and not (han and before == old[0])
        digit_ok = not (before.isdigit() or after.isdigit())
        if latin_ok and han_ok and digit_ok:
            return at
        start = at + 1
    return -1


def substituted(previous: str, text: str) -> str | None:
    """``previous`` (the previous message's fact) with the value ``text`` takes back replaced
    by the one it gives ("The user's cat is named Mochi" + "it's Miso, not Mochi" -> "The
    user's cat is named Miso"), or None: ``text`` is more than that one sentence, says no "X,
    not Y" opening with the value, has a subject of its own, or ``previous`` does not hold Y
    as a whole value."""
    sentences = [
        c
        for c in (_NOISE_RE.sub("", x).strip(" 。.!！~～") for x in _SENTENCE_SPLIT_RE.split(text))
        if c
    ]
    if len(sentences) != 1:
        return None  # "Munich, not Berlin. I work at BMW": the other sentence has facts too
    sentence = sentences[0]
    number = _NUMBER_AGAIN_RE.match(sentence) if corrects_previous(text) else None
    if number:  # "no wait, it's a 2017" after "drives a 2019 Honda Civic"
        replaced = _number_replaced(previous, number.group("new") or number.group("zh"))
        if replaced is not None:
            return replaced
    when = _when_replaced(previous, sentence)
    if when is not None:  # "现在改成周六早上了" after "每周三晚上去游泳"
        return when
    for pattern in _INSTEAD_OF_RES:
        m = pattern.search(sentence)
        if not m:
            continue
        new, old = m.group("new").strip(), m.group("old").strip()
        if _DENIAL_RE.search(sentence) or _PRONOUN_RE.search(new):
            continue  # "Honestly I'm not a morning person": a denial, not a swap
        at = _value_at(previous, old)
        if not new or not old or at < 0 or new.lower() == old.lower():
            continue
        return previous[:at] + new + previous[at + len(old) :]
    return None


#: "，不是白色" / "，而不是Y" closing a clause; "不是在成都，是在重庆" opening one; ", not Denver".
_ZH_DENIED_TAIL_RE = re.compile(r"[，,]\s*(?:而)?不是(?P<old>[^，,。!！]{1,12})(?=[，,。!！]|$)")
_ZH_DENIED_HEAD_RE = re.compile(r"不是(?P<old>[^，,。!！]{1,12})[，,]\s*(?:而)?是(?P<at>在)?")
_EN_DENIED_RE = re.compile(
    r"(?:,\s+|,?\s+and\s+)not\s+(?:a |an |the |in |at |on )?(?P<old>[\w'-]+(?:\s+[\w'-]+){0,2})"
    r"(?=[,.;!]|$)",
    re.I,
)


def without_denied(clause: str, context: Sequence[str]) -> str:
    """``clause`` without the part that denies a value the previous message's memory holds
    ("我那辆是银色的，不是白色" after "用户开的是一辆白色卡罗拉" -> "我那辆是银色的"; "她不是在成都，
    是在重庆" after "用户的妹妹在成都读研" -> "她在重庆"; "it's in Austin, not Denver"): the new
    fact says what holds, and the judge still reads the denied value in the message. A denial
    of a value no memory holds is kept ("我喝茶，不是咖啡" said first)."""

    def held(old: str) -> bool:
        value = re.sub(r"^(?:在|叫|是)", "", old.strip())
        if re.fullmatch(r"[\u4e00-\u9fff]{2,}", value):  # 白色 in 白色卡罗拉, 成都 in 在成都读研
            return any(value in memory for memory in context)
        return bool(value) and any(_value_at(memory, value) >= 0 for memory in context)

    text = _ZH_DENIED_HEAD_RE.sub(
        lambda m: (m["at"] or "是") if held(m["old"]) else m[0], clause, count=1
    )
    text = _ZH_DENIED_TAIL_RE.sub(lambda m: "" if held(m["old"]) else m[0], text)
    text = _EN_DENIED_RE.sub(lambda m: "" if held(m["old"]) else m[0], text)
    return text if text.strip(" ，,") else clause
