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

__all__ = ["continues", "corrects_previous", "substituted"]

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


_TAKES_BACK_RE = re.compile(
    r"\b(?:scratch that|that's (?:outdated|wrong|not right|old info)|that was wrong|"
    r"I (?:typed|wrote|said|spelled|got) (?:that|it) wrong|typo|autocorrect|I meant|"
    r"correction|my (?:bad|mistake)|oops|plans? (?:changed|have changed)|change of plans?|"
    r"not anymore|no longer true|instead)\b|^(?:wait|actually|no wait)\b|"
    r"更正|纠正|说错了|打错了|打错字|写错了|记错了|搞错了|弄错了|口误|^(?:哦|噢|啊)?不对|"
    r"计划有变|计划变了|之前说的不对|刚才说的不对|^其实",
    re.I,
)


def corrects_previous(text: str) -> bool:
    """True when ``text`` (the user's message) takes back what was just said: "scratch that",
    "I typed that wrong", "plans changed", "instead", 更正, 说错了, 计划有变, a message opening
    with "actually"/"wait"/其实/不对."""
    return bool(_TAKES_BACK_RE.search(text.strip()))


#: "it's Miso, not Mochi", "she's a sheltie, not a border collie", "on Wednesday now, not
#: Tuesday"; "是小绿，不是小黄", "它叫小绿，不叫小黄", "叫豆包不是豆豆", "不是小黄，是小绿".
_INSTEAD_OF_RES = (
    re.compile(
        r"^(?:.*?\b(?:it's|it is|she's|he's|they're|that's|it was|is|was|said|meant|mean)\s+)?"
        r"(?:on |at |in )?(?:a |an |the )?(?P<new>[\w'.:-]+(?:\s+[\w'.:-]+){0,3}?)(?:\s+now)?,?\s+"
        r"(?:not|rather than|instead of)\s+(?:a |an |the |on |at |in )?"
        r"(?P<old>[\w'.:-]+(?:\s+[\w'.:-]+){0,3}?)\s*(?:lol|haha)?[.!]*$",
        re.I,
    ),
    re.compile(
        r"(?:是|叫)(?P<new>[^，,。！!\s]{1,12}?)[，,]?\s*不(?:是|叫)(?P<old>[^，,。！!\s]{1,12})"
    ),
    re.compile(
        r"不(?:是|叫)(?P<old>[^，,。！!\s]{1,12}?)[，,]\s*(?:而)?(?:是|叫)(?P<new>[^，,。！!\s]{1,12})"
    ),
)


_DENIAL_RE = re.compile(
    r"\b(?:i|i'm|we|we're|you|you're|they|they're|he|she)(?:\s+(?:am|are|is|was|were|do|does|did))?"
    r"\s+(?:not|never)\b|我不|我没|我并不",
    re.I,
)
_PRONOUN_RE = re.compile(r"\b(?:i|i'm|me|my|we|our|you|your)\b|我|你", re.I)


def substituted(previous: str, text: str) -> str | None:
    """``previous`` (the previous message's fact) with the value ``text`` takes back replaced
    by the one it gives ("The user's cat is named Mochi" + "it's Miso, not Mochi" -> "The
    user's cat is named Miso"), or None when ``text`` says no "X, not Y" or ``previous`` does
    not hold Y."""
    for sentence in re.split(r"(?<=[。！？!?；;])|\n", text.strip()):
        sentence = re.sub(r"[😂🤣😅]+|\s+(?:lol|haha)\b", "", sentence.strip(" 。.!！~～"))
        for pattern in _INSTEAD_OF_RES:
            m = pattern.search(sentence)
            if not m:
                continue
            new, old = m.group("new").strip(), m.group("old").strip()
            if _DENIAL_RE.search(sentence) or _PRONOUN_RE.search(new):
                continue  # "Honestly I'm not a morning person": a denial, not a swap
            at = previous.lower().find(old.lower())
            if not new or not old or at < 0 or new.lower() == old.lower():
                continue
            return previous[:at] + new + previous[at + len(old) :]
    return None
