"""Recall legs of one search: dense (embed + vector search) and keyword (BM25), per query.

When the store says it can (``SearchIndex.concurrent_legs``: PostgreSQL, a Qdrant server) the
dense and the keyword leg of every query run at the same time on a small shared thread pool,
each on its own pooled connection; the search then waits about as long as its slowest leg
instead of the sum (at 100k memories the two legs took about 18 ms and 15 ms). Qdrant local
mode (one embedded storage object) runs them one after the other.

Timings are per stage in ms (``terms``, ``embed_query``, ``dense``, ``keyword``), summed over
the queries; with concurrent legs they overlap, so their sum can exceed the wall time.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from functools import partial
from typing import TypeVar

from memory_engine import text as textmod
from memory_engine.embedding.base import Embedder
from memory_engine.embedding.batching import query_embedding
from memory_engine.models import MemoryStatus, Scope
from memory_engine.retrieval.normfusion import leg_score_key
from memory_engine.retrieval.records import Hit, Scored
from memory_engine.stores.base import SearchIndex

T = TypeVar("T")

#: Worker threads shared by every search of the process (legs are I/O-bound database calls).
LEG_WORKERS = 4

_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def _executor() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(LEG_WORKERS, thread_name_prefix="memory-legs")
        return _pool


class _Immediate:
    """Runs the call at once in this thread; ``result()`` returns or re-raises (no pool)."""

    def __init__(self, fn: Callable[[], T]) -> None:
        try:
            self._value: object = fn()
            self._error: BaseException | None = None
        except BaseException as exc:  # re-raised by result(), like a Future
            self._error = exc

    def result(self) -> object:
        if self._error is not None:
            raise self._error
        return self._value


def _timed(timings: dict[str, float], lock: threading.Lock, stage: str) -> Callable[[float], None]:
    def add(started: float) -> None:
        with lock:
            timings[stage] = timings.get(stage, 0.0) + (time.perf_counter() - started) * 1000

    return add


def run_legs(
    queries: Sequence[str],
    *,
    scope: Scope,
    legs: Sequence[str],
    depth: int,
    statuses: Sequence[MemoryStatus],
    store: SearchIndex,
    embedder: Embedder | None,
    warnings: list[str],
    extra_legs: Mapping[str, Embedder] | None = None,
    skip: frozenset[str] = frozenset(),
) -> tuple[dict[str, Sequence[Scored]], dict[str, float], list[str]]:
    """Run the wanted legs for every query.

    Args:
        queries: the main query first, then expansions; leg names get ``@x<i>`` for the i-th.
        scope: tenant and narrowing ids passed to every leg.
        legs: which of ``"dense"`` and ``"keyword"`` to run (dense needs an embedder).
        depth: candidates per leg (>= 1).
        statuses: allowed statuses.
        store: the candidate searches (any ``SearchIndex``).
        embedder: embeds each query for the dense leg; None skips the dense leg.
        warnings: appended to when a query has no keyword terms (its keyword leg is skipped).
        extra_legs: extra dense legs to run with ``dense`` (leg name, e.g. ``dense_ml`` ->
            its embedder), searched with ``store.leg_search``; their cosine is written as
            ``cosine_<suffix>`` (``cosine_ml``) so each leg keeps its own score. Their timings
            are ``embed_query:<leg>`` and ``<leg>``.
        skip: dense legs (``dense``, ``dense_ml``) not to run for any query: their query is
            not embedded and they are returned empty (a leg whose fusion weight is 0 for
            this query adds nothing, see ``pipeline.run_search``).

    Returns:
        (candidates per leg name in store rank order, timings in ms per stage, the main
        query's keyword terms).

    Raises:
        Whatever a leg raises (store or embedder errors), after every leg has finished.
    """
    timings: dict[str, float] = {}
    lock = threading.Lock()
    parallel = store.concurrent_legs
    submit: Callable[[Callable[[], Sequence[Scored]]], Future[Sequence[Scored]] | _Immediate]
    submit = _executor().submit if parallel else _Immediate
    pending: list[tuple[str, Future[Sequence[Scored]] | _Immediate | None]] = []
    first_terms: list[str] = []

    def dense(q: str) -> Sequence[Scored]:
        assert embedder is not None
        started = time.perf_counter()
        with query_embedding():
            vector = embedder.embed([q])[0]
        _timed(timings, lock, "embed_query")(started)
        started = time.perf_counter()
        try:
            return store.dense_search(vector, scope=scope, k=depth, statuses=statuses)
        finally:
            _timed(timings, lock, "dense")(started)

    def extra(leg: str, emb: Embedder, q: str) -> Sequence[Scored]:
        started = time.perf_counter()
        with query_embedding():
            vector = emb.embed([q])[0]
        _timed(timings, lock, f"embed_query:{leg}")(started)
        started = time.perf_counter()
        key = leg_score_key(leg)
        # the guarded store searches a leg itself; a bare store through its ``legs`` part
        search = getattr(store, "leg_search", None) or store.legs.leg_search  # type: ignore[attr-defined]
        try:
            found = search(leg, vector, scope=scope, k=depth, statuses=statuses)
        finally:
            _timed(timings, lock, leg)(started)
        return [
            Hit(c.memory, {key: c.scores["cosine"]}, {leg: c.ranks.get(leg, i)})
            for i, c in enumerate(found, start=1)
        ]

    def keyword(terms: list[str]) -> Sequence[Scored]:
        started = time.perf_counter()
        try:
            return store.keyword_search(terms, scope=scope, k=depth, statuses=statuses)
        finally:
            _timed(timings, lock, "keyword")(started)

    for i, q in enumerate(queries):
        suffix = f"@x{i}" if i else ""
        started = time.perf_counter()
        terms = textmod.query_terms(q)
        _timed(timings, lock, "terms")(started)
        if i == 0:
            first_terms = terms
        if "dense" in legs and embedder is not None:
            if "dense" in skip:
                pending.append(("dense" + suffix, None))
            else:
                pending.append(("dense" + suffix, submit(partial(dense, q))))
            for leg, emb in (extra_legs or {}).items():
                if leg in skip:
                    pending.append((leg + suffix, None))
                else:
                    pending.append((leg + suffix, submit(partial(extra, leg, emb, q))))
        if "keyword" in legs:
            if terms:
                pending.append(("keyword" + suffix, submit(partial(keyword, terms))))
            else:
                pending.append(("keyword" + suffix, None))
                warnings.append(
                    "query has no keyword terms; keyword leg skipped"
                    if i == 0
                    else f"expansion {i} has no keyword terms; its keyword leg skipped"
                )
    out: dict[str, Sequence[Scored]] = {}
    error: BaseException | None = None
    for name, fut in pending:  # wait for every leg, even after a failure (no stray work)
        try:
            out[name] = [] if fut is None else fut.result()  # type: ignore[assignment]
        except BaseException as exc:
            error = error or exc
    if error is not None:
        raise error
    return out, timings, first_terms
