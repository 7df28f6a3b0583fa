"""PostgreSQL + pgvector implementation of :class:`memory_engine.stores.base.MemoryStore`.

Isolation: every tenant table has ENABLE + FORCE row-level security with the policy
``tenant_id = current_setting('app.tenant_id', true)``. Pooled connections log in as the owner
and immediately ``SET ROLE`` to the NOLOGIN application role (``Settings.db_app_role``, created
by the migrations, neither superuser nor BYPASSRLS); every transaction runs
``set_config('app.tenant_id', <tenant>, true)`` (SET LOCAL) first. Only migrations,
``ensure_embedding`` (a schema change), the audited ``admin_tenant_counts`` and the index
drop/rebuild (plus VACUUM) of ``bulk_insert`` use the owner role, on short-lived connections of
their own; ``bulk_insert`` writes its rows as the application role.

Writes: every writing transaction first takes the tenant's advisory write lock
(:func:`pg_keyword.lock_tenant`), so one tenant's writers run one after the other: content-hash
dedupe cannot race, and the keyword-statistics triggers of migration 0002 never deadlock.

Errors: psycopg errors are mapped at this boundary: connection problems and pool timeouts to
StoreUnavailableError, anything else to StoreError (``raise ... from``).
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolTimeout

from memory_engine.config import Settings
from memory_engine.errors import (
    InvalidInputError,
    StoreUnavailableError,
    VersionConflictError,
)
from memory_engine.models import Candidate, Memory, MemoryStatus, Scope, Trace, ensure_utc
from memory_engine.stores.base import InsertOutcome, NewMemory
from memory_engine.stores.common import (
    UPDATABLE_FIELDS,
    check_k,
    check_same_embedding,
    check_trace_scope,
    check_update,
    check_version,
    first_embedding,
    merged_memory,
    not_found,
    search_statuses,
    vector_param,
)
from memory_engine.stores.postgres.bulk import PgBulkWriter
from memory_engine.stores.postgres.embedded import resolve_database_url
from memory_engine.stores.postgres.keyword import keyword_search, lock_tenant
from memory_engine.stores.postgres.lifecycle import PgLifecycle, redact_in_tx
from memory_engine.stores.postgres.migrate import MIGRATION_LOCK_KEY, apply_migrations
from memory_engine.stores.postgres.reads import PgReader, select_memory
from memory_engine.stores.postgres.records import PgRecords
from memory_engine.stores.postgres.sql import (
    MEMORY_COLUMNS,
    columns,
    dense_search,
    memory_from_row,
    memory_params,
)
from memory_engine.stores.postgres.writes import (
    copy_events,
    copy_memories,
    dedupe,
    event_values,
    existing_active,
    insert_event,
    prepare_row,
)

logger = logging.getLogger(__name__)

#: Largest vector dimension pgvector 0.6 can index with HNSW; larger ones are searched exactly.
HNSW_MAX_DIM = 2000
_ACTIVE = MemoryStatus.ACTIVE.value


class PostgresStore(PgLifecycle, PgReader, PgBulkWriter, PgRecords):
    """Memories, events and traces in PostgreSQL + pgvector, isolated by row-level security.

    Args:
        settings: engine settings (database_url or data_dir, db_app_role, db_pool_max,
            exact_search_max_rows, hnsw_ef_search_max, trace_retention, list_max_limit).
        conninfo: owner login URL; default ``resolve_database_url(settings)``.

    Raises:
        StoreUnavailableError: the server cannot be started or reached.
        StoreError: a migration failed.
    """

    name = "postgres"
    concurrent_legs = True  # a thread-safe pool; each leg checks out its own connection

    def __init__(self, settings: Settings, *, conninfo: str | None = None) -> None:
        self.settings = settings
        self._conninfo = conninfo or resolve_database_url(settings)
        self._role = settings.db_app_role
        self._embedding: tuple[str, int] | None = None
        apply_migrations(self._conninfo, self._role)
        self._pool: ConnectionPool = ConnectionPool(
            self._conninfo,
            min_size=1,
            max_size=settings.db_pool_max,
            kwargs={"prepare_threshold": None, "autocommit": True},
            configure=self._configure,
            check=ConnectionPool.check_connection,
            name="memory_engine",
            open=False,
        )
        try:
            self._pool.open(wait=True, timeout=15.0)
        except PoolTimeout as exc:
            self._pool.close()
            raise StoreUnavailableError(f"cannot open a connection pool: {exc}") from exc

    @classmethod
    def from_settings(cls, settings: Settings) -> PostgresStore:
        """Same as ``PostgresStore(settings)``."""
        return cls(settings)

    # ------------------------------------------------------------------ embedding config

    def embedding_info(self) -> tuple[str, int] | None:
        """The recorded (model, dim), or None when no embedding was recorded yet."""
        with self._tx(None) as cur:
            row = cur.execute("SELECT model, dim FROM embedding_config").fetchone()
        self._embedding = (str(row[0]), int(row[1])) if row else None
        return self._embedding

    def ensure_embedding(self, model: str, dim: int) -> None:
        """Record (first call) or check the embedding model name and dimension.

        The first call fixes the ``embedding`` column to ``vector(dim)`` and builds the HNSW
        index (cosine); nothing is ever dropped or converted.

        Args:
            model: embedding model name (non-empty).
            dim: vector dimension, 1..16000 (HNSW index only up to 2000).

        Raises:
            InvalidInputError: empty model or dimension out of range.
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        if not model or not 1 <= dim <= 16000:
            raise InvalidInputError("model must be non-empty and dim in [1, 16000]", dim=dim)
        recorded = self._embedding or self.embedding_info()
        if recorded is None:
            with self._owner_tx() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK_KEY])
                row = cur.execute("SELECT model, dim FROM embedding_config").fetchone()
                if row is None:
                    cur.execute(
                        "INSERT INTO embedding_config (model, dim) VALUES (%s, %s)", [model, dim]
                    )
                    cur.execute(
                        sql.SQL(
                            "ALTER TABLE memories ALTER COLUMN embedding TYPE vector({dim}) "
                            "USING embedding::vector({dim})"
                        ).format(dim=sql.Literal(dim))
                    )
                    if dim <= HNSW_MAX_DIM:
                        cur.execute(
                            "CREATE INDEX IF NOT EXISTS memories_embedding_hnsw ON memories "
                            "USING hnsw (embedding vector_cosine_ops)"
                        )
                    else:
                        logger.warning(
                            "dim %d > %d: no HNSW index, exact search", dim, HNSW_MAX_DIM
                        )
                    row = (model, dim)
            recorded = (str(row[0]), int(row[1]))
            self._embedding = recorded
        check_same_embedding(recorded, model, dim)

    def _dim(self) -> int | None:
        recorded = self._embedding or self.embedding_info()
        return recorded[1] if recorded else None

    # ------------------------------------------------------------------ writes

    def insert(
        self,
        items: Sequence[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
    ) -> list[InsertOutcome]:
        """Insert memories with one ``create`` event each, all in one transaction.

        An ACTIVE item whose non-empty ``content_hash`` equals an ACTIVE memory of the same
        tenant and user (or an earlier item of the batch) is not inserted: its outcome is
        ``duplicate`` with ``existing_id`` and no event is written. When no embedding model is
        recorded yet, the first item's ``embedding_model`` and vector length are recorded.

        One INSERT per table (multi-row VALUES, or COPY into a temp table for larger batches),
        under the tenant's write lock. The HNSW index is updated row by row; for large imports
        use :meth:`bulk_insert` (which may rebuild the index instead).

        Raises:
            TenantScopeError: an item's tenant/user/agent/session contradicts the scope.
            InvalidInputError: bad vector, id already used, or no embedding model known.
            EmbeddingMismatchError: an item names another embedding model.
        """
        if not items:
            return []
        model, dim = self._model_dim(items[0])
        rows = [prepare_row(item, scope, model, dim) for item in items]
        with self._tx(scope) as cur:
            lock_tenant(cur, scope.tenant_id)
            existing = existing_active(
                cur, scope.tenant_id, (k for r in rows if (k := r.dedupe_key) is not None)
            )
            outcomes, keep = dedupe(rows, existing)
            if keep:
                copy_memories(cur, (rows[i] for i in keep))
                copy_events(
                    cur,
                    (
                        event_values(
                            rows[i].memory,
                            "create",
                            actor,
                            after=rows[i].memory,
                            reason=reason,
                            request_id=request_id,
                        )
                        for i in keep
                    ),
                )
        for i in keep:
            outcomes[i] = InsertOutcome(memory_id=rows[i].memory.id, status="created")
        return [o for o in outcomes if o is not None]

    def _model_dim(self, first: NewMemory) -> tuple[str, int]:
        """The recorded (model, dim); records the first item's when nothing is recorded yet.

        Raises:
            InvalidInputError: nothing recorded and the item names no embedding model.
        """
        recorded = self._embedding or self.embedding_info()
        if recorded is None:
            self.ensure_embedding(*first_embedding(first))
            recorded = self._embedding
        assert recorded is not None
        return recorded

    def _locked(self, cur: psycopg.Cursor[Any], memory_id: uuid.UUID, scope: Scope) -> Memory:
        memory = select_memory(cur, memory_id, scope, lock=True)
        if memory is None:
            raise not_found(memory_id, scope)
        return memory

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
        """Apply ``changes``, bump ``version``, write the ``action`` event; one transaction.

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
        vec = vector_param(embedding, self._dim(), "embedding") if embedding is not None else None
        with self._tx(scope) as cur:
            lock_tenant(cur, scope.tenant_id)
            before = self._locked(cur, memory_id, scope)
            check_version(before, expected_version)
            merged = merged_memory(before, changes)
            params = memory_params(merged)
            for key in ("valid_from", "valid_until"):
                params[key] = ensure_utc(params[key])
            sets: list[sql.Composable] = [
                sql.SQL("{} = {}").format(sql.Identifier(c), sql.Placeholder(c))
                for c in sorted(UPDATABLE_FIELDS)
            ]
            if vec is not None:
                params["embedding"] = vec
                sets.append(sql.SQL("embedding = %(embedding)s"))
            if terms is not None:
                params["terms"] = [str(t) for t in terms]
                params["doc_len"] = len(params["terms"])
                sets.append(sql.SQL("terms = %(terms)s, doc_len = %(doc_len)s"))
            params["expected"] = expected_version
            query = sql.SQL(
                "UPDATE memories SET {sets}, version = version + 1, updated_at = now() "
                "WHERE tenant_id = %(tenant_id)s AND id = %(id)s AND version = %(expected)s "
                "RETURNING {cols}"
            ).format(sets=sql.SQL(", ").join(sets), cols=columns(MEMORY_COLUMNS))
            try:
                row = cur.execute(query, params).fetchone()
            except psycopg.errors.UniqueViolation as exc:
                raise InvalidInputError(
                    "an active memory with the same content already exists", memory_id=memory_id
                ) from exc
            if row is None:  # unreachable under FOR UPDATE; kept as a guard
                raise VersionConflictError(
                    f"memory {memory_id} changed concurrently",
                    memory_id=memory_id,
                    expected=expected_version,
                )
            after = memory_from_row(row)
            insert_event(
                cur,
                event_values(
                    after,
                    action,
                    actor,
                    before=before,
                    after=after,
                    reason=reason,
                    request_id=request_id,
                ),
            )
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
        """Erase a memory in one transaction: delete the row (content, vector; the keyword
        postings go with it by trigger), write a ``purge`` event, then redact the content from
        every event snapshot of the memory (the new one included) and from stored traces
        (:func:`pg_lifecycle.redact_in_tx`).

        Raises:
            MemoryNotFoundError: no such memory in the scope.
            VersionConflictError: ``expected_version`` is given and is not the current version.
        """
        with self._tx(scope) as cur:
            lock_tenant(cur, scope.tenant_id)
            before = self._locked(cur, memory_id, scope)
            if expected_version is not None:
                check_version(before, expected_version)
            cur.execute(
                "DELETE FROM memories WHERE tenant_id = %s AND id = %s",
                [scope.tenant_id, memory_id],
            )
            insert_event(cur, event_values(before, "purge", actor, before=before, reason=reason))
            redact_in_tx(cur, memory_id, scope.tenant_id)

    # ------------------------------------------------------------------ search

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[Candidate]:
        """Nearest memories by cosine; ``min(k, matching rows)`` candidates, scores ``cosine``.

        See :mod:`memory_engine.stores.pg_search` for the exact/HNSW strategy.

        Raises:
            InvalidInputError: k outside 1..1000, or a bad query vector.
        """
        check_k(k)
        vec = vector_param(vector, self._dim(), "query vector")
        with self._tx(scope) as cur:
            return dense_search(
                cur,
                vec,
                scope=scope,
                k=k,
                statuses=search_statuses(statuses),
                exact_max_rows=self.settings.exact_search_max_rows,
                ef_max=self.settings.hnsw_ef_search_max,
            )

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[Candidate]:
        """BM25 (k1=1.2, b=0.75) over stored terms, in SQL; scores ``bm25`` (>= 0).

        Exact top ``k``, rarest terms first, from trigger-kept statistics and postings; see
        :mod:`memory_engine.stores.postgres.keyword`. Duplicate query terms count once; empty terms
        are ignored.

        Raises:
            InvalidInputError: k outside 1..1000.
        """
        check_k(k)
        query_terms = [str(t) for t in terms if t]  # keyword_search dedupes
        with self._tx(scope) as cur:
            return keyword_search(
                cur, query_terms, scope=scope, k=k, statuses=search_statuses(statuses)
            )

    # ------------------------------------------------------------------ traces

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """Store a trace, then drop the scope tenant's oldest traces beyond ``trace_retention``.

        Traces are immutable: saving an id that is already stored keeps the stored one.

        Raises:
            TenantScopeError: the trace belongs to another tenant than the scope.
        """
        check_trace_scope(trace, scope)
        keep = self.settings.trace_retention
        if keep == 0:
            return
        returned = sum(1 for c in trace.candidates if c.dropped is None)
        with self._tx(scope) as cur:
            cur.execute(
                "INSERT INTO traces (id, tenant_id, user_id, agent_id, session_id, created_at, "
                "query, returned, payload) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s) "
                "ON CONFLICT (tenant_id, id) DO NOTHING",
                [
                    trace.id,
                    scope.tenant_id,
                    trace.scope.user_id,
                    trace.scope.agent_id,
                    trace.scope.session_id,
                    ensure_utc(trace.created_at),
                    trace.query,
                    returned,
                    Jsonb(trace.model_dump(mode="json")),
                ],
            )
            cur.execute(
                "DELETE FROM traces WHERE tenant_id = %(t)s AND id IN (SELECT id FROM traces "
                "WHERE tenant_id = %(t)s ORDER BY created_at DESC, id DESC OFFSET %(keep)s)",
                {"t": scope.tenant_id, "keep": keep},
            )

    # ------------------------------------------------------------------ admin

    def admin_tenant_counts(self, *, actor: str, reason: str) -> dict[str, int]:
        """Active + archived memories per tenant, across tenants; audited in ``admin_audit``.

        Runs as the owner role (the one path that reads across tenants) and records actor,
        time, reason and the number of tenants in the same transaction.

        Raises:
            InvalidInputError: empty actor or reason.
        """
        rows = self._admin_rows(
            "tenant_counts",
            "SELECT tenant_id, count(*) FROM memories "
            "WHERE status IN ('active', 'archived') GROUP BY tenant_id ORDER BY tenant_id",
            actor=actor,
            reason=reason,
        )
        counts = {str(t): int(n) for t, n in rows}
        return counts
