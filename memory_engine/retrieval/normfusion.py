"""Normalised-score fusion of retrieval legs (beside RRF in ``fusion.py``).

Each leg's own score (``cosine`` for dense legs, ``bm25`` for keyword legs) is first given to
every memory of the fused pool: a memory the leg did not return gets the leg's floor, which is
0 for a keyword leg that returned fewer than ``depth`` rows (no other memory holds a query term)
and otherwise the lowest score the leg returned. Then, over the pool:

* ``zscore``: ``z_L(d) = (s_L(d) - mean_L) / std_L`` (population std; a leg whose values are
  all equal gives 0). The weighted sum over the legs is rescaled with min-max to [0, 1].
* ``minmax``: ``m_L(d) = (s_L(d) - min_L) / (max_L - min_L)`` (0 when all equal); weighted mean
  over the legs, in [0, 1].

Normalising over the pool rather than over the leg's own rows keeps a lone keyword hit strong
(one row with a BM25 score against a pool of zeros is a clear outlier, not a zero-variance
leg).

Unlike RRF these keep the *gap* between a clear winner and the rest of a leg (Bruch, Gai and
Ingber 2023, "An Analysis of Fusion Functions for Hybrid Retrieval", ACM TOIS: convex
combinations of normalised scores beat RRF when tuned). ``rrf`` is computed as well, so the
trace always carries it. Output: ``scores["fused"]`` (higher is better) and ``ranks["fused"]``.
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Mapping, Sequence

from memory_engine.config.retrieval import FusionMethod
from memory_engine.retrieval.fusion import rrf_fuse
from memory_engine.retrieval.records import Hit, Scored

__all__ = ["FusionMethod", "fuse", "leg_normalised", "leg_score_key"]


def leg_score_key(leg: str) -> str:
    """Score a leg ranks by: ``cosine`` for ``dense`` (and ``dense@x1``), ``cosine_ml`` for
    the multilingual ``dense_ml`` leg (``cosine_<suffix>`` for ``dense_<suffix>``), ``bm25``
    for ``keyword*`` legs."""
    base = leg.split("@", 1)[0]
    if base.startswith("dense"):
        return "cosine" + base[len("dense") :]
    return "bm25"


def _leg_weight(leg: str, weights: Mapping[str, float]) -> float:
    base = leg.split("@", 1)[0]  # "dense@x1" (an expansion's leg) weighs like "dense"
    return weights.get(leg, weights.get(base, 1.0))


def _normalise(values: list[float], method: str) -> list[float]:
    """Z-scores or min-max values of ``values`` (0.0 for all when they are all equal)."""
    if method == "zscore":
        mean = sum(values) / len(values)
        std = math.sqrt(sum((v - mean) ** 2 for v in values) / len(values))
        if std == 0.0:
            return [0.0] * len(values)
        return [(v - mean) / std for v in values]
    lo, hi = min(values), max(values)
    if hi == lo:
        return [0.0] * len(values)
    return [(v - lo) / (hi - lo) for v in values]


def fuse(
    legs: Mapping[str, Sequence[Scored]],
    *,
    method: FusionMethod = "rrf",
    rrf_k: int = 60,
    weights: Mapping[str, float] | None = None,
    depth: int | None = None,
) -> list[Hit]:
    """Fuse ranked legs.

    Args:
        legs: leg name -> candidates best first (each with its leg's score, see
            :func:`leg_score_key`, and ``ranks[leg]``).
        method: ``rrf``, ``zscore`` or ``minmax``.
        rrf_k: RRF constant (>= 1), used by every method for ``scores["rrf"]``.
        weights: per-leg weight (>= 0) for the normalised methods; missing legs weigh 1.0;
            ``dense@x1`` falls back to the weight of ``dense``.
        depth: rows each leg was asked for; a keyword leg that returned fewer has floor 0
            (None: every leg's floor is its lowest returned score).

    Returns:
        One record per memory (``records.Hit``), sorted by ``scores["fused"]`` descending (ties: ``rrf``,
        then id), with every leg's scores and ranks, ``scores["rrf"]``, ``scores["fused"]``
        and ``ranks["fused"]`` (1-based).

    Raises:
        ValueError: unknown method, ``rrf_k < 1`` or a negative weight.
    """
    if method not in ("rrf", "zscore", "minmax"):
        raise ValueError(f"unknown fusion method {method!r}")
    w = dict(weights or {})
    if any(v < 0 for v in w.values()):
        raise ValueError("leg weights must be >= 0")
    by_rrf = rrf_fuse(legs, k=rrf_k)
    if method == "rrf":
        fused = [c.scores["rrf"] for c in by_rrf]
    else:
        index = {c.memory.id: i for i, c in enumerate(by_rrf)}
        raw = [0.0] * len(by_rrf)
        total_w = 0.0
        for leg, cands in legs.items():
            if not cands:
                continue
            weight = _leg_weight(leg, w)
            total_w += weight
            norm = _normalise(_pool_values(leg, cands, index, depth), method)
            for i, v in enumerate(norm):
                raw[i] += weight * v
        if method == "minmax":
            fused = [v / total_w if total_w else 0.0 for v in raw]
        else:
            lo, hi = (min(raw), max(raw)) if raw else (0.0, 0.0)
            fused = [(v - lo) / (hi - lo) if hi > lo else 1.0 for v in raw]
    # ties by id: the integer's order is the order of the ids' hex text (records.py)
    order = sorted(
        range(len(by_rrf)),
        key=lambda i: (-fused[i], -by_rrf[i].scores["rrf"], by_rrf[i].memory.id.int),
    )
    return [
        Hit(
            by_rrf[i].memory,
            {**by_rrf[i].scores, "fused": fused[i]},
            {**by_rrf[i].ranks, "fused": r},
        )
        for r, i in enumerate(order, start=1)
    ]


def _pool_values(
    leg: str, cands: Sequence[Scored], index: Mapping[uuid.UUID, int], depth: int | None
) -> list[float]:
    """The leg's score of every pooled memory (position ``index[id]``): its own score where
    the leg returned it, else the leg's floor (module docstring). A memory the leg returned
    twice counts with its last score; one outside the pool only counts toward the floor."""
    key = leg_score_key(leg)
    got: list[float | None] = [None] * len(index)
    outside: dict[uuid.UUID, float] = {}
    for c in cands:
        i = index.get(c.memory.id)
        if i is None:
            outside[c.memory.id] = c.scores.get(key, 0.0)
        else:
            got[i] = c.scores.get(key, 0.0)
    floor = min([v for v in got if v is not None] + list(outside.values()))
    if key == "bm25" and depth is not None and len(cands) < depth:
        floor = 0.0
    return [floor if v is None else v for v in got]


def leg_normalised(
    legs: Mapping[str, Sequence[Scored]],
    pool: Sequence[uuid.UUID],
    *,
    method: FusionMethod,
    depth: int | None = None,
) -> dict[uuid.UUID, dict[str, float]]:
    """Each leg's score of every pooled memory as the normalised fusions see it (the floor
    rule and normalisation of :func:`fuse`); read by the score waterfall.

    Args:
        legs: leg name -> candidates best first (as given to :func:`fuse`).
        pool: the fused pool's memory ids.
        method: the fusion method; ``rrf`` normalises nothing (an empty mapping).
        depth: as in :func:`fuse`.

    Returns:
        memory id -> leg name -> z-score (``zscore``) or value in [0, 1] (``minmax``).

    Raises:
        ValueError: an id is twice in ``pool``.
    """
    out: dict[uuid.UUID, dict[str, float]] = {mid: {} for mid in pool}
    if len(out) != len(pool):
        raise ValueError("the pool's memory ids must be distinct")
    if method == "rrf" or not pool:
        return out
    index = {mid: i for i, mid in enumerate(pool)}
    per_memory = list(out.values())  # one dict per position, in the pool's order
    for leg, cands in legs.items():
        if not cands:
            continue
        norm = _normalise(_pool_values(leg, cands, index, depth), method)
        for row, v in zip(per_memory, norm, strict=True):
            row[leg] = v
    return out
