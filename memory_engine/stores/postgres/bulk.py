"""Bulk import path of the PostgreSQL store (:meth:`PgBulkWriter.bulk_insert`).

Inserting into an HNSW-indexed table costs milliseconds per row (the index is updated row by
row); building the index over the finished table is far cheaper per row when the batch is a
good share of the table (docs/architecture.md#measured-facts: 48 s for 100k x 384 with
``maintenance_work_mem=1GB``, the default of ``storage.index_build_memory_mb``). So a bulk import:

1. streams the items (any iterable, e.g. a generator that embeds lazily) with binary COPY into
   a temp table, holding no lock on ``memories``;
2. in ONE transaction: takes the tenant's write lock; when the batch is large relative to the
   table (:func:`should_rebuild`), drops the HNSW indexes (the primary one and each extra
   leg's, :data:`HNSW_INDEXES`; as the owner role); dedupes by
   content hash in SQL; inserts the rows and one ``create`` event per memory with one
   ``INSERT ... SELECT`` each (row-level security checks them: the data statements run as the
   application role); rebuilds the HNSW indexes with a large ``maintenance_work_mem``; commits.
   The items' leg vectors (``NewMemory.legs``) are columns of the same rows.

The drop and the rebuild are in the same transaction as the rows, so the index is never missing
after the call, whether it returns or raises (a failure rolls the drop back). While the index
is being rebuilt the transaction holds an ACCESS EXCLUSIVE lock on ``memories``: every other
reader and writer, of every tenant, waits for the rebuild. That is why the rebuild is chosen
only when the batch is at least :data:`REBUILD_MIN_ROWS` rows and :data:`REBUILD_FRACTION` of
the table; smaller batches keep the index and insert through it (still one statement, no
per-row round trips). ``rebuild_index=True/False`` overrides the choice.
"""

from __future__ import annotations

import itertools
import logging
from collections.abc import Iterable, Iterator
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from memory_engine.errors import (
    InvalidInputError,
)
from memory_engine.models import Memory, Scope
from memory_engine.stores.base import InsertOutcome, NewMemory
from memory_engine.stores.postgres.connection import PgConnection
from memory_engine.stores.postgres.entities import link_memories
from memory_engine.stores.postgres.keyword import lock_tenant
from memory_engine.stores.postgres.sql import INSERT_LEG_COLUMNS, columns, table_rows
from memory_engine.stores.postgres.writes import (
    COPY_COLUMNS,
    COPY_TYPES,
    LegCheck,
    copy_rows,
    prepare_row,
    unique_violation_message,
)

logger = logging.getLogger("memory_engine.stores.postgres.store")

#: Name of the HNSW index made by ``ensure_embedding``.
HNSW_INDEX = "memories_embedding_hnsw"
#: Every HNSW index a bulk import may rebuild: the primary one and each extra leg's (made by
#: ``ensure_leg``; the leg vectors travel in the same rows).
HNSW_INDEXES: tuple[str, ...] = (
    HNSW_INDEX,
    *(f"memories_{column}_hnsw" for column in INSERT_LEG_COLUMNS),
)
#: Rebuild the HNSW index only for batches of at least this many rows ...
REBUILD_MIN_ROWS = 1000
#: ... that are at least this share of the rows already in the table (all tenants).
REBUILD_FRACTION = 0.2
#: Parallel workers of the HNSW rebuild besides the leader (pgvector >= 0.6 builds in parallel;
#: 20k random x 384 on the shared 2-core machine: 30.7 s serial, 17.8 s with 2 workers). It is
#: PostgreSQL's default too; set here so a server configured lower still builds in parallel.
#: PostgreSQL caps it at ``max_parallel_workers`` / ``max_worker_processes`` and the table size.
REBUILD_PARALLEL_WORKERS = 2
#: How long the bulk transaction waits for the table lock before failing (nothing changed).
LOCK_TIMEOUT = "60s"
#: After a bulk insert of at least this many rows, VACUUM (ANALYZE) the tables searches read: the
#: postings need the visibility map for index-only scans, and the planner needs statistics of
#: ``keyword_df`` (without them the keyword leg's df lookup read all of a tenant's df rows: 1.4
#: ms instead of 0.3 ms at 100k memories). ``events`` (only appended to) is left to autovacuum.
VACUUM_MIN_ROWS = 1000

_STAGED = "bulk_staged"


