"""Insert building blocks of the PostgreSQL store: row preparation, dedupe, binary COPY.

PostgreSQL refuses ``COPY FROM`` into tables with row-level security, so rows are copied (binary
``COPY``) into a session temp table first, then moved with one ``INSERT ... SELECT`` per table
and batch, which RLS checks and which fires the keyword-statistics triggers of migration 0002
once per batch instead of once per row. Dedupe by content hash is
decided in Python under the tenant's write lock (:func:`pg_keyword.lock_tenant`), which every
writer of the tenant takes first, so no other writer can insert the same content in between.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import psycopg
from psycopg import Cursor, sql
from psycopg.adapt import PyFormat
from psycopg.types.json import Jsonb

from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, Scope, ensure_utc
from memory_engine.stores.base import EXTRA_LEGS, NewMemory
from memory_engine.stores.common import dedupe_key, embedded_with, scoped_memory, vector_param
from memory_engine.stores.postgres.sql import (
    INSERT_LEG_COLUMNS,
    MEMORY_COLUMNS,
    columns,
    memory_params,
)

#: PostgreSQL types of :data:`MEMORY_COLUMNS` (binary COPY needs them).
_MEMORY_TYPES: dict[str, str] = {
    "id": "uuid",
    "entities": "text[]",
    "tags": "text[]",
    "importance": "float8",
    "confidence": "float8",
    "observed_at": "timestamptz",
    "superseded_by": "uuid",
    "valid_from": "timestamptz",
    "valid_until": "timestamptz",
    "created_at": "timestamptz",
    "updated_at": "timestamptz",
    "last_accessed_at": "timestamptz",
    "access_count": "int4",
    "version": "int4",
    "metadata": "jsonb",
}
#: Columns written by an insert: the memory columns, the vector, the keyword terms and the
#: extra legs' vectors (NULL for a leg the item carries none of), all in the same statement.
COPY_COLUMNS: tuple[str, ...] = (
    *MEMORY_COLUMNS,
    "embedding",
    "terms",
    "doc_len",
    *INSERT_LEG_COLUMNS,
)
COPY_TYPES: tuple[str, ...] = (
    *(_MEMORY_TYPES.get(c, "text") for c in MEMORY_COLUMNS),
    "vector",
    "text[]",
    "int4",
    *("vector" for _ in INSERT_LEG_COLUMNS),
)
#: Checks a new memory's leg vectors against the store's leg records (``insert_vectors`` of
#: :class:`~memory_engine.stores.postgres.legs.PgVectorLegs`).
LegCheck = Callable[[Mapping[str, Sequence[float]]], dict[str, np.ndarray]]
EVENT_COPY_COLUMNS: tuple[str, ...] = (
    "tenant_id",
    "user_id",
    "agent_id",
    "session_id",
    "memory_id",
    "action",
    "actor",
    "before",
    "after",
    "reason",
    "request_id",
    "details",
)
_EVENT_TYPES: tuple[str, ...] = (
    "text",
    "text",
    "text",
    "text",
    "uuid",
    "text",
    "text",
    "jsonb",
    "jsonb",
    "text",
    "text",
    "jsonb",
)


@dataclass(frozen=True)
class PreparedRow:
    """One validated item: the memory as stored and its values in :data:`COPY_COLUMNS` order."""

    memory: Memory
    values: tuple[Any, ...]

    @property
    def dedupe_key(self) -> tuple[str, str] | None:
        """(owner, content_hash) for active rows with a hash; None when exempt from dedupe."""
        return dedupe_key(self.memory)


def prepare_row(
    item: NewMemory, scope: Scope, model: str, dim: int, check_legs: LegCheck | None = None
) -> PreparedRow:
    """Validate one item against the scope, the recorded embedding model/dimension and (with
    ``check_legs``) the recorded legs.

    Raises:
        TenantScopeError: the item contradicts the scope.
        EmbeddingMismatchError: the item names another embedding model.
        InvalidInputError: bad vector; leg vectors without ``check_legs``, or refused by it.
    """
    if item.legs and check_legs is None:
        raise InvalidInputError("this write takes no leg vectors", legs=sorted(item.legs))
    legs = check_legs(item.legs) if check_legs is not None and item.legs else {}
    mem = embedded_with(scoped_memory(item.memory, scope), model)
    params = memory_params(mem)
    for col in ("observed_at", "valid_from", "valid_until", "created_at", "updated_at"):
        params[col] = ensure_utc(params[col])
    terms = [str(t) for t in item.terms]
    values = (
        *(params[c] for c in MEMORY_COLUMNS),
        vector_param(item.embedding, dim, "embedding"),
        terms,
        len(terms),
        *(legs.get(leg) for leg in EXTRA_LEGS),
    )
    return PreparedRow(memory=mem, values=values)


def existing_active(
    cur: Cursor[Any], tenant_id: str, keys: Iterable[tuple[str, str]]
) -> dict[tuple[str, str], uuid.UUID]:
    """Active memories of the tenant with one of the (owner, content_hash) ``keys``.

    Served by the unique partial index ``memories_active_content_hash``.
    """
    wanted = set(keys)
    if not wanted:
        return {}
    found: dict[tuple[str, str], uuid.UUID] = {}
    for mid, owner, chash in cur.execute(
        "SELECT id, coalesce(user_id, ''), content_hash FROM memories "
        "WHERE tenant_id = %s AND status = 'active' AND content_hash <> '' "
        "AND coalesce(user_id, '') = ANY(%s) AND content_hash = ANY(%s)",
        [tenant_id, sorted({o for o, _ in wanted}), sorted({h for _, h in wanted})],
    ):
        key = (str(owner), str(chash))
        if key in wanted:
            found[key] = mid
    return found


def copy_rows(
    cur: Cursor[Any],
    table: str,
    names: Sequence[str],
    types: Sequence[str],
    rows: Iterable[Sequence[Any]],
) -> None:
    """Binary ``COPY table (names) FROM STDIN`` of ``rows``."""
    query = sql.SQL("COPY {} ({}) FROM STDIN (FORMAT BINARY)").format(
        sql.Identifier(table), columns(names)
    )
    with cur.copy(query) as copy:
        copy.set_types(list(types))
        for row in rows:
            copy.write_row(row)


#: Up to this many rows, one multi-row ``INSERT ... VALUES``; above, COPY into a temp table.
VALUES_MAX_ROWS = 64


def stage_and_insert(
    cur: Cursor[Any],
    table: str,
    names: Sequence[str],
    types: Sequence[str],
    rows: Iterable[Sequence[Any]],
) -> None:
    """Insert ``rows`` with one statement: a multi-row ``INSERT ... VALUES`` for a few rows,
    else COPY into the session temp table ``staged_<table>`` (emptied at every commit) and
    ``INSERT INTO table SELECT`` from it.

    The temp table's columns are ``names`` with the COPY ``types`` (``vector`` without a
    dimension), not a copy of ``table``'s: a pooled session keeps its temp table, and a copy
    would keep the vector dimensions of its time after ``memory-engine reembed`` retyped a leg
    or the primary column (``vector(512)`` -> ``vector(768)``), refusing every later large
    insert of the new vectors. The ``INSERT ... SELECT`` checks each vector against the
    table's current column type.
    """
    rows = list(rows)
    if len(rows) <= VALUES_MAX_ROWS:
        one = sql.SQL("({})").format(
            sql.SQL(", ").join([sql.Placeholder(format=PyFormat.BINARY)] * len(names))
        )
        cur.execute(
            sql.SQL("INSERT INTO {} ({}) VALUES {}").format(
                sql.Identifier(table), columns(names), sql.SQL(", ").join([one] * len(rows))
            ),
            [v for row in rows for v in row],
        )
        return
    staged = sql.Identifier(f"staged_{table}")
    cols = columns(names)
    definition = sql.SQL(", ").join(
        sql.SQL("{} {}").format(sql.Identifier(name), sql.SQL(kind))  # kinds: code constants
        for name, kind in zip(names, types, strict=True)
    )
    cur.execute(
        sql.SQL("CREATE TEMP TABLE IF NOT EXISTS {} ({}) ON COMMIT DELETE ROWS").format(
            staged, definition
        )
    )
    cur.execute(sql.SQL("DELETE FROM {}").format(staged))
    copy_rows(cur, f"staged_{table}", names, types, rows)
    cur.execute(
        sql.SQL("INSERT INTO {} ({}) SELECT {} FROM {}").format(
            sql.Identifier(table), cols, cols, staged
        )
    )


def copy_memories(cur: Cursor[Any], rows: Iterable[PreparedRow]) -> None:
    """Insert prepared rows into ``memories`` (one INSERT statement).

    Raises:
        InvalidInputError: a memory id already exists.
    """
    try:
        stage_and_insert(cur, "memories", COPY_COLUMNS, COPY_TYPES, (r.values for r in rows))
    except psycopg.errors.UniqueViolation as exc:
        raise InvalidInputError(unique_violation_message(exc)) from exc


def unique_violation_message(exc: psycopg.errors.UniqueViolation) -> str:
    """What a unique violation on ``memories`` means for the caller."""
    if exc.diag.constraint_name == "memories_pkey":
        return f"memory id already exists: {exc}"
    return f"an active memory with the same content already exists: {exc}"


def event_values(
    memory: Memory,
    action: str,
    actor: str,
    *,
    before: Memory | None = None,
    after: Memory | None = None,
    reason: str | None = None,
    request_id: str | None = None,
) -> tuple[Any, ...]:
    """One ``events`` row in :data:`EVENT_COPY_COLUMNS` order (snapshots without vectors)."""
    return (
        memory.tenant_id,
        memory.user_id,
        memory.agent_id,
        memory.session_id,
        memory.id,
        action,
        actor,
        Jsonb(before.public_dict()) if before is not None else None,
        Jsonb(after.public_dict()) if after is not None else None,
        reason,
        request_id,
        Jsonb({}),
    )


def copy_events(cur: Cursor[Any], events: Iterable[Sequence[Any]]) -> None:
    """Insert rows made by :func:`event_values` into ``events`` (one INSERT statement)."""
    stage_and_insert(cur, "events", EVENT_COPY_COLUMNS, _EVENT_TYPES, events)


def insert_event(cur: Cursor[Any], values: Sequence[Any]) -> None:
    """INSERT one row made by :func:`event_values` (single-row changes)."""
    cur.execute(
        sql.SQL("INSERT INTO events ({}) VALUES ({})").format(
            columns(EVENT_COPY_COLUMNS),
            sql.SQL(", ").join([sql.Placeholder()] * len(EVENT_COPY_COLUMNS)),
        ),
        list(values),
    )
