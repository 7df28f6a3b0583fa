"""The ``rules`` judge's fallback for facts its keys cannot compare: same holder, close meaning
on the multilingual dense leg (``dense_ml``, USE-m3 cosine) and a shared subject word.

The fact keys (``rules_judge``) relate two facts only when a pattern recognised both and their
subjects match. Natural phrasings often escape the patterns ("我换成苹果手机了" after "我用的是
安卓手机", "I switched to running in the evenings" after "I usually run in the mornings"), and
the keys then call them unrelated or complementary. This fallback decides those pairs:

* the new fact is temporary -> no decision (the keys' temporary handling stands);
* same holder is required (the keys' "about someone else" is never overridden), and the two
  contents must share an **anchor**: a content word (``text.tokenize`` terms, English stemmed;
  a single Han character that stands as a word on one side, 狗 in "不养狗" / "养了一条狗"),
  other than predicates and discourse words (喜欢, 现在, like, now, ...), or the new input must
  name a word of the stored fact that the new fact no longer holds ("不是上海，我在南京读研",
  "Not Berlin anymore, I relocated to Munich");
* opposite polarity, cosine >= :data:`NEGATION_COSINE` -> ``contradicts``;
* a change signal in the new input (:data:`CHANGE_RE`: 其实, 改成, 换成, 不再, 已经不, 搬到,
  现在; actually, instead, no longer, anymore, switched, moved, now, ...): cosine >=
  :data:`CHANGE_COSINE` for an explicit change word, :data:`WEAK_CHANGE_COSINE` for a time word
  alone (现在 / now) -> ``contradicts``;
* no change signal, same polarity, the same content words and cosine >=
  :data:`DUPLICATE_COSINE` -> ``duplicate``;
* no change signal, same polarity, a shared anchor and cosine >= :data:`SUPPLEMENT_COSINE` ->
  ``supplements`` (both kept: "日语N2考试" next to "在学日语");
* otherwise no decision (the keys' answer stands).

Cosines are in [-1, 1]; the candidate's ``similarity_ml`` (the multilingual leg) is used, else
its primary-leg ``similarity``. The caller (``RulesLLM.judge``) asks only about pairs the keys
found unrelated or merely overlapping, never about two facts of the same input; where the keys
found containment ("cats" / "got two cats") only a ``duplicate`` answer replaces theirs. The
change words are looked for in the sentences the new fact came from.
"""

from __future__ import annotations

import re
from typing import Any

from memory_engine.text import tokenize

#: Cosine from which an opposite-polarity fact on a shared anchor contradicts the stored one.
NEGATION_COSINE = 0.5
#: Cosine from which a fact with an explicit change word contradicts the stored one.
CHANGE_COSINE = 0.5
#: Cosine from which a fact with only a time word (现在 / now) contradicts the stored one.
WEAK_CHANGE_COSINE = 0.62
#: Cosine from which a fact sharing an anchor, without a change word, adds to the stored one.
SUPPLEMENT_COSINE = 0.5
#: Cosine from which a fact with the same content words and polarity is a duplicate.
DUPLICATE_COSINE = 0.8

#: Explicit change words (a correction, a replacement, a stop, a move), Chinese and English.
CHANGE_RE = re.compile(
    r"其实|实际上|改(?!善|进|革)|换(?!季)|变成|变了|(?:瘦|胖|涨|降|升|减|增|长|提)到|不再|再也不|已经不|已经没|不.{0,6}了|"
    r"搬到|搬去|搬家|转到|转去|调到|调去|跳槽|辞职|离职|退出|放弃|戒了|戒掉|卖掉|卖了|停了|取消|"
    r"推迟|提前|延期|挪到|不对|说错|记错|弄错|搞错|口误|准确地说|更正|纠正|不是.{1,12}(?:而是|是)|不是[^，,。]{1,12}(?:[，,。]|$)|新的|新号|"
    r"\b(?:actually|instead|no longer|anymore|any more|any longer|not any|switched|switching|"
    r"changed|changing|moved|moving|relocated|relocating|replaced|transferred|transferring|gave up|given up|giving up|"
    r"stopped|quit|left|sold|got rid of|cancell?ed|postponed|pushed|rescheduled|scratch that|"
    r"correction|I meant|I misspoke|my mistake|to be (?:precise|exact)|turns out|used to|not .{1,30} but|no more|new)\b|(?:^|[,;.]\s*)not \w+(?: \w+)?[,;]",
    re.I,
)
#: A time word alone ("现在住在深圳", "now at Umbrella"): a weaker change signal.
WEAK_CHANGE_RE = re.compile(
    r"现在|如今|目前|这些年|\b(?:now|nowadays|these days|currently)\b", re.I
)

