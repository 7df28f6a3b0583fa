"""Which memory the previous message stored that a new fact takes back (offline judge rule).

"scratch that, sold the civic", "it's Miso, not Mochi", "no wait, it's a 2017", "计划有变，
五一改去青岛了": the user's message replaces what they just said. ``RulesLLM.judge`` asks
:func:`previous_replaced` for that memory when no other rule found a contradiction; the
fact then supersedes it.
"""

from __future__ import annotations

import re
from typing import Any

from memory_engine.llm.base import JudgeCandidate
from memory_engine.llm.rules_acts import TEMPORARY_RE
from memory_engine.llm.rules_continuation import corrects_previous, substituted
from memory_engine.llm.rules_similar import CHANGE_RE, names_old_value
from memory_engine.llm.schemas import Fact

__all__ = ["NOT_THAT_RE", "previous_replaced"]

#: Kinds of what one does at a time; a strong retraction moves one to another.
_ROUTINE_KINDS = frozenset({"habit", "schedule", "event", "plan", "appointment", "trip"})
#: Fact kinds a change of plans takes back.
_PLAN_KINDS = frozenset({"plan", "event", "schedule", "appointment", "trip"})
#: "not Mochi", "不是小黄": the input names the old value to deny it.
NOT_THAT_RE = re.compile(r"\b(?:not|isn't|wasn't|rather than|instead of)\b|不是|不叫", re.I)


def _specific_kind(key: dict[str, Any]) -> str | None:
    """A fact key's kind when it says what the fact is about (residence, workplace, age...);
    None for a plain statement. An attribute is told apart by its subject ("attr:age")."""
    kind = key.get("kind")
    if kind in (None, "statement", "about"):
        return None
    return f"attr:{key.get('subject')}" if kind == "attr" else str(kind)


def previous_replaced(
    fact: Fact,
    new_key: dict[str, Any],
    previous: list[JudgeCandidate],
    text: str,
    said: str,
    key_of: Any,
) -> JudgeCandidate | None:
    """The previous message's memory the new fact replaces, or None. The fact is affirmative,
    not temporary and about the same holder, and either the input names the old value with a
    change or a denial ("sold the civic", "Miso, not Mochi"), or it takes back what was just
    said (``corrects_previous``): a strong retraction (更正, "scratch that") replaces a fact not
    known to be of another kind; "plans changed" only a plan, an event or a schedule; a weak cue
    ("actually", 其实) only a fact of the same known kind. The memory whose value the input
    names wins, else the only one, else the most similar."""
    if new_key.get("polarity") == "negative" or TEMPORARY_RE.search(said):
        return None  # a denial is judged by its own rules; a temporary change replaces nothing
    takes_back = corrects_previous(text)
    keys = {c.index: key_of(c.content, dict(c.key)) or {} for c in previous}
    same_holder = [
        c for c in previous if keys[c.index].get("holder", "user") == new_key.get("holder", "user")
    ]
    swapped = [c for c in same_holder if substituted(c.content, text) == fact.content]
    if swapped:  # "no wait, it's a 2017": the fact is that memory with its value replaced
        return swapped[-1]
    named = [c for c in same_holder if names_old_value(said, fact.content, c.content)]
    if named and (takes_back or CHANGE_RE.search(said) or NOT_THAT_RE.search(said)):
        return max(named, key=lambda c: c.similarity_ml or c.similarity)
    kind = _specific_kind(new_key)

    def fits(c: JudgeCandidate) -> bool:
        old = _specific_kind(keys[c.index])
        if takes_back == "strong":
            # of another kind only a routine or plan changed ("scratch that, I switched to the
            # 8:15" after "I take the 7:40 train"), never an allergy by a move
            routine = {kind, old} <= _ROUTINE_KINDS and bool(CHANGE_RE.search(said))
            return not (kind and old and kind != old) or routine
        if takes_back == "plans":
            return keys[c.index].get("kind") in _PLAN_KINDS or c.memory_type == "episodic"
        # a weak cue: a fact of the same kind, or an unread one that says a change ("Actually
        # we moved to Manchester" after "I live in Leeds")
        return bool(old and (kind == old or (kind is None and CHANGE_RE.search(said))))

    fitting = [c for c in same_holder if takes_back and fits(c)]
    if not fitting:
        return None
    return max(fitting, key=lambda c: c.similarity_ml or c.similarity)
