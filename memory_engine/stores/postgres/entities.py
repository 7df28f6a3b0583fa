"""The entity index of the PostgreSQL store (migration 0004): links written inside the
memory's own transaction, and the reads of :class:`~memory_engine.stores.base.EntityIndex`.

Writers call :func:`link_memories` with the cursor of the transaction that inserted the
memories, :func:`relink_memory` when an update changes ``entities`` and
:func:`unlink_memory` before a purge deletes the row, so a memory and its links commit or
roll back together. Entities are inserted with ``ON CONFLICT (tenant_id, key) DO NOTHING``:
the first display name written stays.
"""

from __future__ import annotations

import builtins
import logging
import uuid
from collections.abc import Iterable, Sequence
from typing import Any

import psycopg
from psycopg import sql

from memory_engine.entities import entity_id
from memory_engine.models import Entity, Memory, MemoryStatus, Page, Scope
from memory_engine.stores.common import not_found
from memory_engine.stores.entities import (
    entity_limit,
    entity_page,
    entity_record,
    link_refs,
    ordered_entities,
    ranked_keys,
    status_filter,
)
from memory_engine.stores.postgres.connection import PgConnection
from memory_engine.stores.postgres.reads import select_memory
from memory_engine.stores.postgres.sql import scope_filter

logger = logging.getLogger(__name__)


def link_memories(cur: psycopg.Cursor[Any], tenant_id: str, memories: Iterable[Memory]) -> int:
    """Insert the entities the ``memories`` name (when new) and one link per (memory, entity);
    two statements whatever the batch size. Returns the number of links written."""
    ent_ids: list[uuid.UUID] = []
    keys: list[str] = []
    names: list[str] = []
    kinds: list[str | None] = []
    seen: set[str] = set()
    l_mem: list[uuid.UUID] = []
    l_ent: list[uuid.UUID] = []
    l_pos: list[int] = []
    for memory in memories:
        for pos, ref in enumerate(link_refs(memory)):
            eid = entity_id(tenant_id, ref.key)
            if ref.key not in seen:
                seen.add(ref.key)
                ent_ids.append(eid)
                keys.append(ref.key)
                names.append(ref.name)
                kinds.append(ref.kind)
            l_mem.append(memory.id)
            l_ent.append(eid)
            l_pos.append(pos)
    if not l_mem:
        return 0
    cur.execute(
        "INSERT INTO entities (id, tenant_id, key, name, kind) "
        "SELECT e.id, %(t)s, e.key, e.name, e.kind "
        "FROM unnest(%(ids)s::uuid[], %(keys)s::text[], %(names)s::text[], %(kinds)s::text[]) "
        "AS e(id, key, name, kind) ORDER BY e.key "
        "ON CONFLICT (tenant_id, key) DO NOTHING",
        {"t": tenant_id, "ids": ent_ids, "keys": keys, "names": names, "kinds": kinds},
    )
    cur.execute(
        "INSERT INTO entity_links (tenant_id, memory_id, entity_id, position) "
        "SELECT %(t)s, l.m, l.e, l.p "
        "FROM unnest(%(m)s::uuid[], %(e)s::uuid[], %(p)s::int[]) AS l(m, e, p) "
        "ON CONFLICT DO NOTHING",
        {"t": tenant_id, "m": l_mem, "e": l_ent, "p": l_pos},
    )
    return len(l_mem)


def unlink_memory(cur: psycopg.Cursor[Any], tenant_id: str, memory_id: uuid.UUID) -> int:
    """Delete the memory's links, then every entity of them left without a link. Returns
    the number of entities deleted."""
    rows = cur.execute(
        "DELETE FROM entity_links WHERE tenant_id = %s AND memory_id = %s RETURNING entity_id",
        [tenant_id, memory_id],
    ).fetchall()
    if not rows:
        return 0
    cur.execute(
        "DELETE FROM entities e WHERE e.tenant_id = %(t)s AND e.id = ANY(%(ids)s) "
        "AND NOT EXISTS (SELECT 1 FROM entity_links l "
        "WHERE l.tenant_id = e.tenant_id AND l.entity_id = e.id)",
        {"t": tenant_id, "ids": sorted({r[0] for r in rows})},
    )
    return int(cur.rowcount or 0)


