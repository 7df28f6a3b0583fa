"""Replies that lean on the previous message for their subject or their verb.

* **A subject left out** ("还会点韩语", "后来换了，现在用的华为Mate", "not vegetarian anymore"):
  read with the user as subject (:func:`restored_reply`), only when the previous message's
  latest memory is the user's own (never a third party's: "已经五岁了" after "用户的女儿今年四岁"
  is no fact of the user's), and only for a clause that opens with an ability, a use, a
  residence or a stop (还会, 也在学, 现在用, 已经不吃; "not"/"no longer" + a word that is no
  filler): never a passing state ("还在路上", "still waiting for the bus"), a question
  ("现在是几点") or a bare reply ("not me", "not today"). An English clause read so must give
  a fact of a known kind (a diet, a residence, a use), which the caller checks
  (:data:`SPECIFIC_KINDS`).
* **An item added with "also"** ("also sulfa drugs, same deal" after "allergic to penicillin"):
  :func:`added_item` is the bare noun phrase, or None for anything else ("also thanks",
  "also remember to buy milk", "also hates country", "also the password is …").
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from memory_engine.llm.rules_acts import QUESTION_RE
from memory_engine.llm.rules_clauses import holder_of

__all__ = ["SPECIFIC_KINDS", "added_item", "restored_reply"]

#: Fact kinds an English reply read with the user as subject must have.
SPECIFIC_KINDS = frozenset(
    {
        "diet",
        "preference",
        "dislike",
        "allergy",
        "residence",
        "workplace",
        "uses",
        "has",
        "occupation",
        "language",
        "health",
        "habit",
        "attr",
    }
)
_ZH_OPEN_RE = re.compile(
    r"^(?:还|也)(?:会|在学|在用|在做|喜欢|爱|养了?|住在?)|"
    r"^(?:现在|目前|如今)(?:用|在用|用的|住|在住|住在|养|喜欢|在学|在做)|"
    r"^(?:已经|现在)不(?:再)?(?:吃|喝|用|住|做|学|抽|玩|养|开|骑)"
)
_EN_OPEN_RE = re.compile(
    r"^(?:not|no longer)\s+(?!sure\b|yet\b|now\b|really\b|bad\b|me\b|today\b|tonight\b|"
    r"tomorrow\b|needed\b|much\b|that\b|this\b|so\b|at all\b|a\b|the\b|my\b|you\b|here\b|"
    r"anymore\b|again\b|quite\b|exactly\b|right\b|only\b|happening\b|working\b)[a-z]",
    re.I,
)
_ZH_ASKS_RE = re.compile(r"几|什么|吗|呢|怎么|哪")


def restored_reply(clause: str, context: Sequence[str]) -> str | None:
    """``clause`` with the user as its subject ("我还会点韩语", "I'm not vegetarian anymore"),
    or None when it is no such reply (see the module docstring). ``context``: the previous
    message's memories, oldest first (empty: no previous message, never restored)."""
    if not context or holder_of(context[-1], None)[1] is not None:
        return None  # no previous message, or it was about someone else
    clause = clause.strip()
    if QUESTION_RE.search(clause) or clause.endswith(("?", "？")):
        return None
    if _ZH_OPEN_RE.match(clause) and not _ZH_ASKS_RE.search(clause):
        return "我" + clause
    if _EN_OPEN_RE.match(clause):
        return "I'm " + clause
    return None


_ALSO_RE = re.compile(
    r"^(?:and |oh |plus )?also[,]?\s+(?P<item>[^,;.!?]+)(?P<tail>.*)$", re.I | re.S
)
#: Words an added item never holds (a request, a feeling, a time, a pronoun, a secret).
_NOT_AN_ITEM_RE = re.compile(
    r"\b(?:i|i'm|i'd|me|my|we|you|he|she|they|it|its|it's|the weather|thanks|thank|please|lol|"
    r"haha|remember|remind|need|needs|have|has|want|wants|going|got|must|should|can|could|"
    r"will|would|get|buy|make|do|does|call|send|check|tomorrow|today|tonight|yesterday|now|"
    r"hate|hates|love|loves|like|likes|not|don't|doesn't|never|no|is|are|was|were|be|"
    r"password|passcode|token|key|secret|pin)\b",
    re.I,
)
#: What may follow the item: "same deal", "too", "as well", "same reaction".
_TAIL_RE = re.compile(r"^(?:[,;]\s*(?:same \w+|too|as well|also|both)\s*)?[.!]?\s*$", re.I)


def added_item(text: str) -> str | None:
    """The item of "also X" when X is a bare noun phrase of at most four words ("sulfa drugs"),
    else None."""
    m = _ALSO_RE.match(text.strip())
    if m is None:
        return None
    item = m.group("item").strip()
    if not item or len(item.split()) > 4 or _NOT_AN_ITEM_RE.search(item):
        return None
    if not _TAIL_RE.match(m.group("tail")):
        return None
    return item
