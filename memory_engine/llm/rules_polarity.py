"""Polarity of a clause (Chinese and English): does it assert or deny its predicate?

A negator counts when it stands before the end of the predicate (``对花生不过敏``, ``I'm not
allergic to peanuts``, ``不再喜欢``, ``no longer``, ``don't ... anymore``); words that only look
negative are removed first (不错, 不少, 不断, 不同, 差不多, 不得不, 不管, 不仅, 对不起, 没关系;
"not only", "no problem", "can't wait"). A double negation (不得不, 不能不) asserts.
"""

from __future__ import annotations

import re

_ZH_NOT_NEGATION = re.compile(
    r"特别|分别|区别|别人|别的|别处|告别|级别|性别|类别|个别|派别|识别|辨别|鉴别|差别|不错|不少|不断|不同|差不多|不得不|不能不|不管|不仅|不但|对不起|没关系|了不起|不久|不然|要不|"
    r"忍不住|不一定|不过(?!敏)|是不是|有没有|要不要|会不会|能不能|行不行|好不好|不见得"
)
_ZH_NEGATION = re.compile(
    r"不再|再也不|其实不|并不|从不|从来不|从没|从来没|不|没有|没|别|勿|无法|未|甭|"
    r"(?:吃|喝|受|碰|用)不了"
)
_EN_NOT_NEGATION = re.compile(
    r"\bnot only\b|\bno problem\b|\bcan't wait\b|\bno doubt\b|\bnot bad\b|\bnever mind\b", re.I
)
_EN_NEGATION = re.compile(
    r"\b(?:not|never|no longer|nobody|nothing|none|used to|gave up|given up|giving up|stopped|"
    r"quit)\b|n't\b|\bany ?more\b|\bno more\b",
    re.I,
)


def is_chinese(text: str) -> bool:
    """True when ``text`` holds a CJK ideograph."""
    return bool(re.search(r"[\u4e00-\u9fff]", text))


def polarity(clause: str, predicate_end: int | None = None) -> int:
    """+1 (asserted) or -1 (denied) for ``clause``.

    Args:
        clause: one clause (a proposition), first or third person.
        predicate_end: index in ``clause`` where its predicate ends; negators after it (in the
            object, "不加糖的咖啡") do not count. English "anymore" counts anywhere.

    Returns:
        -1 when the predicate is negated, else +1.
    """
    if is_chinese(clause):
        head = clause if predicate_end is None else clause[:predicate_end]
        head = _ZH_NOT_NEGATION.sub("", head)
        return -1 if _ZH_NEGATION.search(head) else 1
    text = _EN_NOT_NEGATION.sub("", clause)
    head = text if predicate_end is None else text[:predicate_end]
    if _EN_NEGATION.search(head) or re.search(r"\bany ?more\b", text, re.I):
        return -1
    return 1
