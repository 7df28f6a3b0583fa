"""Explain a trace: "why not X?", comparison of two traces, relevance metrics.

Pure functions over ``Trace`` records (no store access), used by the Query Replay page and
by tests. Stages are read from the trace: the legs (``trace.legs``), the fused pool with its
per-stage ranks and drop reasons (``trace.candidates``) and the returned memories
(``ranks["final"]``).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from memory_engine.config.retrieval import recall_depth
from memory_engine.models import Trace, TraceCandidate

__all__ = [
    "Comparison",
    "WhyNot",
    "compare_traces",
    "mrr",
    "ndcg_at_k",
    "precision_at_k",
    "recall_at_k",
    "returned_ids",
    "trace_depth",
    "why_not",
]

Verdict = Literal[
    "returned",
    "not_recalled",
    "below_min_score",
    "below_min_cosine",
    "below_relevance_floor",
    "duplicate_content",
    "near_duplicate",
    "below_top_k",
    "over_token_budget",
    "dropped",
]


class WhyNot(BaseModel):
    """Where one memory left a search, with its scores beside the last returned candidate's.

    Attributes:
        memory_id: the memory asked about.
        verdict: ``returned``, ``not_recalled`` (in no leg's pool: not in scope, not active,
            not valid, or too far from the query for every leg) or the drop reason of the stage
            that removed it.
        stage: the stage of the verdict (``legs``, ``threshold``, ``dedupe``, ``top_k``,
            ``budget`` or ``final``).
        legs: leg name -> the memory's rank in that leg (legs that did not return it are absent).
        ranks, scores: the memory's per-stage ranks and named scores (empty when not recalled).
        last_kept: the lowest-ranked returned candidate (None when nothing was returned).
        explanation: one English sentence (the dashboard translates the verdict itself).
    """

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    verdict: Verdict
    stage: str
    legs: dict[str, int]
    ranks: dict[str, int]
    scores: dict[str, float]
    last_kept: TraceCandidate | None
    explanation: str


_STAGE_OF = {
    "below_min_score": "threshold",
    "below_min_cosine": "threshold",
    "below_relevance_floor": "threshold",
    "duplicate_content": "dedupe",
    "near_duplicate": "dedupe",
    "below_top_k": "top_k",
    "over_token_budget": "budget",
}


def returned_ids(trace: Trace) -> list[uuid.UUID]:
    """Ids of the returned memories, in final order."""
    kept = [c for c in trace.candidates if c.dropped is None and "final" in c.ranks]
    return [c.memory_id for c in sorted(kept, key=lambda c: c.ranks["final"])]


def why_not(trace: Trace, memory_id: uuid.UUID) -> WhyNot:
    """Explain what happened to ``memory_id`` in ``trace`` (see :class:`WhyNot`)."""
    legs = {
        name: c.ranks.get(name, i)
        for name, cands in trace.legs.items()
        for i, c in enumerate(cands, start=1)
        if c.memory_id == memory_id
    }
    kept = [c for c in trace.candidates if c.dropped is None and "final" in c.ranks]
    last = max(kept, key=lambda c: c.ranks["final"]) if kept else None
    mine = next((c for c in trace.candidates if c.memory_id == memory_id), None)
    if mine is None:
        depth = trace_depth(trace.config)
        return WhyNot(
            memory_id=memory_id,
            verdict="not_recalled",
            stage="legs",
            legs=legs,
            ranks={},
            scores={},
            last_kept=last,
            explanation=(
                f"no leg returned it in its top {depth}: it is outside the scope, not active or "
                "not valid at that time, or every leg ranked other memories higher"
            ),
        )
    if mine.dropped is None:
        verdict: Verdict = "returned"
        stage = "final"
        text = f"returned at rank {mine.ranks.get('final')}"
    else:
        verdict = mine.dropped if mine.dropped in _STAGE_OF else "dropped"  # type: ignore[assignment]
        stage = _STAGE_OF.get(mine.dropped, "unknown")
        text = _drop_text(mine, last, trace.config)
    return WhyNot(
        memory_id=memory_id,
        verdict=verdict,
        stage=stage,
        legs=legs,
        ranks=dict(mine.ranks),
        scores=dict(mine.scores),
        last_kept=last,
        explanation=text,
    )


def _drop_text(mine: TraceCandidate, last: TraceCandidate | None, config: dict[str, Any]) -> str:
    reason = mine.dropped or "dropped"
    final = mine.scores.get("final")
    last_final = last.scores.get("final") if last else None
    if reason == "below_min_score":
        return f"rrf {mine.scores.get('rrf', 0):.5f} < min_score {config.get('min_score')}"
    if reason == "below_min_cosine":
        return f"only the dense leg found it and its cosine {mine.scores.get('cosine', 0):.3f} is below the floor"
    if reason == "below_relevance_floor":
        return (
            "no leg matched the query well enough for it (relevance floor: "
            f"cosine {mine.scores.get('cosine', 0):.3f}, "
            f"keyword coverage {mine.scores.get('coverage', 0):.2f})"
        )
    if reason in ("duplicate_content", "near_duplicate"):
        return "a better-ranked memory has the same (or nearly the same) content"
    if reason == "below_top_k":
        tail = (
            f" < last returned {last_final:.4f}"
            if final is not None and last_final is not None
            else ""
        )
        return (
            f"out-ranked: weighted rank {mine.ranks.get('weighted')} after k={config.get('k')}"
            + (f" (final {final:.4f}{tail})" if final is not None else "")
        )
    if reason == "over_token_budget":
        return f"its line did not fit in the token budget {config.get('token_budget')}"
    return reason


class Comparison(BaseModel):
    """Two traces' top k side by side.

    Attributes:
        k: depth compared.
        overlap: |A_k & B_k| / k, in [0, 1].
        entered: ids in B's top k but not in A's.
        left: ids in A's top k but not in B's.
        moved: id -> (rank in A, rank in B) for ids in both with different ranks.
        same: ids in both at the same rank.
    """

    model_config = ConfigDict(frozen=True)

    k: int
    overlap: float
    entered: list[uuid.UUID]
    left: list[uuid.UUID]
    moved: dict[uuid.UUID, tuple[int, int]]
    same: list[uuid.UUID]


def compare_traces(a: Trace, b: Trace, *, k: int) -> Comparison:
    """Compare the top ``k`` (>= 1) of two traces (e.g. two configurations of one query)."""
    if k < 1:
        raise ValueError("k must be >= 1")
    ra, rb = returned_ids(a)[:k], returned_ids(b)[:k]
    pa = {mid: i for i, mid in enumerate(ra, start=1)}
    pb = {mid: i for i, mid in enumerate(rb, start=1)}
    both = [mid for mid in ra if mid in pb]
    return Comparison(
        k=k,
        overlap=len(both) / k,
        entered=[mid for mid in rb if mid not in pa],
        left=[mid for mid in ra if mid not in pb],
        moved={mid: (pa[mid], pb[mid]) for mid in both if pa[mid] != pb[mid]},
        same=[mid for mid in both if pa[mid] == pb[mid]],
    )


# ----------------------------------------------------------------------------- metrics


def precision_at_k(ranked: Sequence[Any], relevant: Iterable[Any], k: int) -> float:
    """Relevant items among the first k, divided by k; in [0, 1]."""
    rel = set(relevant)
    return sum(1 for x in ranked[:k] if x in rel) / k if k > 0 else 0.0


def recall_at_k(ranked: Sequence[Any], relevant: Iterable[Any], k: int) -> float:
    """Share of the relevant items found in the first k; 0.0 when there are none."""
    rel = set(relevant)
    return len(set(ranked[:k]) & rel) / len(rel) if rel else 0.0


def mrr(ranked: Sequence[Any], relevant: Iterable[Any], k: int | None = None) -> float:
    """1 / rank of the first relevant item (within k when given); 0.0 when none."""
    rel = set(relevant)
    for i, x in enumerate(ranked[:k] if k else ranked, start=1):
        if x in rel:
            return 1.0 / i
    return 0.0


def ndcg_at_k(ranked: Sequence[Any], relevant: Iterable[Any], k: int) -> float:
    """nDCG@k with binary gains (Jarvelin and Kekalainen 2002); in [0, 1]."""
    rel = set(relevant)
    dcg = sum(1.0 / math.log2(i + 1) for i, x in enumerate(ranked[:k], start=1) if x in rel)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(rel), k) + 1))
    return dcg / ideal if ideal else 0.0


def trace_depth(config: Mapping[str, Any]) -> int | str:
    """The recall depth of each leg in a trace's ``config`` (``config.retrieval.recall_depth``;
    ``"?"`` when the trace lacks ``candidates_per_leg`` or ``k``)."""
    per_leg, k = config.get("candidates_per_leg"), config.get("k")
    if not isinstance(per_leg, int) or not isinstance(k, int):
        return per_leg if isinstance(per_leg, int) else "?"
    return recall_depth(per_leg, k)
