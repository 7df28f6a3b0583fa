"""The entity index of the Qdrant store.

Links live in the memory point itself: its payload field ``entity_keys`` (the keys of
``Memory.entities``, :func:`memory_engine.stores.qdrant.codec.memory_payload`), so a memory
and its links are written by the same point upsert and deleted by the same point delete.
The entities (display name as first seen, kind, creation time) are points of the
``<prefix>_entities`` collection, id ``entities.entity_id(tenant, key)``, payload
``tenant_id`` (tenant index), ``key``, ``name``, ``kind``, ``created_at``. They are written
``INSERT_ONLY`` before the memory point (so the first display name stays, and a crash in
between leaves at most an entity without links, which no listing shows); the entities a
purge or an update leaves without a link are deleted after the memory's change is committed.

Counts come from an exact facet over ``entity_keys`` of the memories matching the scope, so
only entities linked in the scope are listed.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.entities import entity_id
from memory_engine.models import Entity, Memory, MemoryStatus, Page, Scope, utcnow
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
from memory_engine.stores.qdrant.codec import (
    derived_id,
    match,
    match_any,
    memory_from_payload,
    scope_filter,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import scroll_all

#: Payload field of a memory point holding its entity keys.
ENTITY_KEYS = "entity_keys"


class QdrantEntities:
    """Entity records and the reads of :class:`~memory_engine.stores.base.EntityIndex`."""

    def __init__(self, conn: QdrantConnection) -> None:
        self._conn = conn

    # ------------------------------------------------------------------ writes (under the lock)

    def remember(self, client: QdrantClient, tenant_id: str, memories: Iterable[Memory]) -> None:
        """Write the entities the memories name that are not stored yet (``INSERT_ONLY``)."""
        points: dict[str, models.PointStruct] = {}
        now = utcnow().isoformat()
        for memory in memories:
            for ref in link_refs(memory):
                pid = str(entity_id(tenant_id, ref.key))
                if pid in points:
                    continue
                points[pid] = models.PointStruct(
                    id=pid,
                    vector={},
                    payload={
                        "tenant_id": tenant_id,
                        "key": ref.key,
                        "name": ref.name,
                        "kind": ref.kind,
                        "created_at": now,
                    },
                )
        if points:
            client.upsert(
                self._conn.entities,
                list(points.values()),
                update_mode=models.UpdateMode.INSERT_ONLY,
            )

    def drop_unlinked(self, client: QdrantClient, tenant_id: str, keys: Iterable[str]) -> int:
        """Delete the entities of ``keys`` no memory of the tenant is linked to any more.
        Returns how many were deleted."""
        gone: list[str] = []
        for key in sorted(set(keys)):
            linked = 0
            if self._conn.memories_exist():
                flt = models.Filter(must=[match("tenant_id", tenant_id), match(ENTITY_KEYS, key)])
                linked = int(client.count(self._conn.memories, count_filter=flt, exact=True).count)
            if linked == 0:
                gone.append(str(entity_id(tenant_id, key)))
        if gone:
            flt = models.Filter(
                must=[match("tenant_id", tenant_id), models.HasIdCondition(has_id=list(gone))]
            )
            client.delete(self._conn.entities, points_selector=models.FilterSelector(filter=flt))
        return len(gone)

    def backfill(self) -> int:
        """Link the memory points written before the entity index (once per store: a meta
        point records that it ran). Returns the number of points linked."""
        done_id = derived_id("entities_backfilled")
        with self._conn.writing() as client:
            if client.retrieve(self._conn.meta, [done_id]):
                return 0
            if not self._conn.memories_exist():  # a new store: nothing to link, ever
                self._mark(client, done_id)
                return 0
            flt = models.Filter(
                must_not=[models.IsEmptyCondition(is_empty=models.PayloadField(key="entities"))],
                must=[models.IsEmptyCondition(is_empty=models.PayloadField(key=ENTITY_KEYS))],
            )
            rows = scroll_all(client, self._conn.memories, flt)
            by_tenant: dict[str, list[Memory]] = {}
            for r in rows:
                memory = memory_from_payload(r.payload)
                by_tenant.setdefault(memory.tenant_id, []).append(memory)
            linked = 0
            for tenant, memories in sorted(by_tenant.items()):
                memories.sort(key=lambda m: (m.created_at, str(m.id)))  # first seen names it
                self.remember(client, tenant, memories)
                for memory in memories:
                    keys = entity_keys_of(memory)
                    if keys:
                        client.set_payload(
                            self._conn.memories,
                            payload={ENTITY_KEYS: keys},
                            points=models.Filter(
                                must=[
                                    match("tenant_id", tenant),
                                    models.HasIdCondition(has_id=[str(memory.id)]),
                                ]
                            ),
                        )
                        linked += 1
            self._mark(client, done_id)
        return linked

    def _mark(self, client: QdrantClient, done_id: str) -> None:
        client.upsert(
            self._conn.meta,
            [models.PointStruct(id=done_id, vector={}, payload={"kind": "entities_backfilled"})],
        )

    # ------------------------------------------------------------------ reads

    def _records(self, tenant_id: str, keys: Sequence[str]) -> dict[str, Entity]:
        if not keys:
            return {}
        ids = [str(entity_id(tenant_id, k)) for k in keys]
        flt = models.Filter(must=[match("tenant_id", tenant_id), models.HasIdCondition(has_id=ids)])
        with self._conn.reading() as client:
            rows = scroll_all(client, self._conn.entities, flt, cap=len(ids))
        out: dict[str, Entity] = {}
        for r in rows:
            p: dict[str, Any] = r.payload or {}
            key = str(p["key"])
            out[key] = entity_record(
                tenant_id,
                key,
                str(p.get("name") or key),
                p.get("kind"),
                datetime.fromisoformat(str(p["created_at"])),
            )
        return out

    def list_entities(
        self, *, scope: Scope, limit: int = 50, statuses: Sequence[MemoryStatus] = ()
    ) -> Page:
        """See :meth:`memory_engine.stores.base.EntityIndex.list_entities`."""
        limit = entity_limit(limit, self._conn.settings.limits.list_max_limit)
        wanted = status_filter(statuses)
        if not self._conn.memories_exist():
            return Page(items=[], total=None, truncated=False)
        flt = scope_filter(scope, match_any("status", wanted))
        counts = self._conn.facet(self._conn.memories, ENTITY_KEYS, flt, limit + 1)
        ranked, truncated = ranked_keys(counts, limit)
        records = self._records(scope.tenant_id, [k for k, _ in ranked])
        return entity_page(scope, ranked, truncated, records)

    def memory_entities(self, memory_id: uuid.UUID, *, scope: Scope) -> builtins.list[Entity]:
        """See :meth:`memory_engine.stores.base.EntityIndex.memory_entities`."""
        point = self._conn.fetch(str(memory_id), scope)
        if point is None:
            raise not_found(memory_id, scope)
        memory = memory_from_payload(point.payload)
        return ordered_entities(memory, self._records(scope.tenant_id, entity_keys_of(memory)))


def entity_keys_of(memory: Memory) -> list[str]:
    """The keys a memory point stores in ``entity_keys``."""
    return [ref.key for ref in link_refs(memory)]
