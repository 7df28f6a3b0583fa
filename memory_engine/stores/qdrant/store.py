"""Qdrant implementation of :class:`memory_engine.stores.base.MemoryStore`.

Backends: a Qdrant server or cluster (``qdrant_url``, ``qdrant_api_key``) or qdrant-client's
local mode (``qdrant_path``; ``":memory:"`` = in memory). Local
mode is exact, pure Python and single-process (a second process on the same folder gets
StoreUnavailableError); it is meant for tests and small demos and logs a warning when a
collection holds more than ``qdrant_local_warn_points`` points.

Collections (``<prefix>`` = ``qdrant_collection_prefix``):

* ``<prefix>_memories``: one point per memory (point id = memory id), payload = the memory's
  fields, named vectors ``dense`` (cosine, dimension fixed when the embedding is first
  recorded) and ``keyword`` (sparse, ``Modifier.IDF``, see :mod:`.qdrant_codec`).
* ``<prefix>_events``: audit events (point id = event id ``seq``), with a ``state``.
* ``<prefix>_traces``: search traces, at most ``trace_retention`` per tenant.
* ``<prefix>_meta``: the embedding model + dimension and per-tenant keyword statistics.

Isolation: ``tenant_id`` has a keyword payload index with ``is_tenant=True`` in every
collection holding tenant data, and every query carries the scope's tenant filter (with
``prefetch``: in every prefetch and at the root). Store-maintenance reads that span tenants
(event-id counter, the reconciler, the audited admin counts) never return tenant data to a
caller.

Writes without transactions: every change is an ordered, idempotent sequence (1) write its
event with ``state="pending"`` (2) upsert/delete the point (3) mark the event ``committed``.
:meth:`QdrantStore.reconcile` (run at open) finishes or rolls back what a crash left pending: a
pending ``create`` whose point exists is committed, else ``rolled_back``; an update is committed
when the point reached the event's ``version_after``; a purge when the point is gone. Only
committed events are shown. A batch insert is atomic per memory, not per batch. Optimistic
concurrency: the point write is conditional (``update_filter`` on the expected version,
``UPDATE_ONLY``); within one process writes are serialised by a lock, across processes (server
mode only) the conditional write decides and the loser gets VersionConflictError. Duplicate
detection by ``content_hash`` is exact within one process and best-effort across processes.
"""

from __future__ import annotations