def should_rebuild(batch_rows: int, table_rows: float) -> bool:
    """True when dropping and rebuilding the HNSW index is the cheaper way to add the batch."""
    return batch_rows >= REBUILD_MIN_ROWS and batch_rows >= REBUILD_FRACTION * max(table_rows, 0)


class PgBulkWriter:
    """The bulk import part of :class:`PostgresStore` (a ``BulkLoader``)."""

    def __init__(self, conn: PgConnection, check_legs: LegCheck, build_memory_mb: int) -> None:
        """``build_memory_mb``: ``maintenance_work_mem`` of an index rebuild, MiB
        (``storage.index_build_memory_mb``; docs/architecture.md#measured-facts: 1 GiB
        builds 4x faster than 64 MiB)."""
        self._conn = conn
        self._check_legs = check_legs
        self._build_memory = f"{build_memory_mb}MB"

    def bulk_insert(
        self,
        items: Iterable[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
        rebuild_index: bool | None = None,
    ) -> list[InsertOutcome]:
        """Insert many memories in one transaction, one ``create`` event each (bulk path).

        Same contract as ``insert`` (scope checks, embedding model check, dedupe of ACTIVE
        items by ``content_hash`` against the tenant and earlier items, outcomes in item order),
        but ``items`` may be any iterable and is consumed once, and large batches rebuild the
        HNSW index instead of inserting through it (see the module docstring).

        Args:
            rebuild_index: None = decide by size (:func:`should_rebuild`); True/False forces.

        Raises:
            TenantScopeError, InvalidInputError, EmbeddingMismatchError: as ``insert``; nothing
                is written.
            StoreError: the table lock was not granted within ``LOCK_TIMEOUT``, or the rebuild
                failed; nothing is written and the index is unchanged.
        """
        return self.bulk_load(
            [(scope, items)],
            actor=actor,
            reason=reason,
            request_id=request_id,
            rebuild_index=rebuild_index,
        )[0]

    def bulk_load(
        self,
        batches: Iterable[tuple[Scope, Iterable[NewMemory]]],
        *,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
        rebuild_index: bool | None = None,
    ) -> list[list[InsertOutcome]]:
        """``bulk_insert`` of several tenants' batches in ONE transaction: the bulk path for
        a store that already holds other tenants, or that loads many tenants at once.

        Every batch is staged first (streamed; any iterables, each consumed once), so the
        rebuild decision (:func:`should_rebuild`) sees the whole load: 100 batches of 1,000
        rows into a table that grows to 100k rows rebuild the HNSW index once instead of
        inserting most rows through it one by one. Each batch is then deduped and inserted
        exactly as by ``bulk_insert``, under its tenant's write lock (all taken first, in
        tenant-id order) and the row-level security of its own tenant.

        Returns:
            The outcomes of each batch, in batch order (each in item order).

        Raises:
            As ``bulk_insert``; nothing of any batch is written.
        """
        with self._conn.owner_session() as conn:
            with conn.transaction():
                cur = conn.cursor()
                _create_staged(cur)
                staged: list[tuple[Scope, int]] = []  # (scope, rows staged)
                n = 0
                for scope, items in batches:
                    it = iter(items)
                    first = next(it, None)
                    rows = 0
                    if first is not None:
                        model, dim = self._conn.model_dim(first)
                        chained = itertools.chain([first], it)
                        rows = _copy_staged(cur, chained, scope, (model, dim, self._check_legs), n)
                    staged.append((scope, rows))
                    n += rows
                if n == 0:
                    return [[] for _ in staged]
                # Every per-batch statement below reads one batch's ``ord`` span: without
                # this index each one scanned the whole load (100 batches: 100 full scans).
                cur.execute(sql.SQL("CREATE INDEX ON {} (ord)").format(sql.Identifier(_STAGED)))
                cur.execute(sql.SQL("ANALYZE {}").format(sql.Identifier(_STAGED)))
                for tenant in sorted({s.tenant_id for s, rows in staged if rows}):
                    lock_tenant(cur, tenant)
                indexdefs = _hnsw_definitions(cur)
                rebuild = bool(indexdefs) and (
                    rebuild_index
                    if rebuild_index is not None
                    else should_rebuild(n, table_rows(cur))
                )
                if rebuild:
                    _as_owner(
                        cur,
                        self._conn.role,
                        sql.SQL("SET LOCAL lock_timeout = {}").format(sql.Literal(LOCK_TIMEOUT)),
                        *(
                            sql.SQL("DROP INDEX {}").format(sql.Identifier(name))
                            for name in indexdefs
                        ),
                    )
                results: list[list[InsertOutcome]] = []
                created = 0
                first_ord = 0
                for scope, rows in staged:
                    span = (first_ord, first_ord + rows)  # this batch's rows only
                    first_ord += rows
                    if not rows:
                        results.append([])
                        continue
                    cur.execute("SELECT set_config('app.tenant_id', %s, true)", [scope.tenant_id])
                    outcomes, made = _insert_staged(cur, scope, span, actor, reason, request_id)
                    results.append(outcomes)
                    created += made
                if rebuild:
                    _as_owner(
                        cur,
                        self._conn.role,
                        sql.SQL("SET LOCAL maintenance_work_mem = {}").format(
                            sql.Literal(self._build_memory)
                        ),
                        sql.SQL("SET LOCAL max_parallel_maintenance_workers = {}").format(
                            sql.Literal(REBUILD_PARALLEL_WORKERS)
                        ),
                        *(sql.SQL(indexdef) for indexdef in indexdefs.values()),
                    )
            logger.info(
                "bulk insert: %d items in %d batches, %d created, HNSW index %s",
                n,
                len(staged),
                created,
                "rebuilt" if rebuild else "kept",
            )
            if created >= VACUUM_MIN_ROWS:
                _vacuum(conn)
        return results


def _create_staged(cur: psycopg.Cursor[Any]) -> None:
    """The temp table ``bulk_staged`` (dropped at commit): the memory columns, the item's
    position ``ord`` (across batches), its ``create`` event snapshot and its duplicate."""
    cur.execute(
        sql.SQL(
            "CREATE TEMP TABLE {staged} ON COMMIT DROP AS "
            "SELECT 0 AS ord, {cols}, NULL::jsonb AS event_after, NULL::uuid AS dup_of "
            "FROM memories WITH NO DATA"
        ).format(staged=sql.Identifier(_STAGED), cols=columns(COPY_COLUMNS))
    )


def _copy_staged(
    cur: psycopg.Cursor[Any],
    items: Iterable[NewMemory],
    scope: Scope,
    checks: tuple[str, int, LegCheck],
    first_ord: int,
) -> int:
    """COPY the validated items of ``scope`` into ``bulk_staged`` from position
    ``first_ord`` on (``checks``: the recorded model and dimension, the leg check); returns
    how many."""
    count = 0
    model, dim, check_legs = checks

    def rows() -> Iterator[tuple[Any, ...]]:
        nonlocal count
        for item in items:
            row = prepare_row(item, scope, model, dim, check_legs)
            yield (first_ord + count, *row.values, Jsonb(row.memory.public_dict()))
            count += 1

    copy_rows(
        cur,
        _STAGED,
        ("ord", *COPY_COLUMNS, "event_after"),
        ("int4", *COPY_TYPES, "jsonb"),
        rows(),
    )
    return count


def _insert_staged(
    cur: psycopg.Cursor[Any],
    scope: Scope,
    span: tuple[int, int],
    actor: str,
    reason: str | None,
    request_id: str | None,
) -> tuple[list[InsertOutcome], int]:
    """Dedupe the staged rows of one batch (positions ``span[0] <= ord < span[1]``; several
    batches may share a tenant), insert the rest and their events; outcomes in item order."""
    t = {"t": scope.tenant_id, "lo": span[0], "hi": span[1]}
    # An active memory of the tenant with the same owner and hash (served by the unique index).
    cur.execute(
        """
        UPDATE bulk_staged s SET dup_of = m.id FROM memories m
        WHERE s.tenant_id = %(t)s AND s.ord >= %(lo)s AND s.ord < %(hi)s
          AND s.status = 'active' AND s.content_hash <> ''
          AND m.tenant_id = %(t)s AND m.status = 'active' AND m.content_hash <> ''
          AND coalesce(m.user_id, '') = coalesce(s.user_id, '')
          AND m.content_hash = s.content_hash
        """,
        t,
    )
    # Within the batch the first item wins.
    cur.execute(
        """
        UPDATE bulk_staged s SET dup_of = f.first_id
        FROM (SELECT ord, first_value(id) OVER (
                         PARTITION BY coalesce(user_id, ''), content_hash ORDER BY ord) AS first_id
              FROM bulk_staged
              WHERE tenant_id = %(t)s AND ord >= %(lo)s AND ord < %(hi)s
                AND status = 'active' AND content_hash <> '' AND dup_of IS NULL) f
        WHERE s.ord = f.ord AND f.first_id <> s.id
        """,
        t,
    )
    cols = columns(COPY_COLUMNS)
    try:
        cur.execute(
            sql.SQL(
                "INSERT INTO memories ({cols}) SELECT {cols} FROM bulk_staged "
                "WHERE tenant_id = %(t)s AND ord >= %(lo)s AND ord < %(hi)s AND dup_of IS NULL "
                "ORDER BY ord"
            ).format(cols=cols),
            t,
        )
    except psycopg.errors.UniqueViolation as exc:
        raise InvalidInputError(unique_violation_message(exc)) from exc
    created = cur.rowcount
    link_memories(
        cur,
        scope.tenant_id,
        (
            Memory(
                id=mid,
                tenant_id=scope.tenant_id,
                content="-",
                entities=tuple(names),
                metadata=meta or {},
            )
            for mid, names, meta in cur.execute(
                "SELECT id, entities, metadata FROM bulk_staged WHERE tenant_id = %(t)s "
                "AND ord >= %(lo)s AND ord < %(hi)s "
                "AND dup_of IS NULL AND cardinality(entities) > 0 ORDER BY ord",
                t,
            ).fetchall()
        ),
    )
    cur.execute(
        """
        INSERT INTO events (tenant_id, user_id, agent_id, session_id, memory_id, action, actor,
                            after, reason, request_id, details)
        SELECT tenant_id, user_id, agent_id, session_id, id, 'create', %(actor)s, event_after,
               %(reason)s, %(request_id)s, '{}'::jsonb
        FROM bulk_staged WHERE tenant_id = %(t)s AND ord >= %(lo)s AND ord < %(hi)s
          AND dup_of IS NULL ORDER BY ord
        """,
        {"actor": actor, "reason": reason, "request_id": request_id, **t},
    )
    outcomes = [
        InsertOutcome(memory_id=mid, status="created")
        if dup is None
        else InsertOutcome(memory_id=mid, status="duplicate", existing_id=dup)
        for mid, dup in cur.execute(
            "SELECT id, dup_of FROM bulk_staged WHERE tenant_id = %(t)s "
            "AND ord >= %(lo)s AND ord < %(hi)s ORDER BY ord",
            t,
        )
    ]
    return outcomes, created


def _hnsw_definitions(cur: psycopg.Cursor[Any]) -> dict[str, str]:
    """``CREATE INDEX`` statement of each of :data:`HNSW_INDEXES` that exists, by name, the
    primary one first (none for a dimension above 2000, or a leg not recorded)."""
    rows = cur.execute(
        "SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = current_schema() "
        "AND tablename = 'memories' AND indexname = ANY(%s)",
        [list(HNSW_INDEXES)],
    ).fetchall()
    found = {str(r[0]): str(r[1]) for r in rows}
    return {name: found[name] for name in HNSW_INDEXES if name in found}


def _as_owner(cur: psycopg.Cursor[Any], app_role: str, *statements: sql.SQL | sql.Composed) -> None:
    """Run ``statements`` as the owner (login) role, then switch back to ``app_role``."""
    cur.execute("SET LOCAL ROLE NONE")
    for statement in statements:
        cur.execute(statement)
    cur.execute(sql.SQL("SET LOCAL ROLE {}").format(sql.Identifier(app_role)))


def _vacuum(conn: psycopg.Connection[Any]) -> None:
    """VACUUM (ANALYZE) the tables a bulk insert filled, as the owner; failures only log.

    PostgreSQL skips a table the login role does not own with only a WARNING notice (a server
    given by ``MEMORY_DATABASE_URL`` whose tables belong to another role): those notices are
    logged too, so missing statistics do not go unnoticed.
    """

    def log_notice(diag: psycopg.errors.Diagnostic) -> None:
        if diag.severity_nonlocalized in ("WARNING", "ERROR"):
            logger.warning("bulk insert: VACUUM/ANALYZE after the import: %s", diag.message_primary)

    conn.add_notice_handler(log_notice)
    try:
        conn.execute("RESET ROLE")
        conn.execute("VACUUM (ANALYZE) keyword_postings, memories, keyword_df, keyword_corpus")
    except psycopg.Error as exc:  # the rows are committed; statistics catch up later
        logger.warning("bulk insert: VACUUM/ANALYZE after the import failed: %s", exc)
    finally:
        conn.remove_notice_handler(log_notice)
