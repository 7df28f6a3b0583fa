"""Short replies that lean on the previous message's memory without a subject of their own.

Two kinds, both read only when the message gave no fact by itself and the previous message
left a memory (``ExtractInput.context``):

* **A restatement** (:func:`said_again`): "Miso's seven btw" after "My cat Miso is 7", "yeah
  it's all on bitbucket", "again — short answers, bullets", "还是那句话，简体中文回答就好". Every
  content word of the message (``rules_similar`` anchors; English number words read as
  digits) is one of the memory's, fillers (yeah, btw, 那句话...) and "like I said" aside. The
  message then says that memory again: its content is the fact, and the judge finds it a
  duplicate. A message with a content word of its own is no restatement: a place ("Again, my
  sister lives in Boston" after Denver), a number (6 after 5, 四年级 after 三年级), a part of
  a longer word (猫 after 猫头鹰), something done again ("I'm going to Tokyo again").
* **A detail of the previous fact** (:func:`detail_clause`): an attribute said without its
  owner ("型号是拓竹P1S，基本都打PLA" after "家里有台3D打印机", "最常去的是香山" after "周末一般去
  爬山"), what something holds ("there's basil, mint and rosemary in it" after the herb
  garden), or the case it applies to ("so for work trips it's always the train" after "I
  never fly"). The caller joins it to the memory as a supplement. Never a question, a
  denial, small talk, a message about the user or the assistant (我/你, I/you), or a remark
  opening with a time or a demonstrative (今天是周五, 这是我的…).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_engine.llm.rules_acts import QUESTION_RE
from memory_engine.llm.rules_similar import (
    DONE_AGAIN_RE,
    RESTATED_RE,
    content_anchors,
    contrasted,
    shared_anchors,
)
from memory_engine.text import tokenize

__all__ = ["detail_clause", "said_again", "without_said_before"]

#: Words that add nothing when a message says a memory again.
_RESTATING_FILLERS = frozenset(
    tokenize(
        "yeah yep yup yes right again btw fyi still all just fine ok okay sure reminder pls "
        "please thanks thx "
        "remind reminding said mention mentioned told always 好 就好 那句话 话说 哈 嗯 对 "
        "提醒 说过 提过 还是 之前 以前 前面 上次 跟你说"
    )
)
#: A denial, a change or a question: never said again as it was.
_NOT_AGAIN_RE = re.compile(
    r"\b(?:not|no|never|n't|anymore|instead|actually|changed?|switched|moved)\b|n't\b|"
    r"不|没|别|改|换|其实|[?？]",
    re.I,
)
_MAX_RESTATEMENT_CHARS = 80


def _said(term: str, words: set[str]) -> bool:
    """True when ``term`` is one of ``words``: itself, a Chinese compound's part or whole
    ("简体" / "简体中文"), or an English word's short form ("oct" / "octob", "everi" /
    "everywher")."""
    if term in words or any(term in w or w in term for w in words if not w.isascii()):
        return True
    return term.isascii() and any(
        w.isascii() and min(len(w), len(term)) >= 3 and (w.startswith(term) or term.startswith(w))
        for w in words
    )


def said_again(text: str, context: Sequence[str]) -> str | None:
    """The previous message's memory (one of ``context``) that ``text`` only says again, or
    None (see module docstring): the content words of ``text`` (its "like I said" and fillers
    aside) are that memory's, at most one apart when two or more are shared (as many as are
    shared when it says so: "as I said, dark mode everywhere pls"), and none is
    another value of the same kind (``rules_similar.contrasted``). The latest memory wins a
    tie."""
    said = text.strip()
    bare = RESTATED_RE.sub(" ", said)  # "in case I didn't say" denies nothing
    if (
        not said
        or len(said) > _MAX_RESTATEMENT_CHARS
        or _NOT_AGAIN_RE.search(bare)
        or DONE_AGAIN_RE.search(said)
    ):
        return None
    own = content_anchors(bare) - _RESTATING_FILLERS
    if not own:
        return None
    explicit = bare != said
    best: tuple[int, int, str] | None = None
    for i, memory in enumerate(context):
        if _NOT_AGAIN_RE.search(memory) and not _NOT_AGAIN_RE.search(bare):
            continue  # "never flies": a bare "flying" is no restatement of a denial
        if contrasted(bare, memory):
            continue  # "Again, my sister lives in Boston" after Denver: another value
        held = content_anchors(memory)
        shared = shared_anchors(bare, memory)
        covered = {a for a in own if _said(a, held | shared)}
        # said to be said again ("as I said"): up to as many words of its own as shared
        spare = len(covered) if explicit else (1 if len(covered) >= 2 else 0)
        if not covered or len(own - covered) > spare:
            continue
        score = (len(covered), i, memory)
        best = score if best is None or score > best else best
    return best[2] if best else None


#: "like I said", "as I mentioned", "之前说过", "还是那句话" with the punctuation around them: a
#: remark on saying it, never part of the fact ("Miso is 8 like I said").
_SAID_BEFORE_RE = re.compile(
    r"[，,]?\s*(?:(?:我)?(?:(?:之前|前面|以前|上次)(?:跟你|和你|同你)?|(?:跟|和|同)你)(?:说|讲|提)过(?:了|的)?|"
    r"说过了|还是那句话|重申一下|再强调一下|"
    r"\b(?:like|as) I (?:said|mentioned)(?: before| earlier)?\b|\bas mentioned(?: before)?\b|"
    r"\bI (?:already |think I )?(?:told you|mentioned (?:this|that|it))(?: before)?\b|"
    r"^\s*again\s*[,:—-])\s*[，,:：]?",
    re.I,
)


def without_said_before(text: str) -> str:
    """``text`` without its remarks on having said it before ("Miso is 8 like I said" ->
    "Miso is 8"; "之前说过，每周二四去健身房" -> "每周二四去健身房"); ``text`` itself when
    nothing else is left."""
    left = _SAID_BEFORE_RE.sub(" ", text).strip(" ，,")
    return re.sub(r"\s{2,}", " ", left) if left else text


_DETAIL_LEAD_RE = re.compile(
    r"^(?:(?:update|fyi|btw|oh|and|so|also|对了|另外|还有|嗯|哦)\s*[:：,，!]?\s*)+", re.I
)
_EMOJI_RE = re.compile(r"[\U0001F300-\U0001FAFF\u2600-\u27BF\uFE0F]+")
#: "型号是…", "最常去的是…", "品种是…": an attribute of the previous fact's subject and its value.
_ZH_ATTRIBUTE_RE = re.compile(
    r"^(?P<head>最[\u4e00-\u9fff]{1,4}的|[\u4e00-\u9fff]{2,4})是(?!不是)\S"
)
#: Heads that say what one thinks or decided, or a secret, never an attribute of the previous
#: fact's subject ("结论是明天再说", "问题是没时间", "密码是1234").
_ZH_REMARK_HEADS = frozenset(
    "结论 意思 问题 原因 答案 重点 关键 结果 理由 想法 办法 好处 坏处 区别 情况 事情 东西 目的 道理 "
    "麻烦 主要 重要 密码 口令 验证码 账号 主意 打算 计划 看法 建议 感觉 心情 事实 真相 现实".split()
)
#: Heads that open a remark, not an attribute: a time, a demonstrative, a person, the weather.
_ZH_NOT_AN_ATTRIBUTE_RE = re.compile(
    r"^(?:今|明|昨|前|后|现在|刚|这|那|哪|什么|怎么|我|你|他|她|它|咱|大家|天气|时间|感觉|真|就|"
    r"也|还|都|可|但|因为|所以|要|会|应该|肯定|不|没)"
)
#: "there's basil, mint and rosemary in it"; "for work trips it's always the train".
_EN_DETAIL_RE = re.compile(
    r"^there(?:'s| is| are|'re)\s+\S.{0,80}?\s+(?:in|on|inside) (?:it|them|there)\b|"
    r"^for [a-z][\w\s'-]{1,30}?,?\s+(?:it's|it is|that's|that is)\s+"
    r"(?:always|usually|mostly|normally|generally|only)\b",
    re.I,
)
#: A message about the user or the assistant themselves: never a detail of a memory.
_PERSONAL_RE = re.compile(r"\b(?:i|i'm|i've|me|my|we|our|you|your)\b|我|你|您", re.I)


def detail_clause(text: str) -> str | None:
    """The detail ``text`` adds to the previous message's fact, its opening
    words such as "update:" and emoji removed; None when it is no such detail (see module
    docstring). A Chinese "X是…" is a detail unless X opens a remark or a secret ("结论是明天再
    说", "密码是1234")."""
    said = _DETAIL_LEAD_RE.sub("", _EMOJI_RE.sub("", text).strip()).strip(" 。.!！~～")
    if not said or QUESTION_RE.search(said) or _PERSONAL_RE.search(said):
        return None
    m = _ZH_ATTRIBUTE_RE.match(said)
    head = m.group("head") if m else ""
    if head and not _ZH_NOT_AN_ATTRIBUTE_RE.match(head):
        return None if head in _ZH_REMARK_HEADS else said
    return said if _EN_DETAIL_RE.match(said) else None
