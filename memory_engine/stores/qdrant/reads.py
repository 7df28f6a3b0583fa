"""The read-only part of :class:`memory_engine.stores.qdrant.store.QdrantStore`
(:class:`QdrantReader`: listings, counts, history, events, traces, the dense and keyword
retrieval legs and the server-side hybrid query).

Every query carries the scope's tenant filter (``tenant_id`` has a keyword payload index with
``is_tenant=True``); reads by id are filtered scrolls (``HasIdCondition`` AND the scope), never
bare ``retrieve`` calls, so another tenant's id answers "not found".
"""

from __future__ import annotations

import builtins
import logging
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from qdrant_client import models

from memory_engine.errors import MemoryNotFoundError
from memory_engine.models import (
    Candidate,
    Memory,
    MemoryFilter,
    MemoryStatus,
    Page,
    Scope,
    Trace,
)
from memory_engine.stores.base import StoreStats
from memory_engine.stores.common import (
    WRITE_ACTIONS,
    check_k,
    check_limit,
    decode_cursor,
    encode_cursor,
    not_found,
    query_vector_param,
    stats_start,
    store_stats,
    writes_series,
)
from memory_engine.stores.qdrant.codec import (
    COMMITTED,
    DENSE,
    KEYWORD,
    event_from_payload,
    match,
    match_any,
    memory_filter,
    memory_from_payload,
    query_vector,
    scope_filter,
    search_filter,
    status_values,
    to_us,
    us_range,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import newest_first

logger = logging.getLogger("memory_engine.stores.qdrant.store")

_FACETS = ("memory_type", "status", "source")


class QdrantReader:
    """The read-only methods of the Qdrant store (listings, counts, history, events, traces and
    the retrieval legs), over the store's connection.

    Args:
        conn: the store's connection.
    """

    def __init__(self, conn: QdrantConnection) -> None:
        self._conn = conn
        self._settings = conn.settings

    # ------------------------------------------------------------------ memories

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        """One memory of any status (``embedding`` is not loaded).

        Raises:
            MemoryNotFoundError: no such memory in the scope (also for another tenant's id).
        """
        point = self._conn.fetch(str(memory_id), scope)
        if point is None:
            raise not_found(memory_id, scope)
        return memory_from_payload(point.payload)

    def list(
        self,
        *,
        scope: Scope,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """Memories newest first (created_at desc, id desc), keyset-paginated.

        ``limit`` is clamped to ``settings.limits.list_max_limit``; ``total`` counts every point
        matching the filter; ``truncated`` is True when more pages follow.

        Raises:
            InvalidInputError: limit < 1 or a malformed cursor.
        """
        limit = check_limit(limit, self._settings.limits.list_max_limit)
        after = _time_cursor(cursor)
        if not self._conn.memories_exist():
            return Page(items=[], total=0)
        flt = memory_filter(scope, filters)
        total = self._conn.count(self._conn.memories, flt)
        with self._conn.reading() as client:
            rows = newest_first(
                client,
                self._conn.memories,
                flt,
                key="created_us",
                limit=limit + 1,
                after=after,
                ident=lambda r: r.id,
            )
        items = [memory_from_payload(r.payload) for r in rows[:limit]]
        more = len(rows) > limit
        next_cursor = encode_cursor(items[-1].created_at, items[-1].id) if more else None
        return Page(items=items, total=total, next_cursor=next_cursor, truncated=more)

    def facet_counts(
        self, *, scope: Scope, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """Counts per ``memory_type``, ``status`` and ``source`` of the points under the filter
        (Qdrant facets, exact)."""
        out: dict[str, dict[str, int]] = {key: {} for key in _FACETS}
        if not self._conn.memories_exist():
            return out
        flt = memory_filter(scope, filters)
        for key in _FACETS:
            out[key] = self._conn.facet(self._conn.memories, key, flt, 100)
        return out

    def count(self, *, scope: Scope, statuses: Sequence[MemoryStatus] = ()) -> int:
        """Number of memories in scope (every status when ``statuses`` is empty).

        Raises:
            InvalidInputError: an unknown status.
        """
        f = MemoryFilter(statuses=tuple(MemoryStatus(s) for s in status_values(statuses)))
        if not self._conn.memories_exist():
            return 0
        return self._conn.count(self._conn.memories, memory_filter(scope, f))

    def stats(self, *, scope: Scope, days: int = 90) -> StoreStats:
        """Counts of the scope (all statuses) and committed change events per UTC day.

        ``writes_per_day`` covers the last ``days`` UTC dates including today, oldest first,
        zero-filled; a write is a create/update/archive/restore/supersede/delete/purge/merge
        event.

        Raises:
            InvalidInputError: ``days`` outside 1..3660.
        """
        start = stats_start(days)
        facets = self.facet_counts(scope=scope)
        start_us = to_us(datetime(start.year, start.month, start.day, tzinfo=UTC))
        flt = scope_filter(
            scope,
            match("state", COMMITTED),
            match_any("action", list(WRITE_ACTIONS)),
            us_range("at_us", gte=start_us),
        )
        per_day = self._conn.facet(self._conn.events, "day", flt, days + 1)
        return store_stats(facets, writes_series(start, days, per_day))

    # ------------------------------------------------------------------ events

    def history(self, memory_id: uuid.UUID, *, scope: Scope, limit: int = 200) -> Page:
        """Committed events of one memory, oldest first (also after a purge).

        Raises:
            MemoryNotFoundError: neither the memory nor any event of it is in the scope.
        """
        limit = check_limit(limit, self._settings.limits.list_max_limit)
        flt = scope_filter(scope, match("memory_id", str(memory_id)), match("state", COMMITTED))
        with self._conn.reading() as client:
            rows, _ = client.scroll(
                self._conn.events,
                scroll_filter=flt,
                limit=limit + 1,
                order_by=models.OrderBy(key="seq", direction=models.Direction.ASC),
            )
        if not rows:
            self.get(memory_id, scope=scope)  # raises MemoryNotFoundError when absent
        items = [event_from_payload(r.payload) for r in rows[:limit]]
        total = self._conn.count(self._conn.events, flt) if len(rows) > limit else len(items)
        return Page(items=items, total=total, truncated=len(rows) > limit)

    def events(self, *, scope: Scope, limit: int = 100, cursor: str | None = None) -> Page:
        """Committed events of the scope, newest first, keyset-paginated by event id."""
        limit = check_limit(limit, self._settings.limits.list_max_limit)
        flt = scope_filter(scope, match("state", COMMITTED))
        page_flt = flt
        if cursor:
            (c_id,) = decode_cursor(cursor, "i")
            page_flt = scope_filter(scope, match("state", COMMITTED), us_range("seq", lt=c_id))
        with self._conn.reading() as client:
            rows, _ = client.scroll(
                self._conn.events,
                scroll_filter=page_flt,
                limit=limit + 1,
                order_by=models.OrderBy(key="seq", direction=models.Direction.DESC),
            )
        items = [event_from_payload(r.payload) for r in rows[:limit]]
        more = len(rows) > limit
        return Page(
            items=items,
            total=self._conn.count(self._conn.events, flt),
            next_cursor=encode_cursor(items[-1].id) if more and items[-1].id else None,
            truncated=more,
        )

    # ------------------------------------------------------------------ traces

    def get_trace(self, trace_id: uuid.UUID, *, scope: Scope) -> Trace:
        """One trace of the scope.

        Raises:
            MemoryNotFoundError: no such trace in the scope.
        """
        with self._conn.reading() as client:
            found, _ = client.scroll(
                self._conn.traces,
                scroll_filter=scope_filter(scope, match("trace_id", str(trace_id))),
                limit=1,
            )
        if not found:
            raise MemoryNotFoundError(f"trace {trace_id} not found", trace_id=trace_id)
        return Trace.model_validate((found[0].payload or {})["trace"])

    def list_traces(self, *, scope: Scope, limit: int = 50, cursor: str | None = None) -> Page:
        """Traces newest first; items are ``{id, query, created_at, returned}`` dicts.

        ``returned`` is the number of candidates not dropped.
        """
        limit = check_limit(limit, self._settings.limits.list_max_limit)
        after = _time_cursor(cursor)
        flt = scope_filter(scope)
        with self._conn.reading() as client:
            rows = newest_first(
                client,
                self._conn.traces,
                flt,
                key="created_us",
                limit=limit + 1,
                after=after,
                ident=lambda r: (r.payload or {})["trace_id"],
                with_payload=["trace_id", "query", "created_at", "created_us", "returned"],
            )
        items = []
        for r in rows[:limit]:
            p = r.payload or {}
            items.append(
                {
                    "id": uuid.UUID(p["trace_id"]),
                    "query": p["query"],
                    "created_at": datetime.fromisoformat(p["created_at"]),
                    "returned": int(p["returned"]),
                }
            )
        more = len(rows) > limit
        last = items[-1] if more else None
        return Page(
            items=items,
            total=self._conn.count(self._conn.traces, flt),
            next_cursor=encode_cursor(last["created_at"], last["id"]) if last else None,
            truncated=more,
        )

    # ------------------------------------------------------------------ retrieval legs

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
        using: str = DENSE,
        dim: int | None = None,
    ) -> builtins.list[Candidate]:
        """Nearest memories by cosine; ``min(k, matching points)`` candidates, scores ``cosine``
        (in [-1, 1], higher is more similar), ranks ``dense`` 1..n (or ``using``: an extra
        leg's named vector of ``dim`` dimensions, over the points that have it).

        Local mode is exact. On a server the HNSW search (``exact=False``) is checked: when it
        returns fewer than ``min(k, matching)`` points it is logged and re-run with
        ``exact=True``.

        Raises:
            InvalidInputError: k outside 1..1000, a bad query vector or no status.
            EmbeddingMismatchError: the query vector's length is not the store's dimension.
        """
        check_k(k)
        flt = search_filter(scope, statuses)
        if using != DENSE:
            flt.must = [*(flt.must or ()), models.HasVectorCondition(has_vector=using)]
        if not self._conn.memories_exist():
            return []
        want_dim = self._conn.dim() if using == DENSE else dim
        vec = query_vector_param(vector, want_dim).tolist()
        with self._conn.reading() as client:
            params = None if self._conn.local else models.SearchParams(exact=False)
            points = client.query_points(
                self._conn.memories,
                query=vec,
                using=using,
                query_filter=flt,
                limit=k,
                search_params=params,
            ).points
            if not self._conn.local and len(points) < k:
                matching = int(
                    client.count(self._conn.memories, count_filter=flt, exact=True).count
                )
                if matching > len(points):
                    logger.warning(
                        "dense search: HNSW returned %d of %d points (tenant %s); re-running "
                        "exactly",
                        len(points),
                        min(k, matching),
                        scope.tenant_id,
                    )
                    points = client.query_points(
                        self._conn.memories,
                        query=vec,
                        using=using,
                        query_filter=flt,
                        limit=k,
                        search_params=models.SearchParams(exact=True),
                    ).points
        return _candidates(points, "cosine", using)

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """BM25-like keyword search over the ``keyword`` sparse vectors; scores ``bm25``.

        IDF is computed by Qdrant over the points matching scope + status (an IDF corpus
        filter equal to the search filter); term weights are BM25 tf-saturation values computed
        at write time (see :mod:`memory_engine.stores.qdrant.codec`). Duplicate and empty
        query terms are ignored. Only points sharing at least one term are returned.

        Raises:
            InvalidInputError: k outside 1..1000 or no status.
        """
        check_k(k)
        flt = search_filter(scope, statuses)
        query = query_vector(terms)
        if query is None or not self._conn.memories_exist():
            return []
        with self._conn.reading() as client:
            points = client.query_points(
                self._conn.memories,
                query=query,
                using=KEYWORD,
                query_filter=flt,
                limit=k,
                search_params=models.SearchParams(idf=models.IdfCorpusParams(corpus=flt)),
            ).points
        return _candidates([p for p in points if p.score > 0], "bm25", "keyword")

    # ------------------------------------------------------------------ hybrid (Qdrant only)

    def hybrid_request(
        self,
        vector: Sequence[float],
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        per_leg: int | None = None,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> dict[str, Any]:
        """Keyword arguments of ``query_points`` for a server-side RRF of both legs.

        The scope + status filter is in every prefetch *and* at the root. RRF uses
        ``Rrf(k=rrf_k + 1)`` because Qdrant ranks from 0: the score is then
        ``sum 1/(rrf_k + rank)`` with 1-based ranks, the engine's ``rrf``.

        Raises:
            InvalidInputError: k outside 1..1000, a bad query vector or no status.
            EmbeddingMismatchError: the query vector's length is not the store's dimension.
        """
        check_k(k)
        flt = search_filter(scope, statuses)
        leg = max(k, per_leg or self._settings.retrieval.candidates_per_leg)
        vec = query_vector_param(vector, self._conn.dim()).tolist()
        prefetch = [models.Prefetch(query=vec, using=DENSE, filter=flt, limit=leg)]
        sparse = query_vector(terms)
        if sparse is not None:
            idf = models.SearchParams(idf=models.IdfCorpusParams(corpus=flt))
            prefetch.append(
                models.Prefetch(query=sparse, using=KEYWORD, filter=flt, limit=leg, params=idf)
            )
        return {
            "collection_name": self._conn.memories,
            "prefetch": prefetch,
            "query": models.RrfQuery(rrf=models.Rrf(k=self._settings.retrieval.rrf_k + 1)),
            "query_filter": flt,
            "limit": k,
            "with_payload": True,
        }

    def hybrid_search(
        self,
        vector: Sequence[float],
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        per_leg: int | None = None,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """Dense + keyword fused by Qdrant (RRF) in one request; scores ``rrf``, ranks ``fused``.

        Not part of the MemoryStore protocol (the engine fuses itself so its trace can show
        every leg); useful for a quick server-side hybrid query.
        """
        request = self.hybrid_request(
            vector, terms, scope=scope, k=k, per_leg=per_leg, statuses=statuses
        )
        if not self._conn.memories_exist():
            return []
        with self._conn.reading() as client:
            points = client.query_points(**request).points
        return _candidates(points, "rrf", "fused")


def _time_cursor(cursor: str | None) -> tuple[int, str] | None:
    """The ``(created_us, id)`` keyset position of a ``(created_at, id)`` cursor, or None.

    Raises:
        InvalidInputError: a malformed cursor.
    """
    if not cursor:
        return None
    c_at, c_id = decode_cursor(cursor, "tu")
    return (to_us(c_at), str(c_id))


def _candidates(
    points: Sequence[models.ScoredPoint], score: str, rank: str
) -> builtins.list[Candidate]:
    return [
        Candidate(
            memory=memory_from_payload(p.payload),
            scores={score: float(p.score)},
            ranks={rank: i},
        )
        for i, p in enumerate(points, start=1)
    ]