def relink_memory(cur: psycopg.Cursor[Any], memory: Memory) -> None:
    """Make the memory's links those of its current ``entities`` (after an update)."""
    unlink_memory(cur, memory.tenant_id, memory.id)
    link_memories(cur, memory.tenant_id, [memory])


def backfill_links(conn: PgConnection) -> int:
    """Link every stored memory that names entities (once, when migration 0004 is applied to
    a store holding memories). Runs as the owner with row-level security lifted for the
    transaction (``NO FORCE``, restored before commit), like the backfill of 0002."""
    with conn.owner_tx() as cur:
        for table in ("memories", "entities", "entity_links"):
            cur.execute(
                sql.SQL("ALTER TABLE {} NO FORCE ROW LEVEL SECURITY").format(sql.Identifier(table))
            )
        rows = cur.execute(
            "SELECT tenant_id, id, entities, created_at, metadata FROM memories "
            "WHERE cardinality(entities) > 0 ORDER BY tenant_id, created_at, id"
        ).fetchall()
        by_tenant: dict[str, list[Memory]] = {}
        for tenant, mid, names, created, meta in rows:
            by_tenant.setdefault(tenant, []).append(
                Memory(
                    id=mid,
                    tenant_id=tenant,
                    content="-",
                    entities=tuple(names or ()),
                    created_at=created,
                    metadata=meta or {},
                )
            )
        linked = sum(link_memories(cur, t, ms) for t, ms in by_tenant.items())
        for table in ("memories", "entities", "entity_links"):
            cur.execute(
                sql.SQL("ALTER TABLE {} FORCE ROW LEVEL SECURITY").format(sql.Identifier(table))
            )
    if linked:
        logger.info("entity index: linked %d stored memories (%d links)", len(rows), linked)
    return linked


class PgEntities:
    """The reads of :class:`~memory_engine.stores.base.EntityIndex` over a PgConnection."""

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn

    def list_entities(
        self, *, scope: Scope, limit: int = 50, statuses: Sequence[MemoryStatus] = ()
    ) -> Page:
        """See :meth:`memory_engine.stores.base.EntityIndex.list_entities`."""
        limit = entity_limit(limit, self._conn.settings.limits.list_max_limit)
        params: dict[str, Any] = {"statuses": status_filter(statuses), "n": limit + 1}
        where = scope_filter(scope, params, alias="m")
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT e.key, e.name, e.kind, e.created_at, c.n FROM ("
                    "SELECT l.entity_id, count(*) AS n FROM entity_links l "
                    "JOIN memories m ON m.tenant_id = l.tenant_id AND m.id = l.memory_id "
                    "WHERE l.tenant_id = %(scope_tenant)s AND {} "
                    "AND m.status = ANY(%(statuses)s) GROUP BY l.entity_id) c "
                    "JOIN entities e ON e.tenant_id = %(scope_tenant)s AND e.id = c.entity_id "
                    'ORDER BY c.n DESC, e.key COLLATE "C" LIMIT %(n)s'
                ).format(where),
                params,
            ).fetchall()
        counts = {str(r[0]): int(r[4]) for r in rows}
        records = {
            str(k): entity_record(scope.tenant_id, str(k), str(name), kind, created)
            for k, name, kind, created, _ in rows
        }
        ranked, truncated = ranked_keys(counts, limit)
        return entity_page(scope, ranked, truncated, records)

    def memory_entities(self, memory_id: uuid.UUID, *, scope: Scope) -> builtins.list[Entity]:
        """See :meth:`memory_engine.stores.base.EntityIndex.memory_entities`."""
        with self._conn.tx(scope) as cur:
            memory = select_memory(cur, memory_id, scope)
            if memory is None:
                raise not_found(memory_id, scope)
            rows = cur.execute(
                "SELECT e.key, e.name, e.kind, e.created_at FROM entity_links l "
                "JOIN entities e ON e.tenant_id = l.tenant_id AND e.id = l.entity_id "
                "WHERE l.tenant_id = %s AND l.memory_id = %s",
                [scope.tenant_id, memory_id],
            ).fetchall()
        records = {
            str(k): entity_record(scope.tenant_id, str(k), str(name), kind, created)
            for k, name, kind, created in rows
        }
        return ordered_entities(memory, records)
