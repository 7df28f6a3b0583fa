"""Rank fusion of retrieval legs.

Reciprocal Rank Fusion (Cormack, Clarke & Buettcher, SIGIR 2009):
``rrf(d) = sum over legs L containing d of 1 / (k + rank_L(d))`` with 1-based ranks, k = 60 by
default. Higher is better; range (0, n_legs / (k + 1)].
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence

from memory_engine.models import Candidate


def rrf_fuse(legs: Mapping[str, Sequence[Candidate]], *, k: int = 60) -> list[Candidate]:
    """Fuse ranked legs with RRF.

    Args:
        legs: leg name (e.g. ``dense``, ``keyword``) -> candidates best first.
        k: RRF constant (>= 1).

    Returns:
        One candidate per memory id, sorted by ``rrf`` descending (ties: best single-leg rank,
        then id), carrying every leg's scores and ranks plus ``scores["rrf"]`` and
        ``ranks["fused"]`` (1-based).
    """
    if k < 1:
        raise ValueError("k must be >= 1")
    merged: dict[uuid.UUID, Candidate] = {}
    rrf: dict[uuid.UUID, float] = {}
    for leg, candidates in legs.items():
        for position, cand in enumerate(candidates, start=1):
            mid = cand.memory.id
            rank = cand.ranks.get(leg, position)
            rrf[mid] = rrf.get(mid, 0.0) + 1.0 / (k + rank)
            prev = merged.get(mid)
            scores = dict(prev.scores) if prev else {}
            ranks = dict(prev.ranks) if prev else {}
            scores.update(cand.scores)
            ranks[leg] = rank
            merged[mid] = Candidate(memory=cand.memory, scores=scores, ranks=ranks)

    def best_rank(c: Candidate) -> int:
        return min(c.ranks.values())

    ordered = sorted(
        merged.values(), key=lambda c: (-rrf[c.memory.id], best_rank(c), str(c.memory.id))
    )
    return [
        Candidate(
            memory=c.memory,
            scores={**c.scores, "rrf": rrf[c.memory.id]},
            ranks={**c.ranks, "fused": i},
        )
        for i, c in enumerate(ordered, start=1)
    ]
