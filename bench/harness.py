"""Shared parts of the retrieval benchmarks (bench/locomo.py, bench/madial.py).

* ``--set key=value`` overrides of ``SearchOptions`` (JSON values: ``--set fusion="zscore"``
  or ``--set fusion=zscore``, ``--set session_weight=0.3``);
* ``--grid FILE``: a JSON list of such override dicts; every configuration is measured in one
  process and printed as one JSON line each;
* ``prefill_queries``: embeds all queries in batches first (query embedding is then not part
  of the reported search latency: the lead measures latency with bench/latency.py);
* ``CachingStore`` / ``CachingEmbedder``: wrappers that memoise ``dense_search``,
  ``keyword_search`` and ``embed`` for identical inputs, so a grid pays for the legs once and
  the rest is the in-process stages. ``CachingStore`` passes the few other store methods the
  benchmarks use straight through (writes included) and nothing else.

Measurement only: nothing here is used by the engine.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memory_engine.embedding.base import Embedder
from memory_engine.models import Candidate, Event, MemoryStatus, Scope
from memory_engine.stores.base import BulkLoader, InsertOutcome, MemoryStore, NewMemory


def add_common_args(ap: argparse.ArgumentParser) -> None:
    """Add --embedder, --set, --grid, --candidates, --legs."""
    ap.add_argument(
        "--embedder",
        choices=["minilm", "use_m3"],
        default="minilm",
        help="offline embedder (default: minilm)",
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
    ap.add_argument("--legs", default="dense,keyword", help="comma-separated legs")
    ap.add_argument("--candidates", type=int, default=100, help="candidates per leg")


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
            self._cache[key] = self._inner.dense_search(vector, scope=scope, k=k, statuses=statuses)
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
            self._cache[key] = self._inner.keyword_search(
                terms, scope=scope, k=k, statuses=statuses
            )
        return self._cache[key]

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
