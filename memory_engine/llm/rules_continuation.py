"""A message that continues the user's previous one (offline judge rule).

"We got a dog last year" then "she's a border collie, her name's Pepper"; "I play piano" then
"mostly jazz stuff"; "我养了一只鹦鹉" then "是玄凤鹦鹉，叫小黄"; "我有高血压" then "在吃氨氯地平".
The second message opens with a pronoun, an adverb of degree or a copula and names no subject
of its own: what it says is about the previous message's subject. Its fact is then a
supplement of the memory that message stored (``JudgeCandidate.recent``), unless it corrects
or denies it.
"""

from __future__ import annotations

import re

__all__ = ["continues"]

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
