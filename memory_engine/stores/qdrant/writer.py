"""The write part of the Qdrant store (:class:`QdrantWriter`): insert, update and purge of
memories under the write protocol, the per-tenant keyword statistics and the content-hash
owners they keep, and traces.

Every change of a memory is (1) its event written ``pending`` (2) the point upserted or
deleted (3) the event marked ``committed`` (:class:`~.events.QdrantEventLog`); see
:mod:`memory_engine.stores.qdrant.store` for the whole protocol.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, timedelta
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, MemoryStatus, Scope, Trace, utcnow
from memory_engine.stores.base import EXTRA_LEGS, InsertOutcome, NewMemory
from memory_engine.stores.common import (
    check_trace_scope,
    check_update,
    check_version,
    dedupe_inserts,
    dedupe_key,
    embedded_with,
    merged_memory,
    not_found,
    scoped_memory,
    vector_param,
)
from memory_engine.stores.qdrant.codec import (
    DENSE,
    KEYWORD,
    bm25_doc_vector,
    derived_id,
    event_payload,
    match,
    match_any,
    memory_from_payload,
    memory_payload,
    memory_point,
    scope_filter,
    to_us,
    us_range,
    utc_memory,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.entities import QdrantEntities, entity_keys_of
from memory_engine.stores.qdrant.events import QdrantEventLog
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.qdrant.lifecycle import redact_in
from memory_engine.stores.redaction import erase_quotes

_ACTIVE = MemoryStatus.ACTIVE.value


class QdrantWriter:
    """Insert, update, purge and save_trace of the Qdrant store.

    Args:
        conn: the store's connection.
        log: the store's event log (event ids, commit marks, verification).
        entities: the store's entity records (written before a memory point names them,
            pruned after a purge or relink leaves them unlinked).
    """

    def __init__(
        self, conn: QdrantConnection, log: QdrantEventLog, entities: QdrantEntities
    ) -> None:
        self._conn = conn
        self._log = log
        self._settings = conn.settings
        self.entities = entities

    # ------------------------------------------------------------------ keyword statistics

    def tenant_stats(self, client: QdrantClient, tenant: str) -> tuple[int, int]:
        """(memories, total keyword terms) of the tenant, for the BM25 average length."""
        pid = derived_id("stats", tenant)
        flt = models.Filter(must=[models.HasIdCondition(has_id=[pid]), match("tenant_id", tenant)])
        rows, _ = client.scroll(self._conn.meta, scroll_filter=flt, limit=1)
        p = (rows[0].payload or {}) if rows else {}
        return int(p.get("docs", 0)), int(p.get("terms", 0))

    def add_tenant_stats(self, client: QdrantClient, tenant: str, docs: int, terms: int) -> None:
        have_docs, have_terms = self.tenant_stats(client, tenant)
        payload = {
            "kind": "tenant_stats",
            "tenant_id": tenant,
            "docs": max(0, have_docs + docs),
            "terms": max(0, have_terms + terms),
        }
        client.upsert(
            self._conn.meta,
            [models.PointStruct(id=derived_id("stats", tenant), vector={}, payload=payload)],
        )

    def active_owners(
        self, client: QdrantClient, tenant: str, hashes: list[str]
    ) -> dict[tuple[str, str], uuid.UUID]:
        """(user_id or "", content_hash) -> id of the ACTIVE memories holding those hashes."""
        if not hashes:
            return {}
        flt = models.Filter(
            must=[
                match("tenant_id", tenant),
                match("status", _ACTIVE),
                match_any("content_hash", hashes),
            ]
        )
        rows = scroll_all(
            client, self._conn.memories, flt, with_payload=["user_id", "content_hash"]
        )
        return {
            ((r.payload or {}).get("user_id") or "", str((r.payload or {})["content_hash"])): (
                uuid.UUID(str(r.id))
            )
            for r in rows
        }

    def insert(
        self,
        items: Sequence[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
    ) -> list[InsertOutcome]:
        """Insert memories with one ``create`` event each (atomic per memory, see module doc).

        An ACTIVE item whose non-empty ``content_hash`` equals an ACTIVE memory of the same
        tenant and user (or an earlier item of the batch) is not inserted: its outcome is
        ``duplicate`` with ``existing_id`` and no event is written. When no embedding model is
        recorded yet, the first item's ``embedding_model`` and vector length are recorded.

        Raises:
            TenantScopeError: an item's tenant/user/agent/session contradicts the scope.
            InvalidInputError: bad vector, id already used, or no embedding model known.
            EmbeddingMismatchError: an item names another embedding model.
        """
        if not items:
            return []
        model, dim = self._conn.model_dim(items[0])
        prepared: list[tuple[Memory, list[float], list[str]]] = []
        for item in items:
            mem = embedded_with(utc_memory(scoped_memory(item.memory, scope)), model)
            vec = vector_param(item.embedding, dim, "embedding").tolist()
            prepared.append((mem, vec, [str(t) for t in item.terms if t]))
        ids = [str(m.id) for m, _, _ in prepared]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("the batch holds the same memory id twice")

        with self._conn.writing() as client:
            taken = client.retrieve(self._conn.memories, ids, with_payload=False)
            if taken:  # ids are global (like PostgreSQL's primary key), checked by id only
                raise InvalidInputError(f"memory id already exists: {taken[0].id}")
            hashes = sorted({m.content_hash for m, _, _ in prepared if m.content_hash})
            existing = self.active_owners(client, scope.tenant_id, hashes)
            outcomes, keep = dedupe_inserts([m for m, _, _ in prepared], existing)
            new = [prepared[i] for i in keep]
            if new:
                self._insert_new(client, new, scope.tenant_id, actor, reason, request_id)
        if new:
            self._conn.check_size(self._conn.memories)
            self._conn.check_size(self._conn.events)
        return outcomes

    def _insert_new(
        self,
        client: QdrantClient,
        new: list[tuple[Memory, list[float], list[str]]],
        tenant: str,
        actor: str,
        reason: str | None,
        request_id: str | None,
    ) -> None:
        docs, total_terms = self.tenant_stats(client, tenant)
        added_terms = sum(len(t) for _, _, t in new)
        avgdl = (total_terms + added_terms) / (docs + len(new))
        self.entities.remember(client, tenant, (mem for mem, _, _ in new))
        seqs = self._log.next_seqs(len(new))
        events = [
            models.PointStruct(
                id=seq,
                vector={},
                payload=event_payload(
                    seq, mem, "create", actor, after=mem, reason=reason, request_id=request_id
                ),
            )
            for seq, (mem, _, _) in zip(seqs, new, strict=True)
        ]
        client.upsert(self._conn.events, events)  # (1) pending events
        self._log.step_done("event")
        points = [memory_point(mem, vec, terms, avgdl) for mem, vec, terms in new]
        client.upsert(self._conn.memories, points, update_mode=models.UpdateMode.INSERT_ONLY)  # (2)
        self._log.step_done("point")
        self._log.commit(client, seqs)  # (3)
        self.add_tenant_stats(client, tenant, len(new), added_terms)

    def update(
        self,
        memory_id: uuid.UUID,
        *,
        scope: Scope,
        expected_version: int,
        changes: dict[str, Any],
        embedding: Sequence[float] | None = None,
        terms: Sequence[str] | None = None,
        actor: str,
        reason: str | None = None,
        action: str = "update",
        request_id: str | None = None,
    ) -> Memory:
        """Apply ``changes``, bump ``version``, write the ``action`` event (pending -> point ->
        committed).

        Args:
            changes: subset of content, content_hash, importance, memory_type, tags, entities,
                status, superseded_by, valid_from, valid_until, metadata, confidence.
            embedding: new vector (replaces the stored one) or None.
            terms: new keyword terms (replace the stored ones) or None.
            action: update, archive, restore, supersede, delete or merge.

        Raises:
            InvalidInputError: unknown change key or action, invalid value, or the change would
                make two active memories with the same content.
            MemoryNotFoundError: no such memory in the scope.
            VersionConflictError: ``expected_version`` is not the current version.
        """
        check_update(memory_id, changes, action)
        vec = None
        if embedding is not None:
            vec = vector_param(embedding, self._conn.dim(), "embedding").tolist()
        with self._conn.writing() as client:
            point = self._conn.fetch(str(memory_id), scope, with_vectors=True)
            if point is None:
                raise not_found(memory_id, scope)
            before = memory_from_payload(point.payload)
            check_version(before, expected_version)
            merged = merged_memory(before, changes)
            after = utc_memory(merged).model_copy(
                update={"version": before.version + 1, "updated_at": utcnow()}
            )
            key = dedupe_key(after)
            if key is not None:
                owners = self.active_owners(client, scope.tenant_id, [key[1]])
                other = owners.get(key)
                if other is not None and other != memory_id:
                    raise InvalidInputError(
                        "an active memory with the same content already exists",
                        memory_id=memory_id,
                    )
            old_len = int((point.payload or {}).get("doc_len", 0))
            vectors: dict[str, Any] = dict(point.vector or {})
            if vec is not None:
                vectors[DENSE] = vec
                for leg in EXTRA_LEGS:  # made from the old content: refilled, never stale
                    vectors.pop(leg, None)
            new_terms = [str(t) for t in terms if t] if terms is not None else None
            if new_terms is not None:
                docs, total = self.tenant_stats(client, scope.tenant_id)
                avgdl = (total - old_len + len(new_terms)) / max(docs, 1)
                vectors[KEYWORD] = bm25_doc_vector(new_terms, avgdl)
            doc_len = len(new_terms) if new_terms is not None else old_len
            kept = (point.payload or {}).get("terms")
            payload_terms = new_terms if new_terms is not None else kept
            relinked = after.entities != before.entities
            if relinked:
                self.entities.remember(client, scope.tenant_id, [after])
            (seq,) = self._log.next_seqs(1)
            event = event_payload(
                seq,
                after,
                action,
                actor,
                before=before,
                after=after,
                reason=reason,
                request_id=request_id,
            )
            client.upsert(self._conn.events, [models.PointStruct(id=seq, vector={}, payload=event)])
            self._log.step_done("event")
            client.upsert(
                self._conn.memories,
                [
                    models.PointStruct(
                        id=str(memory_id),
                        vector=vectors,
                        payload=memory_payload(after, doc_len, payload_terms),
                    )
                ],
                update_filter=scope_filter(scope, match("version", expected_version)),
                update_mode=models.UpdateMode.UPDATE_ONLY,
            )
            self._log.step_done("point")
            self._log.verify(client, seq, memory_id, scope, expect_version=after.version)
            self._log.commit(client, [seq])
            if new_terms is not None:
                self.add_tenant_stats(client, scope.tenant_id, 0, len(new_terms) - old_len)
            if relinked:
                self.entities.drop_unlinked(
                    client,
                    scope.tenant_id,
                    set(entity_keys_of(before)) - set(entity_keys_of(after)),
                )
        self._conn.check_size(self._conn.events)
        return after

    def purge(
        self,
        memory_id: uuid.UUID,
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        expected_version: int | None = None,
    ) -> None:
        """Erase a memory: delete the point (payload, dense and keyword vectors), write a
        ``purge`` event (pending -> delete -> committed), then redact the content from every
        event snapshot of the memory and from stored traces (idempotent, see
        :func:`~.lifecycle.redact_in`).

        Raises:
            MemoryNotFoundError: no such memory in the scope.
            VersionConflictError: ``expected_version`` is stale, or (server mode) the memory
                changed while it was being purged.
        """
        with self._conn.writing() as client:
            point = self._conn.fetch(str(memory_id), scope)
            if point is None:
                raise not_found(memory_id, scope)
            before = memory_from_payload(point.payload)
            if expected_version is not None:
                check_version(before, expected_version)
            (seq,) = self._log.next_seqs(1)
            reason = erase_quotes(reason, before.content)
            event = event_payload(seq, before, "purge", actor, before=before, reason=reason)
            client.upsert(self._conn.events, [models.PointStruct(id=seq, vector={}, payload=event)])
            self._log.step_done("event")
            selector = scope_filter(
                scope,
                models.HasIdCondition(has_id=[str(memory_id)]),
                match("version", before.version),
            )
            client.delete(
                self._conn.memories, points_selector=models.FilterSelector(filter=selector)
            )
            self._log.step_done("point")
            self._log.verify(client, seq, memory_id, scope, expect_version=None)
            self._log.commit(client, [seq])
            doc_len = int((point.payload or {}).get("doc_len", 0))
            self.add_tenant_stats(client, scope.tenant_id, -1, -doc_len)
            self.entities.drop_unlinked(client, scope.tenant_id, entity_keys_of(before))
            redact_in(client, self._conn, memory_id, scope.tenant_id, before.content)

    # ------------------------------------------------------------------ traces

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """Store a trace, then drop the oldest traces of its client (same user and agent id)
        beyond ``trace_retention``, the tenant's traces older than ``trace_retention_days``
        before this one, and the tenant's oldest beyond ``trace_retention_tenant``.

        Traces are immutable: saving an id that is already stored keeps the stored one.

        Raises:
            TenantScopeError: the trace belongs to another tenant than the scope.
        """
        check_trace_scope(trace, scope)
        keep = self._settings.storage.trace_retention
        if keep == 0:
            return
        created = (
            trace.created_at if trace.created_at.tzinfo else trace.created_at.replace(tzinfo=UTC)
        )
        payload = {
            "tenant_id": scope.tenant_id,
            "user_id": trace.scope.user_id,
            "agent_id": trace.scope.agent_id,
            "session_id": trace.scope.session_id,
            "trace_id": str(trace.id),
            "created_at": created.astimezone(UTC).isoformat(),
            "created_us": to_us(created),
            "query": trace.query,
            "returned": sum(1 for c in trace.candidates if c.dropped is None),
            "trace": trace.model_dump(mode="json"),
        }
        point = models.PointStruct(
            id=derived_id("trace", scope.tenant_id, str(trace.id)), vector={}, payload=payload
        )
        storage = self._settings.storage
        tenant = scope_filter(Scope.of(scope.tenant_id))
        caller = models.Filter(
            must=[
                *(tenant.must if isinstance(tenant.must, list) else []),
                *(_same_or_null(k, getattr(trace.scope, k)) for k in ("user_id", "agent_id")),
            ]
        )
        with self._conn.writing() as client:
            client.upsert(self._conn.traces, [point], update_mode=models.UpdateMode.INSERT_ONLY)
            for flt, limit in ((caller, keep), (tenant, storage.trace_retention_tenant)):
                if flt is tenant and storage.trace_retention_days > 0:
                    cutoff = created - timedelta(days=storage.trace_retention_days)
                    old = scope_filter(
                        Scope.of(scope.tenant_id), us_range("created_us", lt=to_us(cutoff))
                    )
                    client.delete(
                        self._conn.traces, points_selector=models.FilterSelector(filter=old)
                    )
                count = int(client.count(self._conn.traces, count_filter=flt, exact=True).count)
                if count > limit:
                    self._drop_oldest_traces(client, flt, count - limit)
        self._conn.check_size(self._conn.traces)

    def _drop_oldest_traces(self, client: QdrantClient, tenant: models.Filter, n: int) -> None:
        """Delete the ``n`` oldest traces matching ``tenant`` (a tenant or a client filter)."""
        keys = ["created_us", "trace_id"]
        rows, _ = client.scroll(
            self._conn.traces,
            scroll_filter=tenant,
            limit=n,
            order_by=models.OrderBy(key="created_us", direction=models.Direction.ASC),
            with_payload=keys,
        )
        if not rows:
            return
        edge = int((rows[-1].payload or {})["created_us"])
        must = list(tenant.must) if isinstance(tenant.must, list) else []
        tie = models.Filter(must=[*must, match("created_us", edge)])
        by_id = {r.id: r for r in rows}
        by_id.update(
            {r.id: r for r in scroll_all(client, self._conn.traces, tie, with_payload=keys)}
        )
        oldest = sorted(
            by_id.values(),
            key=lambda r: (
                int((r.payload or {})["created_us"]),
                str((r.payload or {})["trace_id"]),
            ),
        )[:n]
        client.delete(self._conn.traces, points_selector=[r.id for r in oldest])


def _same_or_null(key: str, value: str | None) -> models.Condition:
    """``key == value``, or ``key`` is null/absent when ``value`` is None."""
    if value is None:
        return models.IsNullCondition(is_null=models.PayloadField(key=key))
    return match(key, value)
