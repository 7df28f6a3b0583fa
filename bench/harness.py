"""Shared parts of the retrieval benchmarks (bench/locomo.py, bench/madial.py).

* ``--set key=value`` overrides of ``SearchOptions`` (JSON values: ``--set fusion="zscore"``
  or ``--set fusion=zscore``, ``--set session_weight=0.3``);
* ``--grid FILE``: a JSON list of such override dicts; every configuration is measured in one
  process and printed as one JSON line each; a dict may also set the calibration constants of
  the relevance floor (``calibrated_match_cosine`` and ``latin_match_cosine``:
  ``{"<model>": cosine}``, ``match_cosine_per_doubling``, ``floor_leg_share``, ``vouch_leg_share``;
  :func:`calibrated_floors`);
* ``--data-dir DIR`` (in each benchmark): the ingested store is kept there; a later run on the
  same folder skips the tenants already stored, so several runs (defaults, grids) share one
  ingest. Settings may also be given as ``MEMORY_*`` variables;
* ``prefill_queries``: embeds all queries in batches first (query embedding is then not part
  of the reported search latency: the lead measures latency with bench/latency.py);
* ``no_answer`` / ``engine_no_answer``: the no-answer set (false recall): for each tenant (a
  LoCoMo conversation or a MADial user), the OTHER tenants' queries searched against this tenant's memories with the
  default options; a memory in such a block is padding. Reports the average number of
  memories in the block per query (the block of the default ``k`` and token budget) and the
  share of queries whose block is not empty;
* ``Dump``: ``--dump FILE`` writes one JSON line per search with every candidate of its trace
  (scores, ranks, drop reason, gold flag), so floors can be calibrated offline on the
  development split;
* ``CachingStore`` / ``CachingEmbedder``: wrappers that memoise ``dense_search``,
  ``keyword_search`` and ``embed`` for identical inputs, so a grid pays for the legs once and
  the rest is the in-process stages. ``CachingStore`` passes the few other store methods the
  benchmarks use straight through (writes included) and nothing else.

Measurement only: nothing here is used by the engine.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from memory_engine.embedding.base import Embedder
from memory_engine.models import Candidate, Event, MemoryStatus, Scope, SearchResult
from memory_engine.stores.base import BulkLoader, InsertOutcome, MemoryStore, NewMemory


def add_common_args(ap: argparse.ArgumentParser) -> None:
    """Add --embedder, --set, --grid, --candidates, --legs, --no-answer, --dump.

    With no option every benchmark measures the engine's default configuration (embedder,
    legs, depth, floors); only ``k`` (the largest k reported) and the token budget (0: a
    ranking, not a block) are set for the recall figures. The no-answer set uses the default
    block as an agent gets it.
    """
    ap.add_argument(
        "--embedder",
        choices=["minilm", "use_m3"],
        default=None,
        help="offline embedder (default: the engine's default)",
    )
    ap.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="SearchOptions override, e.g. fusion=zscore or session_weight=0.3 (repeatable)",
    )
    ap.add_argument(
        "--multilingual",
        choices=["use_m3", "none", "both"],
        default="use_m3",
        help="second dense leg (dense_ml) beside --embedder, weighted by the query's script "
        "(default: use_m3, the engine's default; none = one dense leg, the old default; both = "
        "ingest once with the leg, then measure every configuration with and without it)",
    )
    ap.add_argument("--grid", type=Path, help="JSON list of override dicts; one result each")
    ap.add_argument("--legs", default=None, help="comma-separated legs (default: the engine's)")
    ap.add_argument(
        "--candidates", type=int, default=None, help="candidates per leg (default: the engine's)"
    )
    ap.add_argument(
        "--no-answer",
        type=int,
        default=200,
        metavar="N",
        help="no-answer queries per tenant, an even sample of the other tenants' queries "
        "(default 200; 0 = all; -1 = skip the no-answer set)",
    )
    ap.add_argument("--dump", type=Path, help="write every search's candidates here (JSON Lines)")


def recall_params(args: argparse.Namespace, k: int) -> dict[str, Any]:
    """The ``SearchOptions`` the recall figures set: ``k``, no token budget, and the legs and
    depth only when given on the command line."""
    params: dict[str, Any] = {"k": k, "token_budget": 0}
    if args.legs:
        params["legs"] = tuple(args.legs.split(","))
    if args.candidates:
        params["candidates_per_leg"] = args.candidates
    return params


def settings_args(args: argparse.Namespace) -> dict[str, Any]:
    """``Settings`` keyword arguments of the command line (only the embedder, when given)."""
    return {"embedder": args.embedder} if args.embedder else {}


def even_sample(items: Sequence[Any], n: int) -> list[Any]:
    """``n`` items spread evenly over ``items`` (all of them when ``n`` is 0 or too large)."""
    if n <= 0 or n >= len(items):
        return list(items)
    step = len(items) / n
    return [items[int(i * step)] for i in range(n)]


class Dump:
    """``--dump``: one JSON line per search, ``{"set", "tenant", "query", "query_terms",
    "candidates": [{"ref", "gold", "dropped", "scores", "ranks"}]}`` (every candidate of the
    trace, dropped ones included). A no-op without a path.

    Args:
        path: the JSON Lines file, or None.
        ref_of: memory id -> ``source_ref`` (``CachingStore.source_ref``).
    """

    def __init__(self, path: Path | None, ref_of: Callable[[uuid.UUID], str | None]) -> None:
        self._fh = path.open("w", encoding="utf-8") if path else None
        self._ref_of = ref_of

    def write(
        self, kind: str, tenant: str, query: str, result: SearchResult, gold: set[str]
    ) -> None:
        """Record one search; ``gold`` holds the ``source_ref`` of its relevant memories."""
        if self._fh is None:
            return
        rows = []
        for c in result.trace.candidates:
            ref = self._ref_of(c.memory_id)
            rows.append(
                {
                    "ref": ref,
                    "gold": ref in gold,
                    "dropped": c.dropped,
                    "scores": {k: round(v, 5) for k, v in c.scores.items()},
                    "ranks": c.ranks,
                }
            )
        row = {
            "set": kind,
            "tenant": tenant,
            "query": query,
            "query_terms": list(result.trace.query_terms),
            "candidates": rows,
        }
        self._fh.write(json.dumps(row, ensure_ascii=False) + "\n")

    def close(self) -> None:
        """Close the file."""
        if self._fh is not None:
            self._fh.close()


def no_answer(
    search: Callable[[str, str], SearchResult],
    queries: Mapping[str, Sequence[str]],
    *,
    per_tenant: int,
    split_of: Callable[[str], str],
    dump: Dump | None = None,
) -> dict[str, Any]:
    """Measure the no-answer set: every tenant's memories against the other tenants' queries.

    Args:
        search: ``(tenant, query) -> SearchResult`` with the default options.
        queries: tenant -> its own queries.
        per_tenant: queries per tenant (an even sample of the others'; 0 = all).
        split_of: tenant -> ``"dev"`` or ``"heldout"``.
        dump: optional ``--dump`` writer.

    Returns:
        ``{"queries", "avg_block_memories", "nonempty_rate", "per_split": {...}}``: the mean
        number of memories in the block, and the percent of queries with a non-empty block.
        Empty (``{"queries": 0}``) with fewer than two tenants.
    """
    sizes: dict[str, list[int]] = {}
    if len(queries) < 2:
        return {"queries": 0}
    for tenant in queries:
        others = [q for other, qs in queries.items() if other != tenant for q in qs]
        for query in even_sample(others, per_tenant):
            res = search(tenant, query)
            sizes.setdefault(split_of(tenant), []).append(len(res.memories))
            if dump is not None:
                dump.write("no_answer", tenant, query, res, set())

    def summary(values: list[int]) -> dict[str, Any]:
        return {
            "queries": len(values),
            "avg_block_memories": round(statistics.fmean(values), 3) if values else 0.0,
            "nonempty_rate": round(100 * sum(1 for v in values if v) / len(values), 2)
            if values
            else 0.0,
        }

    out = summary([v for vs in sizes.values() for v in vs])
    out["per_split"] = {split: summary(vs) for split, vs in sorted(sizes.items())}
    return out


def engine_no_answer(
    engine: Any,
    overrides: Mapping[str, Any],
    queries: Mapping[str, Sequence[str]],
    *,
    scope_of: Callable[[str], Scope],
    per_tenant: int,
    split_of: Callable[[str], str],
    dump: Dump | None = None,
) -> dict[str, Any]:
    """:func:`no_answer` on ``engine`` with its default options (the block an agent gets:
    default ``k`` and token budget) plus one configuration's ``overrides``.

    Args:
        engine: the measured ``MemoryEngine``.
        overrides: ``SearchOptions`` overrides of the configuration measured.
        queries: tenant key -> its own queries.
        scope_of: tenant key -> the ``Scope`` its memories were written in.
        per_tenant, split_of, dump: as in :func:`no_answer`.

    Returns:
        The :func:`no_answer` summary.
    """
    default = engine.search_options(**overrides)

    def search(tenant: str, query: str) -> SearchResult:
        result: SearchResult = engine.search(
            scope_of(tenant), query, options=default, save_trace=False
        )
        return result

    return no_answer(search, queries, per_tenant=per_tenant, split_of=split_of, dump=dump)


#: Grid keys that are not ``SearchOptions`` fields but calibration constants of
#: ``retrieval/thresholds.py``, set for one configuration: ``calibrated_match_cosine``
#: (``{"<model name>": match cosine}`` over ``CALIBRATED_MATCH_COSINE``, so each dense leg's
#: match cosine is calibrated on its own; ``match_cosine`` sets one value for every leg),
#: ``latin_match_cosine`` (the same over ``LATIN_MATCH_COSINE``, for Latin-script queries) and
#: ``match_cosine_per_doubling`` (``MATCH_COSINE_PER_DOUBLING``, the long-query lowering) and
#: ``floor_leg_share`` (``FLOOR_LEG_SHARE``, which dense legs keep candidates for a query) and
#: ``vouch_leg_share`` (``VOUCH_LEG_SHARE``, which of them can open the block alone).
CALIBRATION_KEYS = (
    "calibrated_match_cosine",
    "latin_match_cosine",
    "match_cosine_per_doubling",
    "floor_leg_share",
    "vouch_leg_share",
)
_CONSTANTS = {
    "match_cosine_per_doubling": "MATCH_COSINE_PER_DOUBLING",
    "floor_leg_share": "FLOOR_LEG_SHARE",
    "vouch_leg_share": "VOUCH_LEG_SHARE",
}


@contextlib.contextmanager
def calibrated_floors(overrides: Mapping[str, Any]) -> Iterator[dict[str, Any]]:
    """Apply a configuration's :data:`CALIBRATION_KEYS` for the ``with`` block.

    Args:
        overrides: one configuration (``SearchOptions`` overrides, maybe with those keys).

    Yields:
        The ``SearchOptions`` overrides alone (the calibration keys removed).
    """
    from memory_engine.retrieval import thresholds

    options = {k: v for k, v in overrides.items() if k not in CALIBRATION_KEYS}
    tables = {
        "calibrated_match_cosine": thresholds.CALIBRATED_MATCH_COSINE,
        "latin_match_cosine": thresholds.LATIN_MATCH_COSINE,
    }
    saved_tables = {key: dict(table) for key, table in tables.items()}
    saved_constants = {name: getattr(thresholds, name) for name in _CONSTANTS.values()}
    for key, table in tables.items():
        per_model = overrides.get(key) or {}
        table.update({str(k): float(v) for k, v in per_model.items()})
    for key, name in _CONSTANTS.items():
        if key in overrides:
            setattr(thresholds, name, float(overrides[key]))
    try:
        yield options
    finally:
        for key, table in tables.items():
            table.clear()
            table.update(saved_tables[key])
        for name, value in saved_constants.items():
            setattr(thresholds, name, value)


def _value(raw: str) -> Any:
    try:
        return json.loads(raw)
    except json.JSONDecodeError:
        return raw


def configurations(args: argparse.Namespace) -> list[dict[str, Any]]:
    """The override dicts to measure: the grid's, each merged over the ``--set`` ones."""
    base: dict[str, Any] = {}
    for item in args.set:
        key, sep, raw = item.partition("=")
        if not sep:
            raise SystemExit(f"--set needs KEY=VALUE, got {item!r}")
        base[key.strip()] = _value(raw)
    if args.grid:
        grid = json.loads(args.grid.read_text(encoding="utf-8"))
        if not isinstance(grid, list) or not all(isinstance(g, dict) for g in grid):
            raise SystemExit("--grid must hold a JSON list of objects")
        return [{**base, **g} for g in grid]
    return [base]


def leg_embedders(args: argparse.Namespace, settings: Any) -> dict[str, Embedder]:
    """The extra dense legs of ``--multilingual`` (cached like the primary embedder)."""
    from memory_engine.embedding import build_leg_embedders

    choice = "use_m3" if args.multilingual == "both" else args.multilingual
    legs = build_leg_embedders(
        settings.model_copy(
            update={"embedding": settings.embedding.model_copy(update={"multilingual": choice})}
        )
    )
    return {leg: CachingEmbedder(e) for leg, e in legs.items()}


#: Options that only weigh the multilingual leg (no effect on an engine without it).
LEG_WEIGHT_OPTIONS = ("multilingual_weight", "cjk_english_weight")


def measurements(
    engine: Any, args: argparse.Namespace, configs: list[dict[str, Any]]
) -> list[tuple[str, Any, dict[str, Any]]]:
    """``(label, engine, overrides)`` to measure: every configuration on every engine of
    :func:`measured_engines`, except repeats on the one-leg engine of configurations that
    differ only in the multilingual leg's weights."""
    out: list[tuple[str, Any, dict[str, Any]]] = []
    seen: set[str] = set()
    for label, eng in measured_engines(engine, args):
        for overrides in configs:
            if label == "none":
                key = json.dumps(
                    {k: v for k, v in overrides.items() if k not in LEG_WEIGHT_OPTIONS},
                    sort_keys=True,
                )
                if key in seen:
                    continue
                seen.add(key)
            out.append((label, eng, overrides))
    return out


def measured_engines(engine: Any, args: argparse.Namespace) -> list[tuple[str, Any]]:
    """``(multilingual label, engine)`` pairs to measure: the engine itself, and with
    ``--multilingual both`` also an engine on the same store without the extra leg (the old
    one-leg default; its vectors are simply not searched)."""
    if args.multilingual != "both":
        return [(args.multilingual, engine)]
    from memory_engine import MemoryEngine

    one_leg = MemoryEngine(
        engine.settings, store=engine.store, embedder=engine.embedder, leg_embedders={}
    )
    return [("use_m3", engine), ("none", one_leg)]


def prefill_queries(engine: Any, queries: Sequence[str]) -> None:
    """Embed the benchmark's queries in batches up front (the ``CachingEmbedder`` then serves
    each search's query embedding, on every dense leg), so per-query model calls do not
    dominate the run."""
    unique = list(dict.fromkeys(queries))
    for embedder in (engine.embedder, *engine._deps.leg_embedders.values()):
        if isinstance(embedder, CachingEmbedder):
            for start in range(0, len(unique), 256):
                embedder.embed(unique[start : start + 256])


class CachingEmbedder:
    """Memoises ``embed`` per text (benchmarks embed each query once per grid)."""

    def __init__(self, inner: Embedder) -> None:
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.max_input_chars = inner.max_input_chars
        self._cache: dict[str, list[float]] = {}

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        missing = [t for t in dict.fromkeys(texts) if t not in self._cache]
        if missing:
            self._cache.update(zip(missing, self.inner.embed(missing), strict=True))
        return [self._cache[t] for t in texts]


class CachingStore:
    """A ``SearchIndex`` that memoises the two search legs of a store for identical arguments,
    plus the few store methods the benchmarks' engine calls, passed straight through.

    The engine of bench/locomo.py and bench/madial.py calls, besides the legs: ``count`` and
    ``insert`` (ingest and ``write_many``), ``bulk_insert`` when the store is a
    ``BulkLoader`` (PostgreSQL; the attribute exists only then, so the raw write path takes the
    same route as with the bare store), ``ensure_embedding`` (the embedder check),
    ``append_event`` (a tenant alarm of the guarded search) and ``close``. Anything else is an
    AttributeError: a wrapper that forwarded every name would hide what the bench uses.

    Args:
        inner: the store to wrap.
    """

    #: The inner store's ``bulk_insert``; set only when the inner store is a ``BulkLoader``.
    bulk_insert: Callable[..., list[InsertOutcome]]

    def __init__(self, inner: MemoryStore) -> None:
        self._inner = inner
        self._cache: dict[tuple[Any, ...], list[Candidate]] = {}
        self._refs: dict[uuid.UUID, str | None] = {}
        self.concurrent_legs = inner.concurrent_legs
        #: The inner store's extra dense legs (``VectorLegs``), passed through uncached.
        self.legs = getattr(inner, "legs", None)
        if isinstance(inner, BulkLoader):
            self.bulk_insert = inner.bulk_insert

    # ------------------------------------------------------------------ SearchIndex (cached)

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[Candidate]:
        """The inner ``dense_search``, computed once per (vector, scope, k, statuses)."""
        key = ("dense", tuple(vector), scope, k, tuple(statuses))
        if key not in self._cache:
            self._cache[key] = self._remember(
                self._inner.dense_search(vector, scope=scope, k=k, statuses=statuses)
            )
        return self._cache[key]

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[Candidate]:
        """The inner ``keyword_search``, computed once per (terms, scope, k, statuses)."""
        key = ("keyword", tuple(terms), scope, k, tuple(statuses))
        if key not in self._cache:
            self._cache[key] = self._remember(
                self._inner.keyword_search(terms, scope=scope, k=k, statuses=statuses)
            )
        return self._cache[key]

    def _remember(self, found: list[Candidate]) -> list[Candidate]:
        for c in found:
            self._refs[c.memory.id] = c.memory.source_ref
        return found

    def source_ref(self, memory_id: uuid.UUID) -> str | None:
        """``source_ref`` of a memory any leg has returned (None if none has)."""
        return self._refs.get(memory_id)

    # ------------------------------------------------------------------ passed through

    def count(self, *, scope: Scope, statuses: Sequence[MemoryStatus] = ()) -> int:
        """The inner ``count``."""
        return self._inner.count(scope=scope, statuses=statuses)

    def insert(
        self,
        items: Sequence[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
    ) -> list[InsertOutcome]:
        """The inner ``insert`` (writes are not cached: the benchmarks write before they
        search)."""
        return self._inner.insert(
            items, scope=scope, actor=actor, reason=reason, request_id=request_id
        )

    def ensure_embedding(self, model: str, dim: int) -> None:
        """The inner ``ensure_embedding``."""
        self._inner.ensure_embedding(model, dim)

    def append_event(self, event: Event, *, scope: Scope) -> None:
        """The inner ``append_event``."""
        self._inner.append_event(event, scope=scope)

    def close(self) -> None:
        """Close the inner store."""
        self._inner.close()
