"""PostgreSQL + pgvector implementation of :class:`memory_engine.stores.base.MemoryStore`.

The store is composed around one :class:`~.connection.PgConnection` (pool, tenant transaction,
owner paths, recorded embedding) that every part shares: :class:`~.reads.PgReader` (reads),
:class:`~.writer.PgWriter` (insert, update, purge, traces), :class:`~.lifecycle.PgLifecycle`
(accesses, erasure, events), :class:`~.records.PgRecords` (copy between stores) and
:class:`~.bulk.PgBulkWriter` (bulk import). The two candidate searches run here.

Isolation: every tenant table has ENABLE + FORCE row-level security with the policy
``tenant_id = current_setting('app.tenant_id', true)``. Pooled connections log in as the
application role (``Settings.db_app_role`` or the user of ``Settings.database_app_url``, a LOGIN
role created by the migrations: not a superuser, no BYPASSRLS, a member of no role, so no
statement on its connection can become another role); every transaction runs
``set_config('app.tenant_id', <tenant>, true)`` (SET LOCAL) first. Only migrations,
``ensure_embedding`` (a schema change), the audited ``admin_tenant_counts``, ``purge`` and
``redact_history`` (the owner-only ``redact_memory_events``) and the index drop/rebuild (plus
VACUUM) of ``bulk_insert`` use the owner login, on short-lived connections of their own;
``bulk_insert`` writes its rows as the application role.

Errors: psycopg errors are mapped at this boundary (:func:`.connection.mapped_errors`):
connection problems and pool timeouts to StoreUnavailableError, anything else to StoreError
(``raise ... from``).
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

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
from memory_engine.stores.common import check_k, query_vector_param, search_statuses
from memory_engine.stores.entities import entity_memories
from memory_engine.stores.postgres.bulk import PgBulkWriter
from memory_engine.stores.postgres.connection import PgConnection, app_login
from memory_engine.stores.postgres.embedded import resolve_database_url
from memory_engine.stores.postgres.entities import PgEntities, backfill_links
from memory_engine.stores.postgres.keyword import keyword_search
from memory_engine.stores.postgres.legs import PgVectorLegs
from memory_engine.stores.postgres.lifecycle import PgLifecycle
from memory_engine.stores.postgres.migrate import apply_migrations
from memory_engine.stores.postgres.reads import PgReader
from memory_engine.stores.postgres.records import PgRecords
from memory_engine.stores.postgres.sql import dense_search
from memory_engine.stores.postgres.writer import PgWriter

#: The migration that adds the entity index; the store links stored memories once after it.
ENTITIES_MIGRATION = 4


class PostgresStore:
    """Memories, events and traces in PostgreSQL + pgvector, isolated by row-level security.

    A ``MemoryStore`` and a ``BulkLoader``. Each method below is the part's of the same name
    (its docstring states the contract).

    Args:
        settings: engine settings (database_url or data_dir, database_app_url, db_app_role,
            db_pool_max, exact_search_max_rows, hnsw_ef_search_max, hnsw_max_scan_tuples,
            trace_retention, list_max_limit).
        conninfo: owner login URL; default ``resolve_database_url(settings)``.

    Raises:
        StoreUnavailableError: the server cannot be started or reached.
        StoreError: a migration failed, or the application login can become a superuser or
            the owner.
    """

    name = "postgres"
    concurrent_legs = True  # a thread-safe pool; each leg checks out its own connection

    def __init__(self, settings: Settings, *, conninfo: str | None = None) -> None:
        self.settings = settings
        owner = conninfo or resolve_database_url(settings)
        applied = apply_migrations(owner, app_login(settings, owner)[1])
        self.conn = PgConnection(settings, owner)
        if ENTITIES_MIGRATION in applied:
            backfill_links(self.conn)
        #: The extra dense legs and the reembed staging leg (``stores.base.VectorLegs``).
        self.legs = PgVectorLegs(self.conn)
        self._reader = PgReader(self.conn)
        self._writer = PgWriter(self.conn, self.legs.insert_vectors)
        self._lifecycle = PgLifecycle(self.conn)
        self._records = PgRecords(self.conn)
        self._bulk = PgBulkWriter(
            self.conn, self.legs.insert_vectors, settings.storage.index_build_memory_mb
        )
        self._entities = PgEntities(self.conn)

    @classmethod
    def from_settings(cls, settings: Settings) -> PostgresStore:
        """Same as ``PostgresStore(settings)``."""
        return cls(settings)

    def __enter__(self) -> PostgresStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool. Safe to call twice."""
        self.conn.close()

    def role_escapes(self) -> builtins.list[str]:
        """See :meth:`PgConnection.role_escapes` (the isolation check's database probe)."""
        return self.conn.role_escapes()

    # ------------------------------------------------------------------ AdminOps

    def embedding_info(self) -> tuple[str, int] | None:
        """See :meth:`PgConnection.embedding_info`."""
        return self.conn.embedding_info()

    def ensure_embedding(self, model: str, dim: int) -> None:
        """See :meth:`PgConnection.ensure_embedding`."""
        self.conn.ensure_embedding(model, dim)

    def stats(self, *, scope: Scope, days: int = 90) -> StoreStats:
        """See :meth:`PgReader.stats`."""
        return self._reader.stats(scope=scope, days=days)

    def admin_tenant_ids(self, *, actor: str, reason: str) -> builtins.list[str]:
        """See :meth:`PgRecords.admin_tenant_ids`."""
        return self._records.admin_tenant_ids(actor=actor, reason=reason)

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
        """See :meth:`PgWriter.insert`."""
        return self._writer.insert(
            items, scope=scope, actor=actor, reason=reason, request_id=request_id
        )

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        """See :meth:`PgReader.get`."""
        return self._reader.get(memory_id, scope=scope)

    def list(
        self,
        *,
        scope: Scope,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """See :meth:`PgReader.list`."""
        return self._reader.list(scope=scope, filters=filters, limit=limit, cursor=cursor)

    def facet_counts(
        self, *, scope: Scope, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """See :meth:`PgReader.facet_counts`."""
        return self._reader.facet_counts(scope=scope, filters=filters)

    def count(self, *, scope: Scope, statuses: Sequence[MemoryStatus] = ()) -> int:
        """See :meth:`PgReader.count`."""
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
        """See :meth:`PgWriter.update`."""
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
        """See :meth:`PgWriter.purge`."""
        self._writer.purge(
            memory_id, scope=scope, actor=actor, reason=reason, expected_version=expected_version
        )

    def record_access(self, memory_ids: Sequence[uuid.UUID], *, scope: Scope, at: datetime) -> int:
        """See :meth:`PgLifecycle.record_access`."""
        return self._lifecycle.record_access(memory_ids, scope=scope, at=at)

    def redact_history(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """See :meth:`PgLifecycle.redact_history`."""
        return self._lifecycle.redact_history(memory_id, scope=scope, content=content)

    def index_presence(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """See :meth:`PgLifecycle.index_presence`."""
        return self._lifecycle.index_presence(memory_id, scope=scope, content=content)

    # ------------------------------------------------------------------ BulkLoader

    def bulk_insert(
        self,
        items: Iterable[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
        rebuild_index: bool | None = None,
    ) -> builtins.list[InsertOutcome]:
        """See :meth:`PgBulkWriter.bulk_insert`."""
        return self._bulk.bulk_insert(
            items,
            scope=scope,
            actor=actor,
            reason=reason,
            request_id=request_id,
            rebuild_index=rebuild_index,
        )

    def bulk_load(
        self,
        batches: Iterable[tuple[Scope, Iterable[NewMemory]]],
        *,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
        rebuild_index: bool | None = None,
    ) -> builtins.list[builtins.list[InsertOutcome]]:
        """See :meth:`PgBulkWriter.bulk_load` (several tenants' bulk imports, one transaction)."""
        return self._bulk.bulk_load(
            batches, actor=actor, reason=reason, request_id=request_id, rebuild_index=rebuild_index
        )

    # ------------------------------------------------------------------ AuditLog

    def append_event(self, event: Event, *, scope: Scope) -> None:
        """See :meth:`PgLifecycle.append_event`."""
        self._lifecycle.append_event(event, scope=scope)

    def history(self, memory_id: uuid.UUID, *, scope: Scope, limit: int = 200) -> Page:
        """See :meth:`PgReader.history`."""
        return self._reader.history(memory_id, scope=scope, limit=limit)

    def events(self, *, scope: Scope, limit: int = 100, cursor: str | None = None) -> Page:
        """See :meth:`PgReader.events`."""
        return self._reader.events(scope=scope, limit=limit, cursor=cursor)

    # ------------------------------------------------------------------ TraceStore

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """See :meth:`PgWriter.save_trace`."""
        self._writer.save_trace(trace, scope=scope)

    def get_trace(self, trace_id: uuid.UUID, *, scope: Scope) -> Trace:
        """See :meth:`PgReader.get_trace`."""
        return self._reader.get_trace(trace_id, scope=scope)

    def list_traces(self, *, scope: Scope, limit: int = 50, cursor: str | None = None) -> Page:
        """See :meth:`PgReader.list_traces`."""
        return self._reader.list_traces(scope=scope, limit=limit, cursor=cursor)

    def delete_traces(self, *, scope: Scope) -> int:
        """See :meth:`PgLifecycle.delete_traces`."""
        return self._lifecycle.delete_traces(scope=scope)

    # ------------------------------------------------------------------ RecordTransfer

    def record_ids(self, *, scope: Scope, limit: int = 500, cursor: str | None = None) -> Page:
        """See :meth:`PgRecords.record_ids`."""
        return self._records.record_ids(scope=scope, limit=limit, cursor=cursor)

    def read_records(
        self, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> builtins.list[MemoryRecord]:
        """See :meth:`PgRecords.read_records`."""
        return self._records.read_records(memory_ids, scope=scope)

    def write_records(self, records: Sequence[MemoryRecord], *, scope: Scope) -> None:
        """See :meth:`PgRecords.write_records`."""
        self._records.write_records(records, scope=scope)

    # ------------------------------------------------------------------ EntityIndex

    def list_entities(
        self, *, scope: Scope, limit: int = 50, statuses: Sequence[MemoryStatus] = ()
    ) -> Page:
        """See :meth:`PgEntities.list_entities`."""
        return self._entities.list_entities(scope=scope, limit=limit, statuses=statuses)

    def memory_entities(self, memory_id: uuid.UUID, *, scope: Scope) -> builtins.list[Entity]:
        """See :meth:`PgEntities.memory_entities`."""
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

    # ------------------------------------------------------------------ SearchIndex

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """Nearest memories by cosine; ``min(k, matching rows)`` candidates, scores ``cosine``.

        See :mod:`memory_engine.stores.postgres.sql` for the exact/HNSW strategy.

        Raises:
            InvalidInputError: k outside 1..1000, or a bad query vector.
            EmbeddingMismatchError: the query vector's length is not the store's dimension.
        """
        check_k(k)
        vec = query_vector_param(vector, self.conn.dim())
        with self.conn.tx(scope) as cur:
            return dense_search(
                cur,
                vec,
                scope=scope,
                k=k,
                statuses=search_statuses(statuses),
                exact_max_rows=self.conn.settings.storage.exact_search_max_rows,
                ef_max=self.conn.settings.storage.hnsw_ef_search_max,
                max_scan_tuples=self.conn.settings.storage.hnsw_max_scan_tuples,
                iterative_scan=self.conn.iterative_scan,
            )

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """BM25 (k1=1.2, b=0.75) over stored terms, in SQL; scores ``bm25`` (>= 0).

        Exact top ``k``, rarest terms first, from trigger-kept statistics and postings; see
        :mod:`memory_engine.stores.postgres.keyword`. Duplicate query terms count once; empty terms
        are ignored.

        Raises:
            InvalidInputError: k outside 1..1000.
        """
        check_k(k)
        query_terms = [str(t) for t in terms if t]  # keyword_search dedupes
        with self.conn.tx(scope) as cur:
            return keyword_search(
                cur, query_terms, scope=scope, k=k, statuses=search_statuses(statuses)
            )

    # ------------------------------------------------------------------ admin (AdminOps)

    def admin_tenant_counts(self, *, actor: str, reason: str) -> dict[str, int]:
        """Active + archived memories per tenant, across tenants; audited in ``admin_audit``.

        Runs as the owner role (the one path that reads across tenants) and records actor,
        time, reason and the number of tenants in the same transaction.

        Raises:
            InvalidInputError: empty actor or reason.
        """
        rows = self.conn.admin_rows(
            "tenant_counts",
            "SELECT tenant_id, count(*) FROM memories "
            "WHERE status IN ('active', 'archived') GROUP BY tenant_id ORDER BY tenant_id",
            actor=actor,
            reason=reason,
        )
        counts = {str(t): int(n) for t, n in rows}
        return counts
