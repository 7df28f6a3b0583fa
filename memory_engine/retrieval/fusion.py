"""Rank fusion of retrieval legs.

Reciprocal Rank Fusion (Cormack, Clarke & Buettcher, SIGIR 2009):
``rrf(d) = sum over legs L containing d of 1 / (k + rank_L(d))`` with 1-based ranks, k = 60 by
default. Higher is better; range (0, n_legs / (k + 1)].
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from memory_engine.models import Memory
from memory_engine.retrieval.records import Hit, Scored


def rrf_fuse(legs: Mapping[str, Sequence[Scored]], *, k: int = 60) -> list[Hit]:
    """Fuse ranked legs with RRF.

    Args:
        legs: leg name (e.g. ``dense``, ``keyword``) -> candidates best first.
        k: RRF constant (>= 1).

    Returns:
        One record per memory id (``records.Hit``), sorted by ``rrf`` descending (ties: best
        single-leg rank, then id), carrying every leg's scores and ranks plus ``scores["rrf"]`` and
        ``ranks["fused"]`` (1-based).
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    pooled: dict[uuid.UUID, _Pooled] = {}  # one hash lookup per leg row (~150 a search)
    for leg, candidates in legs.items():
        for position, cand in enumerate(candidates, start=1):
            rank = cand.ranks.get(leg, position)
            entry = pooled.get(cand.memory.id)
            if entry is None:
                entry = pooled[cand.memory.id] = _Pooled(cand.memory)
            entry.rrf += 1.0 / (k + rank)
            entry.memory = cand.memory
            entry.scores.update(cand.scores)
            entry.ranks[leg] = rank
    # ties by id: the integer's order is the order of the ids' hex text, without making it
    ordered = sorted(
        pooled.values(), key=lambda e: (-e.rrf, min(e.ranks.values()), e.memory.id.int)
    )
    # One new record per memory (not one per leg appearance); the pooled dicts are its own.
    for i, entry in enumerate(ordered, start=1):
        entry.scores["rrf"] = entry.rrf
        entry.ranks["fused"] = i
    return [Hit(e.memory, e.scores, e.ranks) for e in ordered]


@dataclass(slots=True, eq=False)
class _Pooled:
    """One memory of the fused pool while the legs are summed."""

    memory: Memory
    scores: dict[str, float] = field(default_factory=dict)
    ranks: dict[str, int] = field(default_factory=dict)
    rrf: float = 0.0
