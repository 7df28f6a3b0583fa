"""Read-only queries of the PostgreSQL store (:class:`PgReader`, a part of PostgresStore):
memories, facets, counts, stats, events and traces, each in one tenant transaction of the
shared :class:`~memory_engine.stores.postgres.connection.PgConnection`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from memory_engine.errors import (
    MemoryNotFoundError,
)
from memory_engine.models import Memory, MemoryFilter, MemoryStatus, Page, Scope, Trace
from memory_engine.stores.base import StoreStats
from memory_engine.stores.common import (
    WRITE_ACTIONS,
    check_limit,
    decode_cursor,
    encode_cursor,
    not_found,
    stats_start,
    status_values,
    store_stats,
    writes_series,
)
from memory_engine.stores.postgres.connection import PgConnection
from memory_engine.stores.postgres.sql import (
    EVENT_COLUMNS,
    MEMORY_COLUMNS,
    columns,
    event_from_row,
    memory_filter,
    memory_from_row,
    scope_filter,
)


def select_memory(
    cur: psycopg.Cursor[Any], memory_id: uuid.UUID, scope: Scope, *, lock: bool = False
) -> Memory | None:
    """The memory ``memory_id`` of the scope (``FOR UPDATE`` when ``lock``), or None."""
    params: dict[str, Any] = {"id": memory_id}
    row = cur.execute(
        sql.SQL("SELECT {} FROM memories WHERE id = %(id)s AND {}{}").format(
            columns(MEMORY_COLUMNS),
            scope_filter(scope, params),
            sql.SQL(" FOR UPDATE" if lock else ""),
        ),
        params,
    ).fetchone()
    return memory_from_row(row) if row is not None else None


class PgReader:
    """The read-only queries of :class:`PostgresStore` over its :class:`PgConnection`."""

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn

    # ------------------------------------------------------------------ reads

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        """One memory of any status (``embedding`` is not loaded).

        Raises:
            MemoryNotFoundError: no such memory in the scope (also for another tenant's id).
        """
        with self._conn.tx(scope) as cur:
            memory = select_memory(cur, memory_id, scope)
        if memory is None:
            raise not_found(memory_id, scope)
        return memory

    def list(
        self,
        *,
        scope: Scope,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """Memories newest first (created_at desc, id desc), keyset-paginated.

        ``limit`` is clamped to ``settings.limits.list_max_limit``; ``total`` counts every row matching
        the filter; ``truncated`` is True when more pages follow.

        Raises:
            InvalidInputError: limit < 1 or a malformed cursor.
        """
        limit = check_limit(limit, self._conn.settings.limits.list_max_limit)
        params: dict[str, Any] = {"limit": limit + 1}
        where = memory_filter(scope, filters, params)
        page_where: sql.Composable = where
        if cursor:
            params["c_at"], params["c_id"] = decode_cursor(cursor, "tu")
            page_where = sql.SQL("{} AND (created_at, id) < (%(c_at)s, %(c_id)s)").format(where)
        with self._conn.tx(scope) as cur:
            total_row = cur.execute(
                sql.SQL("SELECT count(*) FROM memories WHERE {}").format(where), params
            ).fetchone()
            rows = cur.execute(
                sql.SQL(
                    "SELECT {} FROM memories WHERE {} ORDER BY created_at DESC, id DESC "
                    "LIMIT %(limit)s"
                ).format(columns(MEMORY_COLUMNS), page_where),
                params,
            ).fetchall()
        items = [memory_from_row(r) for r in rows[:limit]]
        more = len(rows) > limit
        next_cursor = encode_cursor(items[-1].created_at, items[-1].id) if more else None
        total = int(total_row[0]) if total_row else 0
        return Page(items=items, total=total, next_cursor=next_cursor, truncated=more)

    def facet_counts(
        self, *, scope: Scope, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """Counts per ``memory_type``, ``status`` and ``source`` of the rows under the filter."""
        params: dict[str, Any] = {}
        where = memory_filter(scope, filters, params)
        return self._facets(where, params, scope)

    def _facets(
        self, where: sql.Composable, params: dict[str, Any], scope: Scope
    ) -> dict[str, dict[str, int]]:
        out: dict[str, dict[str, int]] = {"memory_type": {}, "status": {}, "source": {}}
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT memory_type, status, source, count(*) FROM memories WHERE {} "
                    "GROUP BY GROUPING SETS ((memory_type), (status), (source))"
                ).format(where),
                params,
            ).fetchall()
        for mtype, status, source, n in rows:
            if mtype is not None:
                out["memory_type"][mtype] = int(n)
            elif status is not None:
                out["status"][status] = int(n)
            elif source is not None:
                out["source"][source] = int(n)
        return out

    def count(self, *, scope: Scope, statuses: Sequence[MemoryStatus] = ()) -> int:
        """Number of memories in scope (every status when ``statuses`` is empty).

        Raises:
            InvalidInputError: an unknown status.
        """
        f = MemoryFilter(statuses=tuple(MemoryStatus(s) for s in status_values(statuses)))
        params: dict[str, Any] = {}
        where = memory_filter(scope, f, params)
        with self._conn.tx(scope) as cur:
            row = cur.execute(
                sql.SQL("SELECT count(*) FROM memories WHERE {}").format(where), params
            ).fetchone()
        return int(row[0]) if row else 0

    def stats(self, *, scope: Scope, days: int = 90) -> StoreStats:
        """Counts of the scope (all statuses) and change events per UTC day.

        ``writes_per_day`` covers the last ``days`` UTC dates including today, oldest first,
        zero-filled; a write is a create/update/archive/restore/supersede/delete/purge/merge
        event.

        Raises:
            InvalidInputError: ``days`` outside 1..3660.
        """
        start = stats_start(days)
        params: dict[str, Any] = {}
        where = memory_filter(scope, None, params)
        facets = self._facets(where, params, scope)
        eparams: dict[str, Any] = {"start": start, "actions": list(WRITE_ACTIONS)}
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT (at AT TIME ZONE 'UTC')::date AS d, count(*) FROM events WHERE {} "
                    "AND at >= %(start)s::date AND action = ANY(%(actions)s) GROUP BY d"
                ).format(scope_filter(scope, eparams)),
                eparams,
            ).fetchall()
        per_day = {d.isoformat(): int(n) for d, n in rows}
        return store_stats(facets, writes_series(start, days, per_day))

    def history(self, memory_id: uuid.UUID, *, scope: Scope, limit: int = 200) -> Page:
        """Events of one memory, oldest first (also after a purge).

        Raises:
            MemoryNotFoundError: neither the memory nor any event of it is in the scope.
        """
        limit = check_limit(limit, self._conn.settings.limits.list_max_limit)
        params: dict[str, Any] = {"mid": memory_id, "limit": limit + 1}
        where = sql.SQL("memory_id = %(mid)s AND {}").format(scope_filter(scope, params))
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL("SELECT {} FROM events WHERE {} ORDER BY id LIMIT %(limit)s").format(
                    columns(EVENT_COLUMNS), where
                ),
                params,
            ).fetchall()
            total_row = cur.execute(
                sql.SQL("SELECT count(*) FROM events WHERE {}").format(where), params
            ).fetchone()
        if not rows:
            self.get(memory_id, scope=scope)  # raises MemoryNotFoundError when absent
        items = [event_from_row(r) for r in rows[:limit]]
        total = int(total_row[0]) if total_row else len(items)
        return Page(items=items, total=total, truncated=len(rows) > limit)

    def events(self, *, scope: Scope, limit: int = 100, cursor: str | None = None) -> Page:
        """Events of the scope, newest first, keyset-paginated by event id."""
        limit = check_limit(limit, self._conn.settings.limits.list_max_limit)
        params: dict[str, Any] = {"limit": limit + 1}
        where = scope_filter(scope, params)
        page_where: sql.Composable = where
        if cursor:
            (params["c_id"],) = decode_cursor(cursor, "i")
            page_where = sql.SQL("{} AND id < %(c_id)s").format(where)
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL("SELECT {} FROM events WHERE {} ORDER BY id DESC LIMIT %(limit)s").format(
                    columns(EVENT_COLUMNS), page_where
                ),
                params,
            ).fetchall()
            total_row = cur.execute(
                sql.SQL("SELECT count(*) FROM events WHERE {}").format(where), params
            ).fetchone()
        items = [event_from_row(r) for r in rows[:limit]]
        more = len(rows) > limit
        return Page(
            items=items,
            total=int(total_row[0]) if total_row else None,
            next_cursor=encode_cursor(items[-1].id) if more and items[-1].id else None,
            truncated=more,
        )

    def get_trace(self, trace_id: uuid.UUID, *, scope: Scope) -> Trace:
        """One trace of the scope.

        Raises:
            MemoryNotFoundError: no such trace in the scope.
        """
        params: dict[str, Any] = {"id": trace_id}
        with self._conn.tx(scope) as cur:
            row = cur.execute(
                sql.SQL("SELECT payload FROM traces WHERE id = %(id)s AND {}").format(
                    scope_filter(scope, params)
                ),
                params,
            ).fetchone()
        if row is None:
            raise MemoryNotFoundError(f"trace {trace_id} not found", trace_id=trace_id)
        return Trace.model_validate(row[0])

    def list_traces(self, *, scope: Scope, limit: int = 50, cursor: str | None = None) -> Page:
        """Traces newest first; items are ``{id, query, created_at, returned}`` dicts.

        ``returned`` is the number of candidates not dropped.
        """
        limit = check_limit(limit, self._conn.settings.limits.list_max_limit)
        params: dict[str, Any] = {"limit": limit + 1}
        where = scope_filter(scope, params)
        page_where: sql.Composable = where
        if cursor:
            params["c_at"], params["c_id"] = decode_cursor(cursor, "tu")
            page_where = sql.SQL("{} AND (created_at, id) < (%(c_at)s, %(c_id)s)").format(where)
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT id, query, created_at, returned FROM traces WHERE {} "
                    "ORDER BY created_at DESC, id DESC LIMIT %(limit)s"
                ).format(page_where),
                params,
            ).fetchall()
            total_row = cur.execute(
                sql.SQL("SELECT count(*) FROM traces WHERE {}").format(where), params
            ).fetchone()
        items = [
            {"id": r[0], "query": r[1], "created_at": r[2], "returned": int(r[3])}
            for r in rows[:limit]
        ]
        more = len(rows) > limit
        last = items[-1] if more else None
        return Page(
            items=items,
            total=int(total_row[0]) if total_row else None,
            next_cursor=encode_cursor(last["created_at"], last["id"]) if last else None,
            truncated=more,
        )
