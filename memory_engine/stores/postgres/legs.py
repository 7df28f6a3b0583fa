"""Extra dense legs of the PostgreSQL store (:class:`memory_engine.stores.base.VectorLegs`).

Each extra leg has its own ``vector`` column on ``memories`` (``dense_ml`` ->
``embedding_ml``, migration 0006) and its own HNSW index (cosine), built when the leg is first
recorded in ``embedding_legs`` (a schema change on the owner login, under the migration lock,
like ``ensure_embedding``). Vectors are written by the application role, tenant-scoped.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Mapping, Sequence

import numpy as np
from psycopg import sql

from memory_engine.errors import InvalidInputError
from memory_engine.models import Candidate, MemoryStatus, Scope
from memory_engine.stores.base import EXTRA_LEGS, STAGING_LEG, LegRecord, LegState
from memory_engine.stores.common import (
    check_k,
    check_record_ids,
    query_vector_param,
    search_statuses,
    vector_param,
)
from memory_engine.stores.legs import LegBook, check_leg, first_state, unstaged_error
from memory_engine.stores.postgres.connection import HNSW_MAX_DIM, PgConnection
from memory_engine.stores.postgres.migrate import MIGRATION_LOCK_KEY
from memory_engine.stores.postgres.records import vector_floats
from memory_engine.stores.postgres.sql import LEG_COLUMNS, dense_search

#: Rows per UPDATE statement of ``set_leg_vectors`` (one transaction for the whole call).
SET_CHUNK = 500


def leg_column(leg: str) -> str:
    """The ``memories`` column of an extra leg.

    Raises:
        InvalidInputError: not one of :data:`memory_engine.stores.base.EXTRA_LEGS`.
    """
    check_leg(leg)
    if leg not in LEG_COLUMNS:
        raise InvalidInputError(f"unknown dense leg {leg!r}", leg=leg, known=list(EXTRA_LEGS))
    return LEG_COLUMNS[leg]


class PgVectorLegs:
    """Record, write, search and count the extra dense legs of one PostgreSQL store.

    Args:
        conn: the store's shared connection (pool, tenant transactions, owner path, settings).
    """

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn
        self._book = LegBook(self._read_records)

    def _read_records(self) -> dict[str, LegRecord]:
        with self._conn.tx(None) as cur:
            rows = cur.execute("SELECT leg, model, dim, state FROM embedding_legs").fetchall()
        return {
            str(r[0]): LegRecord(leg=str(r[0]), model=str(r[1]), dim=int(r[2]), state=r[3])
            for r in rows
        }

    def leg_records(self) -> dict[str, LegRecord]:
        """Every recorded extra leg (read from ``embedding_legs``; cached until it changes)."""
        return self._book.records()

    def insert_vectors(self, vectors: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
        """A new memory's leg vectors, checked (:meth:`LegBook.insert_vectors`)."""
        return self._book.insert_vectors(vectors)

    def ensure_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """See :meth:`memory_engine.stores.base.VectorLegs.ensure_leg`; the first call types the
        leg's column ``vector(dim)`` and builds its HNSW index (dim <= 2000). The leg is
        ``ready`` when no embedding was recorded yet (a new store: every write fills it), else
        ``filling``."""
        column = leg_column(leg)
        known = self._book.known(leg, model, dim)
        if known is not None:
            return known
        with self._conn.owner_tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK_KEY])
            row = cur.execute(
                "SELECT model, dim, state FROM embedding_legs WHERE leg = %s", [leg]
            ).fetchone()
            if row is None:
                # A store that recorded its embedding may hold memories without this leg.
                used = cur.execute("SELECT count(*) FROM embedding_config").fetchone()
                state = first_state(bool(used and used[0]))
                self._retype(cur, column, dim)
                cur.execute(
                    "INSERT INTO embedding_legs (leg, model, dim, state) VALUES (%s, %s, %s, %s)",
                    [leg, model, dim, state],
                )
        return self.leg_records()[leg]

    @staticmethod
    def _retype(cur: object, column: str, dim: int) -> None:
        """Type ``column`` as ``vector(dim)`` (values cleared) and (re)build its HNSW index
        (none for the staging column: it is only ever scanned exactly)."""
        index = sql.Identifier(f"memories_{column}_hnsw")
        col = sql.Identifier(column)
        execute = cur.execute  # type: ignore[attr-defined]
        execute(sql.SQL("DROP INDEX IF EXISTS {}").format(index))
        execute(
            sql.SQL("ALTER TABLE memories ALTER COLUMN {col} TYPE vector({dim}) USING NULL").format(
                col=col, dim=sql.Literal(dim)
            )
        )
        if dim <= HNSW_MAX_DIM and column != LEG_COLUMNS[STAGING_LEG]:
            execute(
                sql.SQL("CREATE INDEX {} ON memories USING hnsw ({} vector_cosine_ops)").format(
                    index, col
                )
            )

    def replace_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """Record the leg anew with another model or dimension: its vectors are cleared and it
        is ``filling`` until re-filled (``memory-engine reembed --leg``)."""
        column = leg_column(leg)
        self._book.known(leg, model, dim)
        with self._conn.owner_tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK_KEY])
            self._retype(cur, column, dim)
            cur.execute("DELETE FROM embedding_legs WHERE leg = %s", [leg])
            cur.execute(
                "INSERT INTO embedding_legs (leg, model, dim, state) "
                "VALUES (%s, %s, %s, 'filling')",
                [leg, model, dim],
            )
        return self.leg_records()[leg]

    def commit_primary(self, model: str, dim: int) -> None:
        """See :meth:`memory_engine.stores.base.VectorLegs.commit_primary`: one owner
        transaction (writes wait on a table lock, searches on the column rewrite) rewrites
        ``embedding`` from ``embedding_next``, rebuilds its HNSW index, sets every memory's
        ``embedding_model`` and the store's record, and clears the staging column.

        Row-level security is lifted for the owner in this transaction only (``NO FORCE``,
        restored before commit, as in the backfills): a non-superuser owner (a managed
        database) would otherwise see no row, so the unstaged check would pass on nothing and
        no memory's ``embedding_model`` would change."""
        self._book.staged(model, dim)
        with self._conn.owner_tx() as cur:
            cur.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK_KEY])
            cur.execute("LOCK TABLE memories IN SHARE ROW EXCLUSIVE MODE")
            cur.execute("ALTER TABLE memories NO FORCE ROW LEVEL SECURITY")
            row = cur.execute(
                "SELECT count(*) FROM memories WHERE embedding IS NOT NULL "
                "AND embedding_next IS NULL"
            ).fetchone()
            if row and row[0]:
                raise unstaged_error(int(row[0]))
            cur.execute("DROP INDEX IF EXISTS memories_embedding_hnsw")
            cur.execute(
                sql.SQL(
                    "ALTER TABLE memories ALTER COLUMN embedding TYPE vector({dim}) "
                    "USING embedding_next::vector({dim})"
                ).format(dim=sql.Literal(dim))
            )
            if dim <= HNSW_MAX_DIM:
                cur.execute(
                    "CREATE INDEX memories_embedding_hnsw ON memories "
                    "USING hnsw (embedding vector_cosine_ops)"
                )
            cur.execute(
                "UPDATE memories SET embedding_model = %s "
                "WHERE embedding_model IS DISTINCT FROM %s",
                [model, model],
            )
            cur.execute("ALTER TABLE memories ALTER COLUMN embedding_next TYPE vector USING NULL")
            cur.execute("DELETE FROM embedding_legs WHERE leg = %s", [STAGING_LEG])
            cur.execute("UPDATE embedding_config SET model = %s, dim = %s", [model, dim])
            cur.execute("ALTER TABLE memories FORCE ROW LEVEL SECURITY")
        self._conn.embedding_info()  # refresh the cached record
        self.leg_records()

    def set_leg_state(self, leg: str, state: LegState) -> None:
        """See :meth:`memory_engine.stores.base.VectorLegs.set_leg_state`."""
        self._book.get(leg)
        with self._conn.owner_tx() as cur:
            cur.execute("UPDATE embedding_legs SET state = %s WHERE leg = %s", [state, leg])
        self.leg_records()

    def set_leg_vectors(
        self, leg: str, vectors: Mapping[uuid.UUID, Sequence[float]], *, scope: Scope
    ) -> int:
        """See :meth:`memory_engine.stores.base.VectorLegs.set_leg_vectors` (one UPDATE per
        batch, in one tenant transaction)."""
        column = leg_column(leg)
        dim = self._book.get(leg).dim
        if not vectors:
            return 0
        ids = list(vectors)
        vecs = [vector_param(vectors[i], dim, f"{leg} vector") for i in ids]
        # One statement per batch (the keyword-statistics trigger runs once per statement);
        # vectors travel as pgvector text literals.
        texts = ["[" + ",".join(repr(float(x)) for x in v) + "]" for v in vecs]
        query = sql.SQL(
            "UPDATE memories m SET {col} = v.vec::vector FROM "
            "unnest(%s::uuid[], %s::text[]) AS v(id, vec) "
            "WHERE m.tenant_id = %s AND m.id = v.id AND m.embedding IS NOT NULL"
        ).format(col=sql.Identifier(column))
        done = 0
        with self._conn.tx(scope) as cur:
            for start in range(0, len(ids), SET_CHUNK):
                chunk = slice(start, start + SET_CHUNK)
                cur.execute(query, [ids[chunk], texts[chunk], scope.tenant_id])
                done += int(cur.rowcount or 0)
        return done

    def leg_search(
        self,
        leg: str,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_search` (same exact/HNSW strategy
        as the primary leg, on the leg's column)."""
        check_k(k)
        column = leg_column(leg)
        vec = query_vector_param(vector, self._book.get(leg).dim)
        storage = self._conn.settings.storage
        with self._conn.tx(scope) as cur:
            return dense_search(
                cur,
                vec,
                scope=scope,
                k=k,
                statuses=search_statuses(statuses),
                exact_max_rows=storage.exact_search_max_rows,
                ef_max=storage.hnsw_ef_search_max,
                max_scan_tuples=storage.hnsw_max_scan_tuples,
                iterative_scan=self._conn.iterative_scan,
                column=column,
                leg=leg,
            )

    def leg_missing(
        self, leg: str, *, scope: Scope, limit: int = 256, after: uuid.UUID | None = None
    ) -> builtins.list[tuple[uuid.UUID, str]]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_missing`."""
        col = sql.Identifier(leg_column(leg))
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT id, content FROM memories WHERE tenant_id = %s AND {} IS NULL "
                    "AND embedding IS NOT NULL AND (%s::uuid IS NULL OR id > %s::uuid) "
                    "ORDER BY id LIMIT %s"
                ).format(col),
                [scope.tenant_id, after, after, limit],
            ).fetchall()
        return [(r[0], str(r[1])) for r in rows]

    def leg_counts(self, leg: str, *, scope: Scope) -> tuple[int, int]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_counts`."""
        col = sql.Identifier(leg_column(leg))
        with self._conn.tx(scope) as cur:
            row = cur.execute(
                sql.SQL(
                    "SELECT count({}), count(*) FROM memories WHERE tenant_id = %s "
                    "AND embedding IS NOT NULL"
                ).format(col),
                [scope.tenant_id],
            ).fetchone()
        return (int(row[0]), int(row[1])) if row else (0, 0)

    def leg_vectors(
        self, leg: str, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> dict[uuid.UUID, tuple[float, ...]]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_vectors`."""
        col = sql.Identifier(leg_column(leg))
        ids = check_record_ids(memory_ids, self._conn.settings.limits.list_max_limit)
        if not ids or leg not in self.leg_records():
            return {}
        with self._conn.tx(scope) as cur:
            rows = cur.execute(
                sql.SQL(
                    "SELECT id, {col} FROM memories WHERE tenant_id = %s AND id = ANY(%s) "
                    "AND {col} IS NOT NULL"
                ).format(col=col),
                [scope.tenant_id, ids],
            ).fetchall()
        return {r[0]: vec for r in rows if (vec := vector_floats(r[1])) is not None}
