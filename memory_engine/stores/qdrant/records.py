"""Copy support of the Qdrant store (:class:`QdrantRecords`, a part of QdrantStore):
listing, reading and writing whole memory records (point, vector, terms, events) verbatim, and
the audited cross-tenant reads (tenant ids, tenant counts). Used by :mod:`memory_engine.stores.transfer`.

``write_records`` follows the store's write protocol: (1) every copied event is written
``pending`` with ``import_point`` (whether its record has a memory point), (2) the points are
inserted (``INSERT_ONLY``), (3) the events are marked ``committed``. After a crash the
reconciler commits an imported event when its point exists (or it has none to wait for, a
purged memory's history) and rolls it back otherwise, so a re-run of the copy finds either
the whole record or nothing of it.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Sequence
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.errors import InvalidInputError, TransferConflictError
from memory_engine.models import Memory, MemoryStatus, Page, Scope
from memory_engine.stores.base import MemoryRecord
from memory_engine.stores.common import (
    RECORDS_PURGED,
    RECORDS_STORED,
    assemble_records,
    check_admin_read,
    check_limit,
    check_record_ids,
    check_records,
    dedupe_key,
    embedded_with,
    events_in_time_order,
    parse_record_cursor,
    record_cursor,
    record_owner,
    vector_param,
)
from memory_engine.stores.qdrant.codec import (
    COMMITTED,
    DENSE,
    PENDING,
    event_from_payload,
    imported_event_payload,
    match,
    match_any,
    memory_from_payload,
    memory_point,
    scope_filter,
    us_range,
    utc_memory,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.events import QdrantEventLog
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.qdrant.writer import QdrantWriter


class QdrantRecords:
    """Record listing/reading/writing and the audited cross-tenant reads of the Qdrant store
    (see RecordTransfer and AdminOps).

    Args:
        conn: the store's connection.
        log: the store's event log (event ids, commit marks, admin audit).
        writer: the store's writer (keyword statistics, content-hash owners).
    """

    def __init__(self, conn: QdrantConnection, log: QdrantEventLog, writer: QdrantWriter) -> None:
        self._conn = conn
        self._log = log
        self._writer = writer
        self._settings = conn.settings

    def admin_tenant_counts(self, *, actor: str, reason: str) -> dict[str, int]:
        """Active + archived memories per tenant, across tenants; audited.

        The one read that spans tenants (an exact facet over ``tenant_id``); it writes an
        ``admin_read`` event (actor, time, reason, number of tenants) that no tenant sees.

        Raises:
            InvalidInputError: empty actor or reason.
        """
        check_admin_read(actor, reason)
        counts: dict[str, int] = {}
        with self._conn.writing() as client:
            if self._conn.memories_exist():
                hits = client.facet(
                    self._conn.memories,
                    "tenant_id",
                    facet_filter=models.Filter(
                        must=[
                            match_any(
                                "status", [MemoryStatus.ACTIVE.value, MemoryStatus.ARCHIVED.value]
                            )
                        ]
                    ),
                    limit=1_000_000,
                    exact=True,
                ).hits
                counts = {
                    str(h.value): int(h.count) for h in sorted(hits, key=lambda h: str(h.value))
                }
            self._log.admin_audit(
                client, actor, reason, {"what": "tenant_counts", "tenants": len(counts)}
            )
        return counts

    def admin_tenant_ids(self, *, actor: str, reason: str) -> builtins.list[str]:
        """Every tenant with a memory (any status) or an event, sorted (exact facets over
        ``tenant_id``); audited with an ``admin_read`` event.

        Raises:
            InvalidInputError: empty actor or reason.
        """
        check_admin_read(actor, reason)
        tenants: set[str] = set()
        with self._conn.writing() as client:
            for collection in (self._conn.memories, self._conn.events):
                if collection == self._conn.memories and not self._conn.memories_exist():
                    continue
                hits = client.facet(collection, "tenant_id", limit=1_000_000, exact=True).hits
                tenants.update(str(h.value) for h in hits if h.value)
            self._log.admin_audit(
                client, actor, reason, {"what": "tenant_ids", "tenants": len(tenants)}
            )
        return sorted(tenants)

    def _purge_filter(self, scope: Scope, *extra: models.Condition) -> models.Filter:
        return scope_filter(
            Scope.of(scope.tenant_id), match("action", "purge"), match("state", COMMITTED), *extra
        )

    def record_ids(self, *, scope: Scope, limit: int = 500, cursor: str | None = None) -> Page:
        """Ids of the tenant's memory records: stored memories in point-id order, then purged
        memories by purge event id (see MemoryStore.record_ids).

        Raises:
            InvalidInputError: limit < 1 or a malformed cursor.
        """
        limit = check_limit(limit, self._settings.limits.list_max_limit)
        phase, key = parse_record_cursor(cursor)
        tenant = scope_filter(Scope.of(scope.tenant_id))
        has_mem = self._conn.memories_exist()
        total = self._conn.count(self._conn.events, self._purge_filter(scope))
        if has_mem:
            total += self._conn.count(self._conn.memories, tenant)
        items: list[uuid.UUID] = []
        next_cursor = None
        if phase == RECORDS_STORED:
            offset: Any = str(key) if key is not None else None
            if has_mem:
                with self._conn.reading() as client:
                    rows, offset = client.scroll(
                        self._conn.memories,
                        scroll_filter=tenant,
                        limit=limit,
                        offset=offset,
                        with_payload=False,
                    )
                items = [uuid.UUID(str(r.id)) for r in rows]
            else:
                offset = None
            if offset is not None:  # the next page starts at ``offset`` (inclusive)
                next_cursor = record_cursor(RECORDS_STORED, uuid.UUID(str(offset)))
            else:  # stored memories done: purged ones next (this page or the next)
                phase, key = RECORDS_PURGED, 0
                next_cursor = record_cursor(RECORDS_PURGED, 0)
        if phase == RECORDS_PURGED and len(items) < limit:
            room = limit - len(items)
            with self._conn.reading() as client:
                rows, _ = client.scroll(
                    self._conn.events,
                    scroll_filter=self._purge_filter(scope, us_range("seq", gt=int(key or 0))),
                    limit=room + 1,
                    order_by=models.OrderBy(key="seq", direction=models.Direction.ASC),
                    with_payload=["seq", "memory_id"],
                )
            items.extend(uuid.UUID(str((r.payload or {})["memory_id"])) for r in rows[:room])
            next_cursor = None
            if len(rows) > room:
                last_seq = int((rows[room - 1].payload or {})["seq"])
                next_cursor = record_cursor(RECORDS_PURGED, last_seq)
        return Page(items=items, total=total, next_cursor=next_cursor, truncated=bool(next_cursor))

    def read_records(
        self, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> builtins.list[MemoryRecord]:
        """One record per id, in order: point payload + ``dense`` vector + stored terms (None
        for points written before terms were kept), and the committed events oldest first.

        Raises:
            InvalidInputError: more than ``list_max_limit`` ids, or a repeated id.
        """
        ids = check_record_ids(memory_ids, self._settings.limits.list_max_limit)
        if not ids:
            return []
        tenant = Scope.of(scope.tenant_id)
        keys = [str(i) for i in ids]
        points: dict[uuid.UUID, Any] = {}
        with self._conn.reading() as client:
            if self._conn.memories_exist():
                flt = scope_filter(tenant, models.HasIdCondition(has_id=list(keys)))
                rows, _ = client.scroll(
                    self._conn.memories,
                    scroll_filter=flt,
                    limit=len(keys),
                    with_payload=True,
                    with_vectors=[DENSE],
                )
                points = {uuid.UUID(str(r.id)): r for r in rows}
            ev_flt = scope_filter(tenant, match_any("memory_id", keys), match("state", COMMITTED))
            ev_rows = scroll_all(client, self._conn.events, ev_flt)
        stored = {mid: _stored(point) for mid, point in points.items()}
        ordered = sorted(ev_rows, key=lambda r: int((r.payload or {})["seq"]))
        return assemble_records(ids, stored, (event_from_payload(r.payload) for r in ordered))

    def write_records(self, records: Sequence[MemoryRecord], *, scope: Scope) -> None:
        """Write records verbatim: pending events -> points -> committed (see module doc).

        Raises:
            TransferConflictError: a point id (of any tenant) or a live event of one of the ids
                already exists, or an active memory of the tenant holds the same content;
                nothing is written.
            TenantScopeError, InvalidInputError, EmbeddingMismatchError: bad records.
        """
        check_records(records, scope)
        if not records:
            return
        tenant = scope.tenant_id
        stored = [r for r in records if r.memory is not None]
        recorded = self._conn.recorded_embedding()
        if recorded is None and stored:
            first = stored[0]
            assert first.memory is not None and first.embedding is not None
            model = first.memory.embedding_model
            if not model:
                raise InvalidInputError("no embedding model recorded or named by the record")
            self._conn.ensure_embedding(model, len(first.embedding))
            recorded = self._conn.recorded_embedding()
        prepared = []
        for rec in stored:
            assert recorded is not None and rec.memory is not None
            mem = embedded_with(utc_memory(rec.memory), recorded[0])
            vec = vector_param(rec.embedding or (), recorded[1], "embedding").tolist()
            prepared.append((mem, vec, [str(t) for t in rec.terms or ()]))
        keys = [str(r.memory_id) for r in records]
        with self._conn.writing() as client:
            self._check_free(client, tenant, keys, [m for m, _, _ in prepared])
            docs, total_terms = self._writer.tenant_stats(client, tenant)
            added = sum(len(t) for _, _, t in prepared)
            avgdl = (total_terms + added) / max(docs + len(prepared), 1)
            owners = {r.memory_id: record_owner(r) for r in records}
            has_point = {r.memory_id: r.memory is not None for r in records}
            ordered = events_in_time_order(records)
            seqs = self._log.next_seqs(len(ordered)) if ordered else []
            events = [
                models.PointStruct(
                    id=seq,
                    vector={},
                    payload=imported_event_payload(
                        seq,
                        ev,
                        owners[ev.memory_id],  # type: ignore[index]
                        import_point=has_point[ev.memory_id],  # type: ignore[index]
                    ),
                )
                for seq, ev in zip(seqs, ordered, strict=True)
            ]
            if events:
                client.upsert(self._conn.events, events)  # (1)
            self._log.step_done("event")
            if prepared:
                self._writer.entities.remember(client, tenant, (m for m, _, _ in prepared))
                points = [memory_point(mem, vec, terms, avgdl) for mem, vec, terms in prepared]
                client.upsert(
                    self._conn.memories, points, update_mode=models.UpdateMode.INSERT_ONLY
                )  # (2)
            self._log.step_done("point")
            if seqs:
                self._log.commit(client, seqs)  # (3)
            if prepared:
                self._writer.add_tenant_stats(client, tenant, len(prepared), added)
        self._conn.check_size(self._conn.memories)
        self._conn.check_size(self._conn.events)

    def _check_free(
        self, client: QdrantClient, tenant: str, keys: list[str], memories: list[Any]
    ) -> None:
        """Raise TransferConflictError unless the ids are unused (points of any tenant, live
        events of the tenant) and no other active memory holds one of the active hashes."""
        taken: set[str] = set()
        if self._conn.memories_exist():
            taken.update(
                str(r.id) for r in client.retrieve(self._conn.memories, keys, with_payload=False)
            )
        live = scope_filter(
            Scope.of(tenant), match_any("memory_id", keys), match_any("state", [PENDING, COMMITTED])
        )
        taken.update(
            str((r.payload or {})["memory_id"])
            for r in scroll_all(client, self._conn.events, live, with_payload=["memory_id"])
        )
        if taken:
            raise TransferConflictError(
                f"the target already holds {len(taken)} of these memory ids",
                tenant_id=tenant,
                memory_ids=",".join(sorted(taken)[:10]),
            )
        active = [(m.id, key) for m in memories if (key := dedupe_key(m)) is not None]
        if active and self._conn.memories_exist():
            hashes = sorted({content_hash for _, (_, content_hash) in active})
            owners = self._writer.active_owners(client, tenant, hashes)
            clash = [mid for mid, key in active if owners.get(key) not in (None, mid)]
            if clash:
                raise TransferConflictError(
                    "an active memory with the same content already exists in the target",
                    tenant_id=tenant,
                    memory_ids=",".join(str(i) for i in clash[:10]),
                )


def _stored(
    point: Any,
) -> tuple[Memory, tuple[float, ...] | None, tuple[str, ...] | None]:
    """(memory, ``dense`` vector, stored terms) of a memory point; terms are None for points
    written before terms were kept."""
    vec = (point.vector or {}).get(DENSE) if isinstance(point.vector, dict) else None
    kept = (point.payload or {}).get("terms")
    return (
        memory_from_payload(point.payload),
        tuple(float(x) for x in vec) if vec is not None else None,
        tuple(str(t) for t in kept) if kept is not None else None,
    )