import logging
import secrets
import uuid
from collections.abc import Sequence
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.config import Settings
from memory_engine.errors import (
    InvalidInputError,
    VersionConflictError,
)
from memory_engine.models import Memory, MemoryStatus, Scope, utcnow
from memory_engine.stores.base import InsertOutcome, NewMemory
from memory_engine.stores.common import (
    check_embedding_spec,
    check_same_embedding,
    check_update,
    check_version,
    embedded_with,
    first_embedding,
    merged_memory,
    not_found,
    scoped_memory,
    vector_param,
)
from memory_engine.stores.qdrant.codec import (
    DENSE,
    KEYWORD,
    ROLLED_BACK,
    bm25_doc_vector,
    derived_id,
    event_payload,
    match,
    match_any,
    memory_from_payload,
    memory_payload,
    scope_filter,
    utc_memory,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import (
    create_memories_collection,
    ensure_base_collections,
    scroll_all,
)
from memory_engine.stores.qdrant.lifecycle import QdrantLifecycle
from memory_engine.stores.qdrant.ops import NODE_BITS
from memory_engine.stores.qdrant.records import QdrantRecords

logger = logging.getLogger("memory_engine.stores.qdrant.store")

_ACTIVE = MemoryStatus.ACTIVE.value
_EMBEDDING_ID = derived_id("embedding")


class QdrantStore(QdrantLifecycle, QdrantRecords):
    """Memories, events and traces in Qdrant, isolated by a tenant filter in every query.

    Args:
        settings: engine settings (qdrant_url/qdrant_api_key or qdrant_path,
            qdrant_collection_prefix, qdrant_local_warn_points, trace_retention,
            list_max_limit, rrf_k).
        client: an open client to use instead of opening one from ``settings`` (the caller
            keeps ownership: ``close()`` does not close it). Lets tests "reopen" a store on
            the same ``":memory:"`` client.

    Raises:
        StoreUnavailableError: the server is unreachable or the local folder is in use.
        StoreError: creating the collections failed.
    """

    name = "qdrant"

    def __init__(self, settings: Settings, *, client: QdrantClient | None = None) -> None:
        self.settings = settings
        self.conn = QdrantConnection(settings, client)
        self.location = self.conn.location
        self._embedding: tuple[str, int] | None = None
        self._warned: set[str] = set()
        # Local mode is one embedded storage object; only a server takes concurrent legs.
        self.concurrent_legs = not self.conn.local
        self._node = 0 if self.conn.local else secrets.randbits(NODE_BITS)
        try:
            ensure_base_collections(
                self.conn.client, self.conn.prefix, self.conn.local, self.conn.layout
            )
            recorded = self.embedding_info()
            if recorded is not None:  # a crash may have left the meta point without collection
                create_memories_collection(
                    self.conn.client,
                    self.conn.memories,
                    recorded[1],
                    self.conn.local,
                    self.conn.layout,
                )
            self._last_seq = self._max_seq()
            self.reconcile()
            for collection in (self.conn.memories, self.conn.events, self.conn.traces):
                self._check_size(collection)
        except BaseException:
            self.close()
            raise

    def __enter__(self) -> QdrantStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the client (releases the local folder lock) unless it was passed in. Safe to
        call twice."""
        self.conn.close()

    def _tenant_stats(self, client: QdrantClient, tenant: str) -> tuple[int, int]:
        """(memories, total keyword terms) of the tenant, for the BM25 average length."""
        pid = derived_id("stats", tenant)
        flt = models.Filter(must=[models.HasIdCondition(has_id=[pid]), match("tenant_id", tenant)])
        rows, _ = client.scroll(self.conn.meta, scroll_filter=flt, limit=1)
        p = (rows[0].payload or {}) if rows else {}
        return int(p.get("docs", 0)), int(p.get("terms", 0))

    def _add_tenant_stats(self, client: QdrantClient, tenant: str, docs: int, terms: int) -> None:
        have_docs, have_terms = self._tenant_stats(client, tenant)
        payload = {
            "kind": "tenant_stats",
            "tenant_id": tenant,
            "docs": max(0, have_docs + docs),
            "terms": max(0, have_terms + terms),
        }
        client.upsert(
            self.conn.meta,
            [models.PointStruct(id=derived_id("stats", tenant), vector={}, payload=payload)],
        )

    # ------------------------------------------------------------------ embedding config

    def embedding_info(self) -> tuple[str, int] | None:
        """The recorded (model, dim), or None when no embedding was recorded yet."""
        with self.conn.reading() as client:
            rows = client.retrieve(self.conn.meta, [_EMBEDDING_ID])
        p = (rows[0].payload or {}) if rows else {}
        self._embedding = (str(p["model"]), int(p["dim"])) if p else None
        return self._embedding

    def ensure_embedding(self, model: str, dim: int) -> None:
        """Record (first call) or check the embedding model name and dimension.

        The first call records (model, dim) and creates the memories collection with a
        ``dense`` vector of ``dim`` dimensions (cosine); nothing is ever dropped or converted.

        Raises:
            InvalidInputError: empty model or dimension out of 1..16000.
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        check_embedding_spec(model, dim)
        recorded = self._embedding or self.embedding_info()
        if recorded is None:
            with self.conn.writing() as client:
                point = models.PointStruct(
                    id=_EMBEDDING_ID,
                    vector={},
                    payload={"kind": "embedding", "model": model, "dim": dim},
                )
                client.upsert(self.conn.meta, [point], update_mode=models.UpdateMode.INSERT_ONLY)
                recorded = self.embedding_info()  # another process may have won the race
                assert recorded is not None
                create_memories_collection(
                    client, self.conn.memories, recorded[1], self.conn.local, self.conn.layout
                )
                self.conn.memories_ready = True
        check_same_embedding(recorded, model, dim)

    def _dim(self) -> int | None:
        recorded = self._embedding or self.embedding_info()
        return recorded[1] if recorded else None

    # ------------------------------------------------------------------ writes

    def _active_owners(
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
        rows = scroll_all(client, self.conn.memories, flt, with_payload=["user_id", "content_hash"])
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
        recorded = self._embedding or self.embedding_info()
        if recorded is None:
            self.ensure_embedding(*first_embedding(items[0]))
            recorded = self._embedding
        assert recorded is not None
        model, dim = recorded
        prepared: list[tuple[Memory, list[float], list[str]]] = []
        for item in items:
            mem = embedded_with(utc_memory(scoped_memory(item.memory, scope)), model)
            vec = vector_param(item.embedding, dim, "embedding").tolist()
            prepared.append((mem, vec, [str(t) for t in item.terms if t]))
        ids = [str(m.id) for m, _, _ in prepared]
        if len(set(ids)) != len(ids):
            raise InvalidInputError("the batch holds the same memory id twice")

        outcomes: list[InsertOutcome] = []
        new: list[tuple[Memory, list[float], list[str]]] = []
        with self.conn.writing() as client:
            taken = client.retrieve(self.conn.memories, ids, with_payload=False)
            if taken:  # ids are global (like PostgreSQL's primary key), checked by id only
                raise InvalidInputError(f"memory id already exists: {taken[0].id}")
            hashes = sorted({m.content_hash for m, _, _ in prepared if m.content_hash})
            existing = self._active_owners(client, scope.tenant_id, hashes)
            for mem, vec, terms in prepared:
                key = (mem.user_id or "", mem.content_hash)
                if mem.status is MemoryStatus.ACTIVE and mem.content_hash:
                    if key in existing:
                        outcomes.append(
                            InsertOutcome(
                                memory_id=mem.id, status="duplicate", existing_id=existing[key]
                            )
                        )
                        continue
                    existing[key] = mem.id
                outcomes.append(InsertOutcome(memory_id=mem.id, status="created"))
                new.append((mem, vec, terms))
            if new:
                self._insert_new(client, new, scope.tenant_id, actor, reason, request_id)
        if new:
            self._check_size(self.conn.memories)
            self._check_size(self.conn.events)
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
        docs, total_terms = self._tenant_stats(client, tenant)
        added_terms = sum(len(t) for _, _, t in new)
        avgdl = (total_terms + added_terms) / (docs + len(new))
        seqs = self._next_seqs(len(new))
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
        client.upsert(self.conn.events, events)  # (1) pending events
        self._step_done("event")
        points = [
            models.PointStruct(
                id=str(mem.id),
                vector={DENSE: vec, KEYWORD: bm25_doc_vector(terms, avgdl)},
                payload=memory_payload(mem, len(terms), terms),
            )
            for mem, vec, terms in new
        ]
        client.upsert(self.conn.memories, points, update_mode=models.UpdateMode.INSERT_ONLY)  # (2)
        self._step_done("point")
        self._commit(client, seqs)  # (3)
        self._add_tenant_stats(client, tenant, len(new), added_terms)

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
            vec = vector_param(embedding, self._dim(), "embedding").tolist()
        with self.conn.writing() as client:
            point = self._fetch(str(memory_id), scope, with_vectors=True)
            if point is None:
                raise not_found(memory_id, scope)
            before = memory_from_payload(point.payload)
            check_version(before, expected_version)
            merged = merged_memory(before, changes)
            after = utc_memory(merged).model_copy(
                update={"version": before.version + 1, "updated_at": utcnow()}
            )
            if after.status is MemoryStatus.ACTIVE and after.content_hash:
                owners = self._active_owners(client, scope.tenant_id, [after.content_hash])
                other = owners.get((after.user_id or "", after.content_hash))
                if other is not None and other != memory_id:
                    raise InvalidInputError(
                        "an active memory with the same content already exists",
                        memory_id=memory_id,
                    )
            old_len = int((point.payload or {}).get("doc_len", 0))
            vectors: dict[str, Any] = dict(point.vector or {})
            if vec is not None:
                vectors[DENSE] = vec
            new_terms = [str(t) for t in terms if t] if terms is not None else None
            if new_terms is not None:
                docs, total = self._tenant_stats(client, scope.tenant_id)
                avgdl = (total - old_len + len(new_terms)) / max(docs, 1)
                vectors[KEYWORD] = bm25_doc_vector(new_terms, avgdl)
            doc_len = len(new_terms) if new_terms is not None else old_len
            kept = (point.payload or {}).get("terms")
            payload_terms = new_terms if new_terms is not None else kept
            (seq,) = self._next_seqs(1)
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
            client.upsert(self.conn.events, [models.PointStruct(id=seq, vector={}, payload=event)])
            self._step_done("event")
            client.upsert(
                self.conn.memories,
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
            self._step_done("point")
            self._verify(client, seq, memory_id, scope, expect_version=after.version)
            self._commit(client, [seq])
            if new_terms is not None:
                self._add_tenant_stats(client, scope.tenant_id, 0, len(new_terms) - old_len)
        self._check_size(self.conn.events)
        return after

    def _verify(
        self,
        client: QdrantClient,
        seq: int,
        memory_id: uuid.UUID,
        scope: Scope,
        *,
        expect_version: int | None,
    ) -> None:
        """Server mode: check that the conditional write took effect (another process may have
        changed the point first); if not, roll the event back and raise VersionConflictError.
        ``expect_version=None`` means the point must be gone."""
        if self.conn.local:  # the lock makes the read-check-write sequence atomic
            return
        point = self._fetch(str(memory_id), scope)
        actual = int((point.payload or {})["version"]) if point is not None else None
        if actual == expect_version:
            return
        self._commit(client, [seq], ROLLED_BACK)
        raise VersionConflictError(
            f"memory {memory_id} changed concurrently",
            memory_id=memory_id,
            expected=expect_version,
            actual=actual,
        )

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
        :mod:`.qdrant_lifecycle`).

        Raises:
            MemoryNotFoundError: no such memory in the scope.
            VersionConflictError: ``expected_version`` is stale, or (server mode) the memory
                changed while it was being purged.
        """
        with self.conn.writing() as client:
            point = self._fetch(str(memory_id), scope)
            if point is None:
                raise not_found(memory_id, scope)
            before = memory_from_payload(point.payload)
            if expected_version is not None:
                check_version(before, expected_version)
            (seq,) = self._next_seqs(1)
            event = event_payload(seq, before, "purge", actor, before=before, reason=reason)
            client.upsert(self.conn.events, [models.PointStruct(id=seq, vector={}, payload=event)])
            self._step_done("event")
            selector = scope_filter(
                scope,
                models.HasIdCondition(has_id=[str(memory_id)]),
                match("version", before.version),
            )
            client.delete(
                self.conn.memories, points_selector=models.FilterSelector(filter=selector)
            )
            self._step_done("point")
            self._verify(client, seq, memory_id, scope, expect_version=None)
            self._commit(client, [seq])
            doc_len = int((point.payload or {}).get("doc_len", 0))
            self._add_tenant_stats(client, scope.tenant_id, -1, -doc_len)
            self._redact(client, memory_id, scope.tenant_id)
