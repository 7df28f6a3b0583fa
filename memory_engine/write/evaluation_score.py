"""Scores of the write-path regression set: one ``CaseScore`` per case, ``summarise`` for the
report. The metrics are defined in ``write/evaluation.py``'s docstring."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_engine.write.evaluation import (
    CaseRecord,
    EvalCase,
    EvalTurn,
    StoredFact,
    TurnRecord,
    entity_key,
    has_terms,
    holds_raw_slice,
    is_distilled,
    observed_decision,
)

#: Why entity linking is not scored when the engine exposes no links.
NO_ENTITY_LINKS = (
    "the engine exposes no entity links (memories carry entity strings only); "
    "entity_mention_recall compares those strings instead"
)

#: The metrics of each ``by_category`` entry (those that are not None).
CATEGORY_METRICS = (
    "should_remember_accuracy",
    "fact_recall",
    "fact_precision",
    "update_decision_accuracy",
    "polarity_errors",
    "raw_tool_output_stored",
    "distilled_fact_share",
)

_COUNTERS = (
    "turns",
    "remember_ok",
    "expected_facts",
    "found_facts",
    "created",
    "created_ok",
    "distilled",
    "decisions",
    "decisions_ok",
    "polarity_errors",
    "forbidden_active",
    "tool_turns",
    "raw_tool",
    "typed",
    "typed_ok",
    "importance",
    "importance_ok",
    "temporary",
    "temporary_ok",
    "entity_groups",
    "entity_linked",
    "entity_mentions",
    "entity_mentions_found",
    "write_errors",
)


@dataclass
class CaseScore:
    """Counts of one case (names in ``_COUNTERS``) and why it failed, if it did."""

    case_id: str
    category: str
    lang: str
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(_COUNTERS, 0))
    failures: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """True when nothing counted as a failure (see the module docstring)."""
        return not self.failures


def _mentions(name: str, memories: Sequence[StoredFact]) -> bool:
    key = entity_key(name)
    return bool(key) and any(
        (k := entity_key(e)) and (key in k or k in key) for m in memories for e in m.entities
    )


def _score_turn(i: int, turn: EvalTurn, rec: TurnRecord, score: CaseScore) -> None:
    c, fail = score.counts, score.failures
    c["turns"] += 1
    if rec.error:
        c["write_errors"] += 1
        fail.append(f"turn {i}: write failed ({rec.error.get('code', 'error')})")
    if rec.remembered == turn.should_remember:
        c["remember_ok"] += 1
    else:
        fail.append(f"turn {i}: should_remember={turn.should_remember}, got {rec.remembered}")
    active = rec.active_after
    for fact in turn.facts:
        c["expected_facts"] += 1
        hits = [m for m in active if has_terms(m.content, fact.terms)]
        if not hits:
            fail.append(f"turn {i}: no active memory holds {list(fact.terms)}")
            continue
        c["found_facts"] += 1
        if fact.memory_type:
            c["typed"] += 1
            c["typed_ok"] += any(m.memory_type == fact.memory_type for m in hits)
        if fact.min_importance is not None:
            c["importance"] += 1
            c["importance_ok"] += any(m.importance >= fact.min_importance for m in hits)
        if fact.temporary:
            c["temporary"] += 1
            c["temporary_ok"] += any(m.temporary for m in hits)
        if fact.negative and not any(m.reads_negative for m in hits):
            c["polarity_errors"] += 1
            fail.append(f"turn {i}: {list(fact.terms)} stored affirmative")
    for bad in turn.forbidden:
        hits = [m for m in active if has_terms(m.content, bad.terms)]
        if bad.affirmative:
            hits = [m for m in hits if not m.reads_negative]
        if hits:
            c["forbidden_active"] += 1
            c["polarity_errors"] += bad.affirmative
            fail.append(f"turn {i}: forbidden {list(bad.terms)} active in {hits[0].content!r}")
    for mem in rec.created:
        c["created"] += 1
        c["distilled"] += is_distilled(mem.content)
        if any(has_terms(mem.content, f.terms) for f in turn.facts):
            c["created_ok"] += 1
        else:
            fail.append(f"turn {i}: unexpected memory {mem.content!r}")
    if turn.decision:
        c["decisions"] += 1
        got = observed_decision(rec)
        if got == turn.decision:
            c["decisions_ok"] += 1
        else:
            fail.append(f"turn {i}: decision {turn.decision}, got {got}")
    for name in turn.entities:
        c["entity_mentions"] += 1
        c["entity_mentions_found"] += _mentions(name, active)


def score_case(case: EvalCase, record: CaseRecord) -> CaseScore:
    """Score one case against what the engine did with it.

    Raises:
        ValueError: the record has a different number of turns than the case.
    """
    if len(record.turns) != len(case.turns):
        raise ValueError(f"case {case.id}: {len(record.turns)} records for {len(case.turns)} turns")
    score = CaseScore(case.id, case.category, case.lang)
    c = score.counts
    for i, (turn, rec) in enumerate(zip(case.turns, record.turns, strict=True)):
        if turn.written:
            _score_turn(i, turn, rec, score)
    for i, turn in enumerate(case.turns):
        if turn.role != "tool":
            continue
        c["tool_turns"] += 1
        raw = [m for m in record.memories if holds_raw_slice(m.content, turn.text)]
        if raw:
            c["raw_tool"] += 1
            score.failures.append(f"turn {i}: raw tool output stored ({raw[0].content[:60]!r})")
    if record.entity_links_available:
        groups: dict[str, list[int]] = {}
        for i, turn in enumerate(case.turns):
            for name in turn.entities:
                groups.setdefault(entity_key(name), []).append(i)
        for key, turns in groups.items():
            if len(turns) < 2:
                continue
            c["entity_groups"] += 1
            links = [set().union(*(m.entity_links or () for m in _kept(record, i))) for i in turns]
            if links and set.intersection(*links):
                c["entity_linked"] += 1
            else:
                score.failures.append(f"entity {key!r}: turns {turns} not linked to one entity")
    return score


def _rate(num: int, den: int) -> float | None:
    return round(num / den, 4) if den else None


def _metrics(counts: dict[str, int], *, links: bool) -> dict[str, Any]:
    c = counts
    return {
        "should_remember_accuracy": _rate(c["remember_ok"], c["turns"]),
        "fact_recall": _rate(c["found_facts"], c["expected_facts"]),
        "fact_precision": _rate(c["created_ok"], c["created"]),
        "update_decision_accuracy": _rate(c["decisions_ok"], c["decisions"]),
        "polarity_errors": c["polarity_errors"],
        "forbidden_active": c["forbidden_active"],
        "raw_tool_output_stored": c["raw_tool"],
        "distilled_fact_share": _rate(c["distilled"], c["created"]),
        "memory_type_accuracy": _rate(c["typed_ok"], c["typed"]),
        "importance_ok": _rate(c["importance_ok"], c["importance"]),
        "temporary_ok": _rate(c["temporary_ok"], c["temporary"]),
        "entity_linking_accuracy": _rate(c["entity_linked"], c["entity_groups"]) if links else None,
        "entity_mention_recall": _rate(c["entity_mentions_found"], c["entity_mentions"]),
    }


def _total(scores: Sequence[CaseScore]) -> dict[str, int]:
    out = dict.fromkeys(_COUNTERS, 0)
    for s in scores:
        for k, v in s.counts.items():
            out[k] += v
    return out


def summarise(
    scores: Sequence[CaseScore], *, entity_links_available: bool, details: bool = False
) -> dict[str, Any]:
    """The report: the metrics over every case, by language and by category, and the failing
    case ids (with ``details``: each failing case's reasons)."""
    total = _total(scores)
    links = entity_links_available
    out: dict[str, Any] = {
        "cases": len(scores),
        "passed": sum(s.passed for s in scores),
        "turns_written": total["turns"],
        "write_errors": total["write_errors"],
        **_metrics(total, links=links),
    }
    if not links:
        out["entity_linking_note"] = NO_ENTITY_LINKS
    counts = {
        "expected_facts": total["expected_facts"],
        "created_memories": total["created"],
        "decisions": total["decisions"],
        "tool_turns": total["tool_turns"],
    }
    out["counts"] = counts

    def group(key: str, keep: tuple[str, ...] | None) -> dict[str, Any]:
        buckets: dict[str, list[CaseScore]] = {}
        for s in scores:
            buckets.setdefault(getattr(s, key), []).append(s)
        result = {}
        for name in sorted(buckets):
            part = buckets[name]
            m = _metrics(_total(part), links=links)
            result[name] = {
                "cases": len(part),
                "passed": sum(s.passed for s in part),
                **{
                    k: v
                    for k, v in m.items()
                    if (keep is None or k in keep) and (v is not None or k == "fact_precision")
                },
            }
        return result

    out["by_language"] = group("lang", None)
    out["by_category"] = group("category", CATEGORY_METRICS)
    failing = [s for s in scores if not s.passed]
    out["failing_cases"] = (
        {s.case_id: s.failures for s in failing} if details else [s.case_id for s in failing]
    )
    return out


def _kept(record: CaseRecord, turn: int) -> list[StoredFact]:
    """The memories turn ``turn`` stored: those it created and those its duplicates reinforced
    ("Miso's seven btw" after "My cat Miso is 7" links to Miso through the memory it repeats)."""
    reinforced = {
        str(a.get("memory_id"))
        for a in record.turns[turn].actions
        # a duplicate noted "changed concurrently" was not applied: it reinforced nothing
        if a.get("action") == "duplicate" and not a.get("note")
    }
    repeated = [m for m in record.memories if m.memory_id in reinforced]
    return [*record.turns[turn].created, *repeated]
