"""The writes of the PostgreSQL store (:class:`PgWriter`, a part of PostgresStore): insert,
update, purge and save_trace, each in one tenant transaction of the shared
:class:`~memory_engine.stores.postgres.connection.PgConnection`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from memory_engine.errors import InvalidInputError, VersionConflictError
from memory_engine.models import Memory, Scope, Trace, ensure_utc
from memory_engine.stores.base import InsertOutcome, NewMemory
from memory_engine.stores.common import (
    UPDATABLE_FIELDS,
    check_trace_scope,
    check_update,
    check_version,
    dedupe_inserts,
    merged_memory,
    not_found,
    vector_param,
)
from memory_engine.stores.postgres.connection import PgConnection
from memory_engine.stores.postgres.entities import link_memories, relink_memory, unlink_memory
from memory_engine.stores.postgres.keyword import lock_tenant
from memory_engine.stores.postgres.lifecycle import redact_in_tx
from memory_engine.stores.postgres.reads import select_memory
from memory_engine.stores.postgres.sql import (
    MEMORY_COLUMNS,
    columns,
    memory_from_row,
    memory_params,
)
from memory_engine.stores.postgres.traces import insert_trace
from memory_engine.stores.postgres.writes import (
    LegCheck,
    copy_events,
    copy_memories,
    event_values,
    existing_active,
    insert_event,
    prepare_row,
)
from memory_engine.stores.redaction import erase_quotes


class PgWriter:
    """The writes of :class:`PostgresStore`: insert, update, purge, save_trace.

    Every writing transaction first takes the tenant's advisory write lock
    (:func:`~memory_engine.stores.postgres.keyword.lock_tenant`), so one tenant's writers run
    one after the other: content-hash dedupe cannot race, and the keyword-statistics triggers
    of migration 0002 never deadlock.
    """

    def __init__(self, conn: PgConnection, check_legs: LegCheck) -> None:
        self._conn = conn
        self._check_legs = check_legs

    def insert(
        self,
        items: Sequence[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
    ) -> list[InsertOutcome]:
        """Insert memories with one ``create`` event each, all in one transaction, with their
        entity links (:func:`~memory_engine.stores.postgres.entities.link_memories`).

        An ACTIVE item whose non-empty ``content_hash`` equals an ACTIVE memory of the same
        tenant and user (or an earlier item of the batch) is not inserted: its outcome is
        ``duplicate`` with ``existing_id`` and no event is written. When no embedding model is
        recorded yet, the first item's ``embedding_model`` and vector length are recorded.

        One INSERT per table (multi-row VALUES, or COPY into a temp table for larger batches),
        under the tenant's write lock; the items' leg vectors (``NewMemory.legs``) are columns
        of the same memories INSERT. The HNSW index is updated row by row; for large imports
        use :meth:`bulk_insert` (which may rebuild the index instead).

        Raises:
            TenantScopeError: an item's tenant/user/agent/session contradicts the scope.
            InvalidInputError: bad vector, id already used, no embedding model known, or a leg
                vector of an unrecorded leg or another dimension.
            EmbeddingMismatchError: an item names another embedding model.
        """
        if not items:
            return []
        model, dim = self._conn.model_dim(items[0])
        rows = [prepare_row(item, scope, model, dim, self._check_legs) for item in items]
        with self._conn.tx(scope) as cur:
            lock_tenant(cur, scope.tenant_id)
            existing = existing_active(
                cur, scope.tenant_id, (k for r in rows if (k := r.dedupe_key) is not None)
            )
            outcomes, keep = dedupe_inserts([r.memory for r in rows], existing)
            if keep:
                copy_memories(cur, (rows[i] for i in keep))
                link_memories(cur, scope.tenant_id, (rows[i].memory for i in keep))
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
        return outcomes

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
        A change of ``entities`` relinks the memory in the same transaction.

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
        vec = (
            vector_param(embedding, self._conn.dim(), "embedding")
            if embedding is not None
            else None
        )
        with self._conn.tx(scope) as cur:
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
                # The extra legs' vectors were made from the old content: cleared, refilled by
                # the caller (or by `memory-engine reembed`); never searched stale.
                sets.append(sql.SQL("embedding_ml = NULL"))
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
            if after.entities != before.entities:
                relink_memory(cur, after)
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
        """Erase a memory in one transaction: delete its entity links (and the entities left
        unlinked) and the row (content, vector; the keyword postings go with it by trigger),
        write a ``purge`` event, then redact the content from every event snapshot of the
        memory (the new one included) and from stored traces
        (:func:`~memory_engine.stores.postgres.lifecycle.redact_in_tx`). Runs on the owner's
        connection (tenant set, the same row-level security for a non-superuser owner): the
        redaction function is not executable by the application role.

        Raises:
            MemoryNotFoundError: no such memory in the scope.
            VersionConflictError: ``expected_version`` is given and is not the current version.
        """
        with self._conn.owner_tx(scope) as cur:  # redact_memory_events is owner-only
            lock_tenant(cur, scope.tenant_id)
            before = self._locked(cur, memory_id, scope)
            if expected_version is not None:
                check_version(before, expected_version)
            unlink_memory(cur, scope.tenant_id, memory_id)
            cur.execute(
                "DELETE FROM memories WHERE tenant_id = %s AND id = %s",
                [scope.tenant_id, memory_id],
            )
            reason = erase_quotes(reason, before.content)
            insert_event(cur, event_values(before, "purge", actor, before=before, reason=reason))
            redact_in_tx(cur, memory_id, scope.tenant_id, before.content)

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """Store a trace, then drop the oldest traces of its client (same user and agent id)
        beyond ``trace_retention``, the tenant's traces older than ``trace_retention_days``
        before this one, and the tenant's oldest beyond ``trace_retention_tenant``
        (:func:`~memory_engine.stores.postgres.traces.insert_trace`: index range deletes by
        insertion order, no scan of the kept traces).

        Traces are immutable: saving an id that is already stored keeps the stored one.

        Raises:
            TenantScopeError: the trace belongs to another tenant than the scope.
        """
        check_trace_scope(trace, scope)
        storage = self._conn.settings.storage
        if storage.trace_retention == 0:
            return
        with self._conn.tx(scope) as cur:
            insert_trace(cur, trace, scope, storage)
