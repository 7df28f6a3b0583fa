"""The write part of the Qdrant store (:class:`QdrantWriter`): insert, update and purge of
memories under the write protocol, and the per-tenant keyword statistics and the
content-hash owners they keep (traces: ``traces.py``).

Every change of a memory is (1) its event written ``pending`` (2) the point upserted or
deleted (3) the event marked ``committed`` (:class:`~.events.QdrantEventLog`); see
:mod:`memory_engine.stores.qdrant.store` for the whole protocol.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from qdrant_client import QdrantClient, models

from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, MemoryStatus, Scope, utcnow
from memory_engine.stores.base import EXTRA_LEGS, InsertOutcome, NewMemory
from memory_engine.stores.common import (
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
    utc_memory,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.entities import QdrantEntities, entity_keys_of
from memory_engine.stores.qdrant.events import QdrantEventLog
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.qdrant.lifecycle import redact_in
from memory_engine.stores.redaction import erase_quotes

#: One checked item of an insert: the memory, its vector, its keyword terms, its leg vectors.
Prepared = tuple[Memory, list[float], list[str], dict[str, list[float]]]

_ACTIVE = MemoryStatus.ACTIVE.value


class QdrantWriter:
    """Insert, update and purge of the Qdrant store.

    Args:
        conn: the store's connection.
        log: the store's event log (event ids, commit marks, verification).
        entities: the store's entity records (written before a memory point names them,
            pruned after a purge or relink leaves them unlinked).
        check_legs: checks a new memory's leg vectors against the leg records
            (``QdrantVectorLegs.insert_vectors``).
    """

    def __init__(
        self,
        conn: QdrantConnection,
        log: QdrantEventLog,
        entities: QdrantEntities,
        check_legs: Callable[[Mapping[str, Sequence[float]]], dict[str, np.ndarray]],
    ) -> None:
        self._conn = conn
        self._log = log
        self._settings = conn.settings
        self.entities = entities
        self._check_legs = check_legs

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
        prepared: list[Prepared] = []
        for item in items:
            mem = embedded_with(utc_memory(scoped_memory(item.memory, scope)), model)
            vec = vector_param(item.embedding, dim, "embedding").tolist()
            legs = {k: v.tolist() for k, v in self._check_legs(item.legs).items()}
            prepared.append((mem, vec, [str(t) for t in item.terms if t], legs))
        ids = [str(p[0].id) for p in prepared]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("the batch holds the same memory id twice")

        with self._conn.writing() as client:
            taken = client.retrieve(self._conn.memories, ids, with_payload=False)
            if taken:  # ids are global (like PostgreSQL's primary key), checked by id only
                raise InvalidInputError(f"memory id already exists: {taken[0].id}")
            hashes = sorted({p[0].content_hash for p in prepared if p[0].content_hash})
            existing = self.active_owners(client, scope.tenant_id, hashes)
            outcomes, keep = dedupe_inserts([p[0] for p in prepared], existing)
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
        new: list[Prepared],
        tenant: str,
        actor: str,
        reason: str | None,
        request_id: str | None,
    ) -> None:
        docs, total_terms = self.tenant_stats(client, tenant)
        added_terms = sum(len(p[2]) for p in new)
        avgdl = (total_terms + added_terms) / (docs + len(new))
        self.entities.remember(client, tenant, (p[0] for p in new))
        seqs = self._log.next_seqs(len(new))
        events = [
            models.PointStruct(
                id=seq,
                vector={},
                payload=event_payload(
                    seq, mem, "create", actor, after=mem, reason=reason, request_id=request_id
                ),
            )
            for seq, (mem, *_) in zip(seqs, new, strict=True)
        ]
        client.upsert(self._conn.events, events)  # (1) pending events
        self._log.step_done("event")
        # Every named vector (dense, keyword, the extra legs) in the one upsert.
        points = [memory_point(mem, vec, terms, avgdl, legs) for mem, vec, terms, legs in new]
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
