"""Qdrant implementation of :class:`memory_engine.stores.base.MemoryStore`.

The store is composed around one :class:`~.connection.QdrantConnection` (settings, client,
collection names, write lock, recorded embedding) that every part shares:
:class:`~.reads.QdrantReader` (reads, the retrieval legs, the server-side hybrid query),
:class:`~.events.QdrantEventLog` (event ids, commit marks, recovery, standalone events),
:class:`~.writer.QdrantWriter` (insert, update, purge, traces), :class:`~.lifecycle.QdrantLifecycle`
(accesses, erasure, trace deletion) and :class:`~.records.QdrantRecords` (copy between stores,
audited cross-tenant reads).

Backends: a Qdrant server or cluster (``qdrant_url``, ``qdrant_api_key``) or qdrant-client's
local mode (``qdrant_path``; ``":memory:"`` = in memory). Local
mode is exact, pure Python and single-process (a second process on the same folder gets
StoreUnavailableError); it is meant for tests and small demos and logs a warning when a
collection holds more than ``qdrant_local_warn_points`` points.

Collections (``<prefix>`` = ``qdrant_collection_prefix``):

* ``<prefix>_memories``: one point per memory (point id = memory id), payload = the memory's
  fields, named vectors ``dense`` (cosine, dimension fixed when the embedding is first
  recorded) and ``keyword`` (sparse, ``Modifier.IDF``, see :mod:`.codec`).
* ``<prefix>_events``: audit events (point id = event id ``seq``), with a ``state``.
* ``<prefix>_traces``: search traces, at most ``trace_retention`` per tenant.
* ``<prefix>_meta``: the embedding model + dimension and per-tenant keyword statistics.
* ``<prefix>_entities``: the entities memories name (links: the memory point's
  ``entity_keys``, see :mod:`.entities`).

Isolation: ``tenant_id`` has a keyword payload index with ``is_tenant=True`` in every
collection holding tenant data, and every query carries the scope's tenant filter (with
``prefetch``: in every prefetch and at the root). Store-maintenance reads that span tenants
(event-id counter, the reconciler, the one-time entity backfill, the audited admin counts) never return tenant data to a
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

import builtins
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

from qdrant_client import QdrantClient

from memory_engine.config import Settings
from memory_engine.models import (
    Candidate,
    Entity,
    Event,
    Memory,
    MemoryFilter,
    MemoryStatus,
    Page,
    Scope,
    Trace,
)
from memory_engine.stores.base import InsertOutcome, MemoryRecord, NewMemory, StoreStats
from memory_engine.stores.entities import entity_memories
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.entities import QdrantEntities
from memory_engine.stores.qdrant.events import QdrantEventLog
from memory_engine.stores.qdrant.io import create_memories_collection, ensure_base_collections
from memory_engine.stores.qdrant.legs import QdrantVectorLegs
from memory_engine.stores.qdrant.lifecycle import QdrantLifecycle
from memory_engine.stores.qdrant.reads import QdrantReader
from memory_engine.stores.qdrant.rebuild import finish_pending_rebuild
from memory_engine.stores.qdrant.records import QdrantRecords
from memory_engine.stores.qdrant.traces import QdrantTraceLog
from memory_engine.stores.qdrant.writer import QdrantWriter


class QdrantStore:
    """Memories, events and traces in Qdrant, isolated by a tenant filter in every query.

    A ``MemoryStore``. Each method below is the part's of the same name (its docstring states
    the contract).

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
        # Local mode is one embedded storage object; only a server takes concurrent legs.
        self.concurrent_legs = not self.conn.local
        # The step hook looks ``_step_done`` up at each call, so a test may patch the class.
        self._log = QdrantEventLog(self.conn, lambda step: self._step_done(step))
        self._reader = QdrantReader(self.conn)
        #: The extra dense legs and the reembed staging leg (``stores.base.VectorLegs``).
        self.legs = QdrantVectorLegs(self.conn, self._reader.dense_search)
        self._entities = QdrantEntities(self.conn)
        self._writer = QdrantWriter(self.conn, self._log, self._entities, self.legs.insert_vectors)
        self._lifecycle = QdrantLifecycle(self.conn)
        self._traces = QdrantTraceLog(self.conn)
        self._records = QdrantRecords(self.conn, self._log, self._writer)
        try:
            ensure_base_collections(
                self.conn.client, self.conn.prefix, self.conn.local, self.conn.layout
            )
            recorded = self.conn.embedding_info()
            finish_pending_rebuild(self.conn)  # a reembed killed after its copy was complete
            if recorded is not None:  # a crash may have left the meta point without collection
                create_memories_collection(
                    self.conn.client,
                    self.conn.memories,
                    recorded[1],
                    self.conn.local,
                    self.conn.layout,
                    self.conn.leg_dims(),
                )
            self._log.resume()
            self._log.reconcile()
            self._entities.backfill()
            for collection in (self.conn.memories, self.conn.events, self.conn.traces):
                self.conn.check_size(collection)
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

    def _step_done(self, step: str) -> None:
        """Test seam, called after write step ``"event"`` (1) and ``"point"`` (2). No-op."""

    # ------------------------------------------------------------------ AdminOps

    def embedding_info(self) -> tuple[str, int] | None:
        """See :meth:`QdrantConnection.embedding_info`."""
        return self.conn.embedding_info()

    def ensure_embedding(self, model: str, dim: int) -> None:
        """See :meth:`QdrantConnection.ensure_embedding`."""
        self.conn.ensure_embedding(model, dim)

    def stats(self, *, scope: Scope, days: int = 90) -> StoreStats:
        """See :meth:`QdrantReader.stats`."""
        return self._reader.stats(scope=scope, days=days)

    def admin_tenant_ids(self, *, actor: str, reason: str) -> builtins.list[str]:
        """See :meth:`QdrantRecords.admin_tenant_ids`."""
        return self._records.admin_tenant_ids(actor=actor, reason=reason)

    def admin_tenant_counts(self, *, actor: str, reason: str) -> dict[str, int]:
        """See :meth:`QdrantRecords.admin_tenant_counts`."""
        return self._records.admin_tenant_counts(actor=actor, reason=reason)

    def reconcile(self) -> dict[str, int]:
        """See :meth:`QdrantEventLog.reconcile`."""
        return self._log.reconcile()

    # ------------------------------------------------------------------ MemoryRepository

    def insert(
        self,
        items: Sequence[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
    ) -> builtins.list[InsertOutcome]:
        """See :meth:`QdrantWriter.insert`."""
        return self._writer.insert(
            items, scope=scope, actor=actor, reason=reason, request_id=request_id
        )

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        """See :meth:`QdrantReader.get`."""
        return self._reader.get(memory_id, scope=scope)

    def list(
        self,
        *,
        scope: Scope,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """See :meth:`QdrantReader.list`."""
        return self._reader.list(scope=scope, filters=filters, limit=limit, cursor=cursor)

    def facet_counts(
        self, *, scope: Scope, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """See :meth:`QdrantReader.facet_counts`."""
        return self._reader.facet_counts(scope=scope, filters=filters)

    def count(self, *, scope: Scope, statuses: Sequence[MemoryStatus] = ()) -> int:
        """See :meth:`QdrantReader.count`."""
        return self._reader.count(scope=scope, statuses=statuses)

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
        """See :meth:`QdrantWriter.update`."""
        return self._writer.update(
            memory_id,
            scope=scope,
            expected_version=expected_version,
            changes=changes,
            embedding=embedding,
            terms=terms,
            actor=actor,
            reason=reason,
            action=action,
            request_id=request_id,
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
        """See :meth:`QdrantWriter.purge`."""
        self._writer.purge(
            memory_id, scope=scope, actor=actor, reason=reason, expected_version=expected_version
        )

    def record_access(self, memory_ids: Sequence[uuid.UUID], *, scope: Scope, at: datetime) -> int:
        """See :meth:`QdrantLifecycle.record_access`."""
        return self._lifecycle.record_access(memory_ids, scope=scope, at=at)

    def redact_history(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """See :meth:`QdrantLifecycle.redact_history`."""
        return self._lifecycle.redact_history(memory_id, scope=scope, content=content)

    def index_presence(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """See :meth:`QdrantLifecycle.index_presence`."""
        return self._lifecycle.index_presence(memory_id, scope=scope, content=content)

    # ------------------------------------------------------------------ AuditLog

    def append_event(self, event: Event, *, scope: Scope) -> None:
        """See :meth:`QdrantEventLog.append_event`."""
        self._log.append_event(event, scope=scope)

    def history(self, memory_id: uuid.UUID, *, scope: Scope, limit: int = 200) -> Page:
        """See :meth:`QdrantReader.history`."""
        return self._reader.history(memory_id, scope=scope, limit=limit)

    def events(self, *, scope: Scope, limit: int = 100, cursor: str | None = None) -> Page:
        """See :meth:`QdrantReader.events`."""
        return self._reader.events(scope=scope, limit=limit, cursor=cursor)

    # ------------------------------------------------------------------ TraceStore

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """See :meth:`QdrantTraceLog.save`."""
        self._traces.save(trace, scope=scope)

    def get_trace(self, trace_id: uuid.UUID, *, scope: Scope) -> Trace:
        """See :meth:`QdrantReader.get_trace`."""
        return self._reader.get_trace(trace_id, scope=scope)

    def list_traces(self, *, scope: Scope, limit: int = 50, cursor: str | None = None) -> Page:
        """See :meth:`QdrantReader.list_traces`."""
        return self._reader.list_traces(scope=scope, limit=limit, cursor=cursor)

    def delete_traces(self, *, scope: Scope) -> int:
        """See :meth:`QdrantLifecycle.delete_traces`."""
        return self._lifecycle.delete_traces(scope=scope)

    # ------------------------------------------------------------------ RecordTransfer

    def record_ids(self, *, scope: Scope, limit: int = 500, cursor: str | None = None) -> Page:
        """See :meth:`QdrantRecords.record_ids`."""
        return self._records.record_ids(scope=scope, limit=limit, cursor=cursor)

    def read_records(
        self, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> builtins.list[MemoryRecord]:
        """See :meth:`QdrantRecords.read_records`."""
        return self._records.read_records(memory_ids, scope=scope)

    def write_records(self, records: Sequence[MemoryRecord], *, scope: Scope) -> None:
        """See :meth:`QdrantRecords.write_records`."""
        self._records.write_records(records, scope=scope)

    # ------------------------------------------------------------------ SearchIndex

    # ------------------------------------------------------------------ EntityIndex

    def list_entities(
        self, *, scope: Scope, limit: int = 50, statuses: Sequence[MemoryStatus] = ()
    ) -> Page:
        """See :meth:`QdrantEntities.list_entities`."""
        return self._entities.list_entities(scope=scope, limit=limit, statuses=statuses)

    def memory_entities(self, memory_id: uuid.UUID, *, scope: Scope) -> builtins.list[Entity]:
        """See :meth:`QdrantEntities.memory_entities`."""
        return self._entities.memory_entities(memory_id, scope=scope)

    def entity_memories(
        self,
        entity: str,
        *,
        scope: Scope,
        limit: int = 50,
        cursor: str | None = None,
        statuses: Sequence[MemoryStatus] = (),
    ) -> Page:
        """See :func:`memory_engine.stores.entities.entity_memories`."""
        return entity_memories(
            self.list, entity, scope=scope, limit=limit, cursor=cursor, statuses=statuses
        )

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """See :meth:`QdrantReader.dense_search`."""
        return self._reader.dense_search(vector, scope=scope, k=k, statuses=statuses)

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """See :meth:`QdrantReader.keyword_search`."""
        return self._reader.keyword_search(terms, scope=scope, k=k, statuses=statuses)

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
        """See :meth:`QdrantReader.hybrid_request`."""
        return self._reader.hybrid_request(
            vector, terms, scope=scope, k=k, per_leg=per_leg, statuses=statuses
        )

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
        """See :meth:`QdrantReader.hybrid_search`."""
        return self._reader.hybrid_search(
            vector, terms, scope=scope, k=k, per_leg=per_leg, statuses=statuses
        )
