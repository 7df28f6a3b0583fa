"""Content words of a fact for the offline judge: what two facts share, and what each says.

``content_anchors`` is the set of ``memory_engine.text.tokenize`` terms of a fact that are
not generic (holders, common predicates, discourse fillers) — a single Chinese character only
when it is no function word — with English number words read as digits ("seven" -> "7").
"""

from __future__ import annotations

import re

from memory_engine.llm.rules_numbers import NUMBER_WORDS
from memory_engine.text import tokenize

__all__ = ["content_anchors", "is_han_anchor", "same_word", "shared_anchors"]

#: Predicates, holders and discourse words that never make two facts about one thing.
_GENERIC_TERMS = frozenset(
    """
    用户 喜欢 很 爱 讨厌 吃 喝 用 住 住在 在 是 有 去 要 想 打算 计划 现在 已经 其实 平时 一般
    每天 经常 总是 通常 还 再 不 没 了 的 也 都 最 非常 特别 比较 真的 觉得 开始 继续 目前 如今
    user like love enjoy prefer hate use live be have go want plan now actual still realli usual
    alway often day everi also just current nowaday anymor longer thing get got make much lot
    name call 住 家 喝 最 爱 最爱 名字 叫 叫做 称呼 allerg allergi 过敏 btw fyi lol haha
    """.split()
)
#: Han characters that are never an anchor on their own (function words and holders).
_GENERIC_CHARS = frozenset(
    "用户我你他她它的了是在有不没也都很就还又要会能说做去来到上下中和与个一条只把被住家喝最爱叫"
)


#: English number words, read as the digits a stored fact holds ("Miso's seven" / "Miso is 7").
_NUMBER_WORDS = {
    term: str(value)
    for word, value in NUMBER_WORDS.items()
    for term in {word, *tokenize(word)}  # as ``tokenize`` stems it too ("twelve" -> "twelv")
}


def content_anchors(content: str) -> set[str]:
    """Content words of a fact (``tokenize`` terms without generic ones; English number words
    as digits: "seven" -> "7")."""
    terms = (_NUMBER_WORDS.get(t, t) for t in tokenize(content))
    return {
        t
        for t in terms
        if t not in _GENERIC_TERMS and (len(t) > 1 or t.isdigit()) or is_han_anchor(t)
    }


def is_han_anchor(term: str) -> bool:
    return len(term) == 1 and "\u4e00" <= term <= "\u9fff" and term not in _GENERIC_CHARS


def shared_anchors(new: str, old: str) -> set[str]:
    """Content words two fact contents share (see module docstring)."""
    a, b = content_anchors(new), content_anchors(old)
    shared = a & b
    # a Chinese word inside the other side's compound ("周会" / "组周会", "日语" / "日语课")
    shared |= {min(x, y, key=len) for x in a - b for y in b - a if same_word(x, y)}
    # a single Han character standing as a word on one side, inside a word on the other
    for term in a ^ b:
        if is_han_anchor(term) and term in (old if term in a else new):
            shared.add(term)
    return shared


_HAN_WORD_RE = re.compile(r"^[\u4e00-\u9fff]{2,}$")


def same_word(a: str, b: str) -> bool:
    """One word, or a Chinese word and its compound ("日语" / "日语课")."""
    if a == b:
        return True
    return bool(_HAN_WORD_RE.match(a) and _HAN_WORD_RE.match(b) and (a in b or b in a))