#: Predicates, holders and discourse words that never make two facts about one thing.
_GENERIC_TERMS = frozenset(
    """
    用户 喜欢 很 爱 讨厌 吃 喝 用 住 住在 在 是 有 去 要 想 打算 计划 现在 已经 其实 平时 一般
    每天 经常 总是 通常 还 再 不 没 了 的 也 都 最 非常 特别 比较 真的 觉得 开始 继续 目前 如今
    user like love enjoy prefer hate use live be have go want plan now actual still realli usual
    alway often day everi also just current nowaday anymor longer thing get got make much lot
    name call 住 家 喝 最 爱 最爱 名字 叫 叫做 称呼
    """.split()
)
#: Han characters that are never an anchor on their own (function words and holders).
_GENERIC_CHARS = frozenset(
    "用户我你他她它的了是在有不没也都很就还又要会能说做去来到上下中和与个一条只把被住家喝最爱叫"
)


def _anchors(content: str) -> set[str]:
    """Content words of a fact (``tokenize`` terms without generic ones)."""
    return {t for t in tokenize(content) if t not in _GENERIC_TERMS and len(t) > 1 or _han(t)}


def _han(term: str) -> bool:
    return len(term) == 1 and "\u4e00" <= term <= "\u9fff" and term not in _GENERIC_CHARS


def shared_anchors(new: str, old: str) -> set[str]:
    """Content words two fact contents share (see module docstring)."""
    a, b = _anchors(new), _anchors(old)
    shared = a & b
    # a single Han character standing as a word on one side, inside a word on the other
    for term in a ^ b:
        if _han(term) and term in (old if term in a else new):
            shared.add(term)
    return shared


def names_old_value(new_text: str, new_content: str, old_content: str) -> bool:
    """True when the new input names a content word of the stored fact that the new fact no
    longer holds (the value being corrected: 上海 in "不是上海，我在南京读研")."""
    kept = _anchors(new_content)
    said = set(tokenize(new_text))
    return any(len(t) > 1 and t in said and t not in kept for t in _anchors(old_content))


def similar_relation(
    new: dict[str, Any],
    old: dict[str, Any],
    *,
    new_content: str,
    old_content: str,
    new_text: str,
    cosine: float,
) -> tuple[str, str] | None:
    """The fallback relation of a new fact to a stored one, or None (see module docstring).

    Args:
        new: the new fact's key (``polarity``, ``temporary``, ``holder``).
        old: the stored fact's key (may be ``{}`` when the stored memory has none).
        new_content: the new fact's content; old_content: the stored memory's content.
        new_text: the whole input the new fact was extracted from (its change words).
        cosine: the two contents' cosine on the multilingual leg, in [-1, 1].

    Returns:
        ``("contradicts" | "duplicate", reason)`` or None when the fallback has no opinion.
    """
    if new.get("temporary"):
        return None
    if old and str(new.get("holder") or "user").lower() != str(old.get("holder") or "user").lower():
        return None
    anchors = shared_anchors(new_content, old_content)
    named = names_old_value(new_text, new_content, old_content)
    if not anchors and not named:
        return None
    polarity_new, polarity_old = int(new.get("polarity", 1)), int(old.get("polarity", 1) or 1)
    about = ", ".join(sorted(anchors)) or "the corrected value"
    if polarity_new != polarity_old and cosine >= NEGATION_COSINE:
        return "contradicts", f"opposite polarity on {about} (cosine {cosine:.2f})"
    if CHANGE_RE.search(new_text) and cosine >= CHANGE_COSINE:
        return "contradicts", f"changed: {about} (cosine {cosine:.2f})"
    if WEAK_CHANGE_RE.search(new_text) and anchors and cosine >= WEAK_CHANGE_COSINE:
        return "contradicts", f"now different: {about} (cosine {cosine:.2f})"
    if (
        polarity_new == polarity_old
        and cosine >= DUPLICATE_COSINE
        and anchors
        and _anchors(new_content) == _anchors(old_content)
        and not CHANGE_RE.search(new_text)
    ):
        return "duplicate", f"same content words (cosine {cosine:.2f})"
    if polarity_new == polarity_old and anchors and cosine >= SUPPLEMENT_COSINE:
        return "supplements", f"more about {about} (cosine {cosine:.2f})"
    return None


__all__ = ["CHANGE_RE", "WEAK_CHANGE_RE", "names_old_value", "shared_anchors", "similar_relation"]
