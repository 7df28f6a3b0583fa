"""PostgreSQL vs Qdrant, side by side: one query on both stores (Query Replay) and per-store
counts with a parity check (Overview). The pure part (the sections that draw are
:mod:`memory_engine.dashboard.widgets.store_compare`).

Definitions (``a``, ``b``: memory ids in returned order, best first):

* ``overlap@k = |top_k(a) ∩ top_k(b)| / max(|top_k(a)|, |top_k(b)|)`` in [0, 1]; 1.0 when both
  return the same set (also when the tenant holds fewer than k memories); None when both are
  empty.
* Spearman ρ and Kendall τ-b in [-1, 1] over the ids both returned, comparing their ranks in
  ``a`` and in ``b`` (scipy.stats when installed, else the same formulas here); None with fewer
  than 2 common ids. 1 = same order.
* Score differences ``Δ kind = score_b - score_a`` per memory and score kind (``rrf``,
  ``cosine``, ``bm25``, ...); ``bm25`` differs by design (see README, *Choosing a store*).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Sequence
from typing import Any, Final

import pandas as pd

from memory_engine import MemoryEngine, Scope, SearchResult
from memory_engine.dashboard.i18n import t
from memory_engine.stores.transfer import tenant_counts

#: Score kinds shown first (others follow in name order).
SCORE_ORDER: Final = ("final", "rerank", "rrf", "cosine", "bm25")


#: Tenants up to this many records per store get their ids compared, not only counts.
PARITY_ID_LIMIT: Final = 5000


def overlap_at_k(a: Sequence[uuid.UUID], b: Sequence[uuid.UUID], k: int) -> float | None:
    """Share of the top-k ids both lists hold (see module docstring); None when both empty."""
    top_a, top_b = set(a[:k]), set(b[:k])
    denominator = max(len(top_a), len(top_b))
    return len(top_a & top_b) / denominator if denominator else None


def _ranks(values: Sequence[float]) -> list[float]:
    """Average ranks (1-based) of ``values``; ties share their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for m in range(i, j + 1):
            ranks[order[m]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def _pearson(x: Sequence[float], y: Sequence[float]) -> float | None:
    n = len(x)
    mx, my = sum(x) / n, sum(y) / n
    sxy = sum((a - mx) * (b - my) for a, b in zip(x, y, strict=True))
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    return sxy / math.sqrt(sxx * syy) if sxx > 0 and syy > 0 else None


def spearman(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Spearman's ρ (Pearson correlation of average ranks); None below 2 points or constant."""
    if len(x) < 2:
        return None
    return _pearson(_ranks(x), _ranks(y))


def kendall_tau_b(x: Sequence[float], y: Sequence[float]) -> float | None:
    """Kendall's τ-b (Kendall 1945, tie-corrected); None below 2 points or constant input."""
    n = len(x)
    if n < 2:
        return None
    concordant = discordant = ties_x = ties_y = 0
    for i in range(n):
        for j in range(i + 1, n):
            dx, dy = x[i] - x[j], y[i] - y[j]
            if dx == 0 and dy == 0:
                continue
            if dx == 0:
                ties_x += 1
            elif dy == 0:
                ties_y += 1
            elif (dx > 0) == (dy > 0):
                concordant += 1
            else:
                discordant += 1
    denominator = math.sqrt((concordant + discordant + ties_x) * (concordant + discordant + ties_y))
    return (concordant - discordant) / denominator if denominator else None


def rank_correlations(
    a: Sequence[uuid.UUID], b: Sequence[uuid.UUID]
) -> tuple[float | None, float | None, int]:
    """(Spearman ρ, Kendall τ-b, number of common ids) of the ranks the common ids hold in
    ``a`` and ``b``; scipy.stats when installed."""
    pos_b = {mid: i for i, mid in enumerate(b, start=1)}
    common = [(i, pos_b[mid]) for i, mid in enumerate(a, start=1) if mid in pos_b]
    if len(common) < 2:
        return None, None, len(common)
    x = [float(p) for p, _ in common]
    y = [float(q) for _, q in common]
    try:
        from scipy import stats as sstats

        rho = float(sstats.spearmanr(x, y).statistic)
        tau = float(sstats.kendalltau(x, y).statistic)
        return (None if math.isnan(rho) else rho), (None if math.isnan(tau) else tau), len(common)
    except ImportError:  # pragma: no cover - scipy is pinned in requirements.txt
        return spearman(x, y), kendall_tau_b(x, y), len(common)


def score_kinds(results: Sequence[SearchResult]) -> list[str]:
    """Score names present in any returned candidate, in SCORE_ORDER then by name."""
    names = {k for r in results for c in r.memories for k in c.scores}
    return [k for k in SCORE_ORDER if k in names] + sorted(names - set(SCORE_ORDER))


def compare_frame(results: dict[str, SearchResult], lang: str) -> pd.DataFrame:
    """One row per memory returned by either store: id, content, rank per store, Δrank, and
    per score kind the score per store and Δ (second store minus first). Sorted by the first
    store's rank, then the second's."""
    (name_a, res_a), (name_b, res_b) = list(results.items())[:2]
    label_a, label_b = t(f"stores.{name_a}", lang), t(f"stores.{name_b}", lang)
    by_a = {c.memory.id: (i, c) for i, c in enumerate(res_a.memories, start=1)}
    by_b = {c.memory.id: (i, c) for i, c in enumerate(res_b.memories, start=1)}
    ids = list(dict.fromkeys([*by_a, *by_b]))
    kinds = score_kinds([res_a, res_b])
    rows = []
    for mid in ids:
        ra, ca = by_a.get(mid, (None, None))
        rb, cb = by_b.get(mid, (None, None))
        memory = (ca or cb).memory  # type: ignore[union-attr]
        row: dict[str, Any] = {
            t("col.id", lang): str(mid)[:8],
            t("col.content", lang): memory.content,
            t("stores.col_rank", lang, store=label_a): ra,
            t("stores.col_rank", lang, store=label_b): rb,
            t("col.delta_rank", lang): (rb - ra) if ra is not None and rb is not None else None,
        }
        for kind in kinds:
            sa = ca.scores.get(kind) if ca is not None else None
            sb = cb.scores.get(kind) if cb is not None else None
            row[t("stores.col_score", lang, score=kind, store=label_a)] = sa
            row[t("stores.col_score", lang, score=kind, store=label_b)] = sb
            row[t("stores.col_delta", lang, score=kind)] = (
                sb - sa if sa is not None and sb is not None else None
            )
        rows.append(row)
    return pd.DataFrame(rows)


def all_record_ids(engine: MemoryEngine, scope: Scope, limit: int) -> set[uuid.UUID] | None:
    """Every memory record id of the tenant in the engine's store, or None above ``limit``."""
    store = engine.store
    first = store.record_ids(scope=scope, limit=1)
    if int(first.total or 0) > limit:
        return None
    out: set[uuid.UUID] = set()
    cursor = None
    while True:
        page = store.record_ids(scope=scope, limit=500, cursor=cursor)
        out.update(page.items)
        cursor = page.next_cursor
        if not cursor:
            return out


def parity(engines: dict[str, MemoryEngine], scope: Scope) -> dict[str, Any]:
    """Counts of the tenant in each store and whether they agree.

    Returns:
        ``{"counts": {store: tenant_counts}, "counts_equal", "ids_compared", "only_one"
        (ids held by one store only, when compared), "ok"}``.
    """
    counts = {name: tenant_counts(e.store, scope) for name, e in engines.items()}
    values = list(counts.values())
    equal = all(v == values[0] for v in values)
    ids = [all_record_ids(e, scope, PARITY_ID_LIMIT) for e in engines.values()]
    compared = all(i is not None for i in ids)
    only_one = len(set.symmetric_difference(*ids)) if compared and len(ids) == 2 else 0  # type: ignore[arg-type]
    return {
        "counts": counts,
        "counts_equal": equal,
        "ids_compared": compared,
        "only_one": only_one,
        "ok": equal and only_one == 0,
    }


def parity_frame(result: dict[str, Any], lang: str) -> pd.DataFrame:
    """One row per store of a :func:`parity` result: store, memory records, one column per
    status (in name order; 0 where a store has none of it), events."""
    statuses = sorted({s for c in result["counts"].values() for s in c["by_status"]})
    rows = []
    for name, c in result["counts"].items():
        row: dict[str, Any] = {
            t("stores.col_store", lang): t(f"stores.{name}", lang),
            t("stores.col_records", lang): c["records"],
        }
        row.update({s: c["by_status"].get(s, 0) for s in statuses})
        row[t("stores.col_events", lang)] = c["events"]
        rows.append(row)
    return pd.DataFrame(rows)


def embedders_frame(engine: MemoryEngine, lang: str) -> pd.DataFrame:
    """One row per dense leg of the engine's store: leg, model, dimensions, state (``ready`` =
    searched, ``filling`` = waiting for ``memory-engine reembed``). Empty when the store has
    recorded no embedding yet."""
    store = engine.store
    recorded = store.embedding_info()
    if recorded is None:
        return pd.DataFrame()
    rows = [("dense", recorded[0], recorded[1], "ready")]
    part = getattr(store, "legs", None)  # the store's extra dense legs (VectorLegs)
    if part is not None:
        rows += [(r.leg, r.model, r.dim, r.state) for r in part.leg_records().values()]
    return pd.DataFrame(
        {
            t("stores.col_leg", lang): [t(f"stores.leg_{leg}", lang) for leg, *_ in rows],
            t("stores.col_model", lang): [model for _, model, _, _ in rows],
            t("stores.col_dim", lang): [dim for _, _, dim, _ in rows],
            t("stores.col_state", lang): [t(f"stores.leg_{state}", lang) for *_, state in rows],
        }
    )
