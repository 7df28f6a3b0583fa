"""Two values of one kind: a reply that holds one where a memory holds another cannot be that
memory said again (offline judge rule; ``contrasted``)."""

from __future__ import annotations

import re

from memory_engine.llm.rules_anchors import content_anchors
from memory_engine.text import tokenize

__all__ = ["contrasted"]

_HAN_WORD_ONLY_RE = re.compile(r"[\u4e00-\u9fff]+")
#: A Chinese number with its unit or a weekday ("三年级", "七点", "一三五", "周二").
_ZH_NUMBER_RE = re.compile(
    r"^(?:周|星期|礼拜)?[零一二三四五六七八九十两百千万\d]+[点年级岁号月日周次个天时分块元]*$"
)
#: The extra character that makes a place of a name ("思明" / "思明区"): the same place.
_PLACE_SUFFIXES = frozenset("区市省县镇村路街州")
#: Closed sets of values: two of one set are two values of one attribute.
_VALUE_SETS = tuple(
    frozenset(t for w in words.split() for t in tokenize(w))
    for words in (
        "red orange yellow green blue purple pink black white grey gray brown silver gold",
        "monday tuesday wednesday thursday friday saturday sunday",
        "january february march april june july august september october november december",
    )
)
_PROPER_RE = re.compile(r"(?<![.!?:]\s)(?<=\s)[A-Z][\w'-]*")


def _proper_terms(text: str) -> set[str]:
    """Terms of the capitalised words of ``text`` that do not open a sentence (names)."""
    return {t for w in _PROPER_RE.findall(" " + text.strip()[1:]) for t in tokenize(w)}


def _contrast(a: str, b: str, proper: set[str]) -> bool:
    """True when terms ``a`` and ``b`` are two values of one kind (see :func:`contrasted`)."""
    if any(c.isdigit() for c in a) and any(c.isdigit() for c in b):
        return True  # 6 / 5, 3pm / 4pm, 3rd / 4th
    if _ZH_NUMBER_RE.match(a) and _ZH_NUMBER_RE.match(b):
        return True
    if any(a in values and b in values for values in _VALUE_SETS):
        return True
    if _HAN_WORD_ONLY_RE.fullmatch(a) and _HAN_WORD_ONLY_RE.fullmatch(b):
        short, long = sorted((a, b), key=len)
        if long.endswith(short):
            return False  # "橘猫" is a "猫": more specific, not another one
        if long.startswith(short):  # "猫头鹰" is no "猫"; "思明区" is "思明"
            return not set(long[len(short) :]) <= _PLACE_SUFFIXES
        return a[-1] == b[-1]  # one head, two kinds: 繁体/简体, 红茶/奶茶
    return a in proper and b in proper and not (a.startswith(b) or b.startswith(a))


#: A time word closing a fact ("is 6 now"): not part of the value.
_NOW_TAIL_RE = re.compile(r"[\s,，]*(?:now|these days|nowadays|currently|了)$", re.I)
_FUNCTION_WORDS = frozenset(
    "a an the my your his her its our their this that is are was were has have had".split()
)


def _holds_a_value(word: str) -> bool:
    """True when a differing span names something: an English word that is not a function
    word ("go", "python", "4pm"), or Chinese with a content character."""
    if word.isascii():
        return bool(re.fullmatch(r"[\w'+#.:-]{1,}", word)) and word not in _FUNCTION_WORDS
    return bool(content_anchors(word))


def _one_slot_apart(new: str, old: str) -> bool:
    """True when two fact contents are one frame with one word told apart ("The user's wife
    Sarah is a [nurse|teacher]", "用户养了一只[狗|猫]", "meets Monday at [3|4]pm"): the common
    start and end hold most of both, and what differs is one word on each side (no space; at
    most 4 Chinese characters) that holds a content word, never nothing on one side ("猫" /
    "猫头鹰" is containment) nor a function word ("家有" / "家养了")."""
    a, b = (_NOW_TAIL_RE.sub("", x.strip(" .。!！")).lower() for x in (new, old))
    start = 0
    while start < min(len(a), len(b)) and a[start] == b[start]:
        start += 1
    end = 0
    while end < min(len(a), len(b)) - start and a[-1 - end] == b[-1 - end]:
        end += 1
    # the differing span starts and ends on a word boundary ("is a nurse" / "is a teacher")
    while start and a[start - 1].isalnum() and a[start - 1].isascii():
        start -= 1
    while end and a[len(a) - end].isalnum() and a[len(a) - end].isascii():
        end -= 1
    x, y = a[start : len(a) - end], b[start : len(b) - end]
    if not x or not y or " " in x.strip() or " " in y.strip():
        return False
    if not (x.isascii() and y.isascii()) and max(len(x), len(y)) > 4:
        return False
    if not _holds_a_value(x) or not _holds_a_value(y):
        return False  # a word that holds no value ("家有" / "家养了", "a" / "the")
    return start + end >= 0.6 * max(len(a), len(b))


def contrasted(new: str, old: str) -> bool:
    """True when ``new`` (a message or fact) holds a value where ``old`` holds another of the
    same kind, so ``new`` cannot be ``old`` said again: two numbers (6 / 5, 四年级 / 三年级,
    八点 / 七点, 二四 / 一三五), two colours, weekdays or months, two names (Boston / Denver,
    Linux / Mac), two Chinese words of one head (繁体中文 / 简体中文), or a Chinese word and a
    longer one it opens (猫 / 猫头鹰, but not 思明 / 思明区); or one frame with one word told
    apart (nurse / teacher, 狗 / 猫, 华为 / 苹果, 3pm / 4pm). Terms both sides hold are never
    compared."""
    if _one_slot_apart(new, old):
        return True
    a, b = content_anchors(new), content_anchors(old)
    proper = _proper_terms(new) | _proper_terms(old)
    return any(_contrast(x, y, proper) for x in a - b for y in b - a)
