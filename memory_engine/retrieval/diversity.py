"""Dedupe and diversity: exact duplicates, near duplicates, optional MMR.

* exact: same ``content_hash`` (NFKC + whitespace + case) as a better candidate;
* near: Jaccard similarity of the two memories' keyword-term sets (the CJK-aware tokenizer of
  ``text.py``, so Chinese works too) >= ``near_duplicate`` (default 0.9);
* MMR (Carbonell and Goldstein 1998) with ``lambda`` < 1: the next pick maximises
  ``lambda * rel(d) - (1 - lambda) * max_{s picked} jaccard(d, s)`` where ``rel`` is the
  candidate's score min-max scaled to [0, 1] over the pool. ``lambda = 1`` keeps the order.

Vectors are not loaded with candidates, so similarity here is lexical; it is cheap (the pool is
bounded) and language-neutral.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import TypeVar

from memory_engine import text as textmod
from memory_engine.retrieval.records import Scored

__all__ = ["DROP_DUPLICATE", "DROP_NEAR_DUPLICATE", "dedupe", "jaccard", "mmr_order"]

DROP_DUPLICATE = "duplicate_content"
DROP_NEAR_DUPLICATE = "near_duplicate"

#: Any candidate record (``models.Candidate`` or ``records.Hit``); returned as given.
C = TypeVar("C", bound=Scored)


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    """|a & b| / |a | b|; 0.0 when both are empty."""
    if not a and not b:
        return 0.0
    return len(a & b) / len(a | b)


def _terms(c: Scored, cache: dict[uuid.UUID, frozenset[str]]) -> frozenset[str]:
    got = cache.get(c.memory.id)
    if got is None:
        got = frozenset(textmod.tokenize(c.memory.content))
        cache[c.memory.id] = got
    return got


def dedupe(
    candidates: Sequence[C],
    *,
    near_duplicate: float | None = None,
    limit: int | None = None,
) -> tuple[list[C], list[tuple[C, str]]]:
    """Drop exact and near duplicates of better-ranked candidates.

    Args:
        candidates: best first.
        near_duplicate: Jaccard threshold in (0, 1]; None (or above 1) = near-duplicate check off.
        limit: stop checking near duplicates after this many kept candidates (the rest are
            only checked for exact duplicates; bounds the pairwise cost).

    Returns:
        (kept, dropped) where dropped pairs each candidate with ``duplicate_content`` or
        ``near_duplicate``.
    """
    kept: list[C] = []
    dropped: list[tuple[C, str]] = []
    hashes: set[str] = set()
    cache: dict[uuid.UUID, frozenset[str]] = {}
    for c in candidates:
        h = c.memory.content_hash
        if h and h in hashes:
            dropped.append((c, DROP_DUPLICATE))
            continue
        if (
            near_duplicate is not None
            and near_duplicate <= 1.0
            and (limit is None or len(kept) < limit)
        ):
            mine = _terms(c, cache)
            if any(jaccard(mine, _terms(k, cache)) >= near_duplicate for k in kept):
                dropped.append((c, DROP_NEAR_DUPLICATE))
                continue
        if h:
            hashes.add(h)
        kept.append(c)
    return kept, dropped


def mmr_order(candidates: Sequence[C], *, score_key: str, lam: float, pool: int) -> list[C]:
    """Reorder the first ``pool`` candidates by MMR (see module docstring); the rest follow
    unchanged. ``lam`` in [0, 1]; 1.0 returns the input order. Raises ValueError otherwise."""
    if not 0.0 <= lam <= 1.0:
        raise ValueError("mmr lambda must be in [0, 1]")
    if lam >= 1.0 or len(candidates) < 3:
        return list(candidates)
    head, tail = list(candidates[:pool]), list(candidates[pool:])
    scores = [c.scores.get(score_key, 0.0) for c in head]
    lo, hi = min(scores), max(scores)
    rel = {
        c.memory.id: (s - lo) / (hi - lo) if hi > lo else 1.0
        for c, s in zip(head, scores, strict=True)
    }
    cache: dict[uuid.UUID, frozenset[str]] = {}
    picked: list[C] = []
    left = head
    while left:
        best = max(
            left,
            key=lambda c: (
                lam * rel[c.memory.id]
                - (1 - lam)
                * max((jaccard(_terms(c, cache), _terms(p, cache)) for p in picked), default=0.0)
            ),
        )
        picked.append(best)
        left = [c for c in left if c.memory.id != best.memory.id]
    return picked + tail
