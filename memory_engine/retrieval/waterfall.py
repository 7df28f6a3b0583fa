"""Score waterfall: every candidate's score and rank after each stage, in pipeline order.

Read from a stored ``Trace`` (pure, no store access) by Query Replay, ``memory-engine search
--json`` and MCP ``memory_search`` with ``explain=true``. One :class:`CandidateWaterfall` per
candidate, its :class:`WaterfallStep` list in pipeline order:

1. one ``leg`` step per leg the trace ran (``trace.legs``, by name: ``dense``, ``keyword``,
   ``keyword@x1`` ... and any leg added later): the leg's own score (``cosine`` or ``bm25``,
   None when the leg did not return the memory), its value normalised over the fused pool
   (z-score or min-max; None under rrf), the leg's weight, its contribution to the fused sum
   (``weight * normalised``; under rrf ``1 / (rrf_k + rank)``) and the rank in the leg;
2. ``fuse``: the fused score, named after the fusion actually used (``zscore``, ``minmax`` or
   ``rrf``; ``scores["fused"]``), and the fused rank;
3. ``session`` (when smoothing ran): the smoothed score, the lift (smoothed - fused) and the
   neighbour it came from;
4. ``rerank`` (when a reranker ran): its score and rank;
5. ``type_weight`` and ``retention``: the factors, the rank after weighting on the latter;
6. ``threshold``: the value checked (``rrf`` against ``min_score``), passed or the drop reason
   (a drop reason this module does not know, e.g. a new relevance floor, is shown as is);
7. ``final``: the score the returned order is sorted by and the final rank (None: dropped).

``moved`` is fused rank minus final rank (positive: moved up); ``moved_by`` is the stage that
gained it the most places.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict

from memory_engine.models import MemoryType, Trace, TraceCandidate
from memory_engine.retrieval.normfusion import leg_score_key
from memory_engine.retrieval.records import Scored
from memory_engine.retrieval.session import turn_index

__all__ = [
    "DEDUPE_DROPS",
    "DECIDING_SCORE",
    "SELECT_DROPS",
    "CandidateWaterfall",
    "StepKind",
    "Waterfall",
    "WaterfallStep",
    "fusion_of",
    "lift_sources",
    "trace_candidates",
    "waterfall",
]

StepKind = Literal[
    "leg", "fuse", "session", "rerank", "type_weight", "retention", "threshold", "final"
]

#: The score the returned order is sorted by (``scores.SCORE_KINDS``).
DECIDING_SCORE = "final"
#: Drop reasons of the dedupe stage and of the selection (k, token budget).
DEDUPE_DROPS = frozenset({"duplicate_content", "near_duplicate"})
SELECT_DROPS = frozenset({"below_top_k", "over_token_budget"})
_NOT_THRESHOLD = DEDUPE_DROPS | SELECT_DROPS | {"not_fused"}


class WaterfallStep(BaseModel):
    """One stage's part in a candidate's score.

    Attributes:
        stage: the stage (see the module docstring).
        name: leg name (``leg``), fusion method (``fuse``), reranker (``rerank``) or the stage.
        score: the ``scores.SCORE_KINDS`` name of ``value`` (None when it has none).
        value: the score after the stage, or the factor (weights); None: not scored there.
        normalised: a leg's value normalised over the pool (zscore: a z-score, minmax: [0, 1]).
        weight: a leg's weight in the fusion.
        contribution: a leg's share of the fused sum; the session lift (smoothed - fused).
        rank: 1-based rank after the stage (a leg: the rank in the leg); None: not ranked.
        limit: the threshold compared against (``threshold``).
        passed: whether the threshold let it through (``threshold``).
        reason: the drop reason at this stage (``threshold``, ``final``).
        source: the session neighbour that lifted it (``session``).
    """

    model_config = ConfigDict(frozen=True)

    stage: StepKind
    name: str
    score: str | None = None
    value: float | None = None
    normalised: float | None = None
    weight: float | None = None
    contribution: float | None = None
    rank: int | None = None
    limit: float | None = None
    passed: bool | None = None
    reason: str | None = None
    source: uuid.UUID | None = None


class CandidateWaterfall(BaseModel):
    """Every stage of one candidate.

    Attributes:
        memory_id, content: the memory (content as stored in the trace).
        steps: in pipeline order.
        final_score: ``scores["final"]`` (the deciding score), None when never weighted.
        final_rank: rank in the returned memories, None when dropped.
        fused_rank: rank after fusion.
        moved: fused rank - final rank (positive: moved up; None when dropped).
        moved_by: the stage that gained it the most places (None: no stage moved it up).
        dropped: the drop reason, None when returned.
    """

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    content: str
    steps: list[WaterfallStep]
    final_score: float | None
    final_rank: int | None
    fused_rank: int | None
    moved: int | None
    moved_by: str | None
    dropped: str | None


class Waterfall(BaseModel):
    """The waterfall of one trace.

    Attributes:
        fusion: the fusion method used (``rrf``, ``zscore``, ``minmax``).
        deciding_score: the score the returned order is sorted by (``final``).
        legs: the legs run, in trace order.
        candidates: returned first (final order), then dropped (in weighted order).
    """

    model_config = ConfigDict(frozen=True)

    fusion: str
    deciding_score: str
    legs: list[str]
    candidates: list[CandidateWaterfall]


def fusion_of(trace: Trace) -> str:
    """The fusion method a trace used (its ``fuse:<method>`` stage, else its configuration)."""
    for stage in trace.stages:
        if stage.startswith("fuse:"):
            return stage.split(":", 1)[1]
    return str(trace.config.get("fusion", "rrf"))


def _reranker(trace: Trace) -> str | None:
    return next((s.split(":", 1)[1] for s in trace.stages if s.startswith("rerank:")), None)


def trace_candidates(trace: Trace) -> list[TraceCandidate]:
    """The fused pool of a trace: returned in final order, then dropped in weighted order."""
    kept = sorted(
        (c for c in trace.candidates if c.dropped is None and "final" in c.ranks),
        key=lambda c: c.ranks["final"],
    )
    ids = {c.memory_id for c in kept}
    rest = sorted(
        (c for c in trace.candidates if c.memory_id not in ids),
        key=lambda c: c.ranks.get("weighted", c.ranks.get("fused", 10**9)),
    )
    return [*kept, *rest]


def _leg_steps(c: TraceCandidate, trace: Trace, fusion: str) -> list[WaterfallStep]:
    rrf_k = int(trace.config.get("rrf_k", 60) or 60)
    steps = []
    for leg in trace.legs:
        key = leg_score_key(leg)
        rank = c.ranks.get(leg)
        weight = trace.leg_health.get(leg, {}).get("weight")
        norm = c.normalised.get(leg)
        if fusion == "rrf":
            contribution = 1.0 / (rrf_k + rank) if rank is not None else None
        else:
            contribution = norm * float(weight) if norm is not None and weight is not None else None
        steps.append(
            WaterfallStep(
                stage="leg",
                name=leg,
                score=key,
                value=c.scores.get(key) if rank is not None else None,
                normalised=norm,
                weight=float(weight) if weight is not None else None,
                contribution=contribution,
                rank=rank,
            )
        )
    return steps


def _steps(c: TraceCandidate, trace: Trace, fusion: str) -> list[WaterfallStep]:
    s, r = c.scores, c.ranks
    steps = _leg_steps(c, trace, fusion)
    steps.append(
        WaterfallStep(
            stage="fuse", name=fusion, score="fused", value=s.get("fused"), rank=r.get("fused")
        )
    )
    if "session" in trace.stages:
        lift = (s["session"] - s.get("fused", 0.0)) if "session" in s else None
        steps.append(
            WaterfallStep(
                stage="session",
                name="session",
                score="session",
                value=s.get("session"),
                contribution=lift,
                rank=r.get("session"),
                source=c.lift_from,
            )
        )
    reranker = _reranker(trace)
    if reranker is not None:
        steps.append(
            WaterfallStep(
                stage="rerank",
                name=reranker,
                score="rerank",
                value=s.get("rerank"),
                rank=r.get("rerank"),
            )
        )
    steps.append(
        WaterfallStep(
            stage="type_weight", name="type_weight", score="type_weight", value=s.get("type_weight")
        )
    )
    steps.append(
        WaterfallStep(
            stage="retention",
            name="retention",
            score="retention",
            value=s.get("retention"),
            rank=r.get("weighted"),
        )
    )
    cut = c.dropped is not None and c.dropped not in _NOT_THRESHOLD
    steps.append(
        WaterfallStep(
            stage="threshold",
            name="min_score",
            score="rrf",
            value=s.get("rrf"),
            limit=_float(trace.config.get("min_score")),
            passed=not cut,
            reason=c.dropped if cut else None,
        )
    )
    steps.append(
        WaterfallStep(
            stage="final",
            name="final",
            score=DECIDING_SCORE,
            value=s.get("final"),
            rank=r.get("final"),
            reason=c.dropped,
        )
    )
    return steps


def _float(value: Any) -> float | None:
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        return None


def _movement(steps: Sequence[WaterfallStep]) -> str | None:
    """The stage (after fusion) that gained the most places; None when none gained any."""
    ranked = [st for st in steps if st.stage != "leg" and st.rank is not None]
    best, gain = None, 0
    for prev, cur in zip(ranked, ranked[1:], strict=False):
        assert prev.rank is not None and cur.rank is not None
        if prev.rank - cur.rank > gain:
            best, gain = (cur.stage if cur.stage != "retention" else "weight"), prev.rank - cur.rank
    return best


def waterfall(trace: Trace) -> Waterfall:
    """The score waterfall of every candidate of ``trace`` (see the module docstring)."""
    fusion = fusion_of(trace)
    out = []
    for c in trace_candidates(trace):
        steps = _steps(c, trace, fusion)
        final, fused = c.ranks.get("final"), c.ranks.get("fused")
        out.append(
            CandidateWaterfall(
                memory_id=c.memory_id,
                content=c.content,
                steps=steps,
                final_score=c.scores.get("final"),
                final_rank=final,
                fused_rank=fused,
                moved=fused - final if final is not None and fused is not None else None,
                moved_by=_movement(steps),
                dropped=c.dropped,
            )
        )
    return Waterfall(
        fusion=fusion, deciding_score=DECIDING_SCORE, legs=list(trace.legs), candidates=out
    )


def lift_sources(
    candidates: Sequence[Scored], *, window: int, decay: float, mode: str
) -> dict[uuid.UUID, uuid.UUID]:
    """The session neighbour that lifted each smoothed candidate (recorded in the trace).

    Args:
        candidates: the candidates after ``session.smooth_sessions`` (``scores["fused"]`` and
            ``scores["session"]``).
        window, decay, mode: the smoothing settings (``lift`` picks the neighbour with the best
            decayed score; ``sum`` names the largest of the summed neighbours).

    Returns:
        memory id -> neighbour id, for candidates whose session score exceeds their fused one.
    """
    by_turn: dict[tuple[str, int], Scored] = {}
    keys: dict[uuid.UUID, tuple[str, int]] = {}
    for c in candidates:
        m = c.memory
        idx = turn_index(m) if m.memory_type == MemoryType.EPISODIC and m.session_id else None
        if idx is None or m.session_id is None:
            continue
        keys[m.id] = (m.session_id, idx)
        prev = by_turn.get((m.session_id, idx))
        if prev is None or c.scores.get("fused", 0.0) > prev.scores.get("fused", 0.0):
            by_turn[(m.session_id, idx)] = c
    out: dict[uuid.UUID, uuid.UUID] = {}
    for c in candidates:
        key = keys.get(c.memory.id)
        if key is None or c.scores.get("session", 0.0) <= c.scores.get("fused", 0.0):
            continue
        best: tuple[float, uuid.UUID] | None = None
        for d in range(1, window + 1):
            for sign in (-1, 1):
                n = by_turn.get((key[0], key[1] + sign * d))
                if n is None or n.memory.id == c.memory.id:
                    continue
                v = decay ** (d - 1) * n.scores.get("fused", 0.0)
                if best is None or v > best[0]:
                    best = (v, n.memory.id)
        if best is not None:
            out[c.memory.id] = best[1]
    del mode  # both modes name the strongest neighbour
    return out
