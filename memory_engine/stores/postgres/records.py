"""Copy support of the PostgreSQL store (:class:`PgRecords`, a part of PostgresStore):
listing, reading and writing whole memory records (row, vector, terms, events) verbatim, and
the audited list of tenants. Used by :mod:`memory_engine.stores.transfer`.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Iterator, Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from memory_engine.errors import InvalidInputError, TransferConflictError
from memory_engine.models import Page, Scope
from memory_engine.stores.base import MemoryRecord, NewMemory
from memory_engine.stores.common import (
    RECORDS_PURGED,
    RECORDS_STORED,
    assemble_records,
    check_limit,
    check_record_ids,
    check_records,
    events_in_time_order,
    parse_record_cursor,
    record_cursor,
    record_owner,
)
from memory_engine.stores.postgres.connection import PgConnection
from memory_engine.stores.postgres.entities import link_memories
from memory_engine.stores.postgres.keyword import lock_tenant
from memory_engine.stores.postgres.sql import (
    EVENT_COLUMNS,
    MEMORY_COLUMNS,
    columns,
    event_from_row,
    memory_from_row,
)
from memory_engine.stores.postgres.writes import copy_memories, copy_rows, prepare_row

_EVENT_IMPORT_COLUMNS = (
    "tenant_id",
    "user_id",
    "agent_id",
    "session_id",
    "memory_id",
    "action",
    "actor",
    "at",
    "before",
    "after",
    "reason",
    "request_id",
    "details",
)
_EVENT_IMPORT_TYPES = (
    "text",
    "text",
    "text",
    "text",
    "uuid",
    "text",
    "text",
    "timestamptz",
    "jsonb",
    "jsonb",
    "text",
    "text",
    "jsonb",
)


class PgRecords:
    """Record listing/reading/writing of the PostgreSQL store (see MemoryStore)."""

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn

    def admin_tenant_ids(self, *, actor: str, reason: str) -> builtins.list[str]:
        """Every tenant with a memory (any status) or an event, sorted; audited in
        ``admin_audit`` (owner role, like ``admin_tenant_counts``).

        Raises:
            InvalidInputError: empty actor or reason.
        """
        rows = self._conn.admin_rows(
            "tenant_ids",
            "SELECT tenant_id FROM memories UNION SELECT tenant_id FROM events ORDER BY tenant_id",
            actor=actor,
            reason=reason,
        )
        return [str(r[0]) for r in rows]

    def record_ids(self, *, scope: Scope, limit: int = 500, cursor: str | None = None) -> Page:
        """Ids of the tenant's memory records: stored memories by id, then purged memories
        by purge event id (see MemoryStore.record_ids).

        Raises:
            InvalidInputError: limit < 1 or a malformed cursor.
        """
        limit = check_limit(limit, self._conn.settings.limits.list_max_limit)
        phase, last = parse_record_cursor(cursor)
        t = scope.tenant_id
        purged_sql = (
            "FROM events e WHERE e.tenant_id = %(t)s AND e.action = 'purge' AND NOT EXISTS "
            "(SELECT 1 FROM memories m WHERE m.tenant_id = e.tenant_id AND m.id = e.memory_id)"
        )
        items: list[uuid.UUID] = []
        next_cursor = None
        with self._conn.tx(scope) as cur:
            total_row = cur.execute(
                f"SELECT (SELECT count(*) FROM memories WHERE tenant_id = %(t)s) + "
                f"(SELECT count(DISTINCT e.memory_id) {purged_sql})",
                {"t": t},
            ).fetchone()
            total = int(total_row[0]) if total_row else 0
            if phase == RECORDS_STORED:
                rows = cur.execute(
                    "SELECT id FROM memories WHERE tenant_id = %(t)s "
                    "AND (%(last)s::uuid IS NULL OR id > %(last)s::uuid) ORDER BY id LIMIT %(n)s",
                    {"t": t, "last": last, "n": limit + 1},
                ).fetchall()
                items = [r[0] for r in rows[:limit]]
                if len(rows) > limit:
                    next_cursor = record_cursor(RECORDS_STORED, items[-1])
                else:  # stored memories done: purged ones next (this page or the next)
                    phase, last = RECORDS_PURGED, 0
                    next_cursor = record_cursor(RECORDS_PURGED, 0)
            if phase == RECORDS_PURGED and len(items) < limit:
                room = limit - len(items)
                rows = cur.execute(
                    f"SELECT e.id, e.memory_id {purged_sql} AND e.id > %(last)s "
                    "ORDER BY e.id LIMIT %(n)s",
                    {"t": t, "last": int(last or 0), "n": room + 1},
                ).fetchall()
                items.extend(r[1] for r in rows[:room])
                if len(rows) > room:
                    next_cursor = record_cursor(RECORDS_PURGED, int(rows[room - 1][0]))
                else:
                    next_cursor = None
        return Page(items=items, total=total, next_cursor=next_cursor, truncated=bool(next_cursor))

    def read_records(
        self, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> builtins.list[MemoryRecord]:
        """One record per id, in order: row + vector + terms, and the events oldest first.

        Raises:
            InvalidInputError: more than ``list_max_limit`` ids, or a repeated id.
        """
        ids = check_record_ids(memory_ids, self._conn.settings.limits.list_max_limit)
        if not ids:
            return []
        params = {"t": scope.tenant_id, "ids": ids}
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT {}, embedding, terms FROM memories "
                    "WHERE tenant_id = %(t)s AND id = ANY(%(ids)s)"
                ).format(columns(MEMORY_COLUMNS)),
                params,
            ).fetchall()
            ev_rows = cur.execute(
                sql.SQL(
                    "SELECT {} FROM events WHERE tenant_id = %(t)s AND memory_id = ANY(%(ids)s) "
                    "ORDER BY id"
                ).format(columns(EVENT_COLUMNS)),
                params,
            ).fetchall()
        n = len(MEMORY_COLUMNS)
        stored = {
            r[0]: (
                memory_from_row(r[:n]),
                vector_floats(r[n]),
                tuple(str(x) for x in (r[n + 1] or ())),
            )
            for r in rows
        }
        return assemble_records(ids, stored, (event_from_row(r) for r in ev_rows))

    def write_records(self, records: Sequence[MemoryRecord], *, scope: Scope) -> None:
        """Write records verbatim in ONE transaction (see MemoryStore.write_records).

        Raises:
            TransferConflictError: an id or an event of it already exists, or an active memory
                with the same content; nothing is written.
            TenantScopeError, InvalidInputError, EmbeddingMismatchError: bad records.
        """
        check_records(records, scope)
        if not records:
            return
        ids = [r.memory_id for r in records]
        tenant = Scope.of(scope.tenant_id)
        stored = [r for r in records if r.memory is not None]
        rows = []
        if stored:
            first = NewMemory(
                memory=stored[0].memory,
                embedding=stored[0].embedding or (),
                terms=stored[0].terms or (),
            )
            model, dim = self._conn.model_dim(first)
            rows = [
                prepare_row(
                    NewMemory(memory=r.memory, embedding=r.embedding or (), terms=r.terms or ()),
                    tenant,
                    model,
                    dim,
                )
                for r in stored
            ]
        owners = {r.memory_id: record_owner(r) for r in records}
        with self._conn.tx(tenant) as cur:
            lock_tenant(cur, scope.tenant_id)
            taken = cur.execute(
                "SELECT id FROM memories WHERE id = ANY(%(ids)s) UNION "
                "SELECT memory_id FROM events WHERE tenant_id = %(t)s AND memory_id = ANY(%(ids)s)",
                {"ids": ids, "t": scope.tenant_id},
            ).fetchall()
            if taken:
                raise TransferConflictError(
                    f"the target already holds {len(taken)} of these memory ids",
                    tenant_id=scope.tenant_id,
                    memory_ids=",".join(sorted(str(r[0]) for r in taken)[:10]),
                )
            if rows:
                try:
                    copy_memories(cur, rows)
                except InvalidInputError as exc:
                    raise TransferConflictError(
                        f"cannot write: {exc.message}", tenant_id=scope.tenant_id
                    ) from exc
                link_memories(cur, scope.tenant_id, (r.memory for r in rows))
            _insert_events(cur, _event_rows(events_in_time_order(records), owners))


def _insert_events(cur: psycopg.Cursor[Any], rows: Iterator[tuple[Any, ...]]) -> None:
    """COPY the copied events (with their own ``at``) into the session temp table
    ``staged_copied_events`` (its own name: ``staged_events`` of the insert path has other
    columns), then one ``INSERT ... SELECT ... ORDER BY ord``, so new event ids follow the
    given order."""
    cols = columns(_EVENT_IMPORT_COLUMNS)
    cur.execute(
        sql.SQL(
            "CREATE TEMP TABLE IF NOT EXISTS staged_copied_events ON COMMIT DELETE ROWS AS "
            "SELECT 0 AS ord, {} FROM events WITH NO DATA"
        ).format(cols)
    )
    cur.execute("DELETE FROM staged_copied_events")
    copy_rows(
        cur,
        "staged_copied_events",
        ("ord", *_EVENT_IMPORT_COLUMNS),
        ("int4", *_EVENT_IMPORT_TYPES),
        ((i, *row) for i, row in enumerate(rows)),
    )
    cur.execute(
        sql.SQL(
            "INSERT INTO events ({cols}) SELECT {cols} FROM staged_copied_events ORDER BY ord"
        ).format(cols=cols)
    )


def vector_floats(value: Any) -> tuple[float, ...] | None:
    """A pgvector value (``Vector`` in binary results, numpy array in text ones) as floats."""
    if value is None:
        return None
    values = value.to_list() if hasattr(value, "to_list") else value
    return tuple(float(x) for x in values)


def _event_rows(
    events: Sequence[Any], owners: dict[uuid.UUID, dict[str, str | None]]
) -> Iterator[tuple[Any, ...]]:
    for ev in events:
        owner = owners[ev.memory_id]
        yield (
            ev.tenant_id,
            owner["user_id"],
            owner["agent_id"],
            owner["session_id"],
            ev.memory_id,
            ev.action.value,
            ev.actor,
            ev.at,
            Jsonb(ev.before) if ev.before is not None else None,
            Jsonb(ev.after) if ev.after is not None else None,
            ev.reason,
            ev.request_id,
            Jsonb(ev.details),
        )
