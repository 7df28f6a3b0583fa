"""The one connection object every module of the PostgreSQL store shares.

Pooled connections log in as the owner and immediately ``SET ROLE`` to the NOLOGIN application
role (``Settings.db_app_role``), which row-level security applies to; every transaction sets
``app.tenant_id`` with ``set_config(..., true)`` (SET LOCAL) before anything else. Only
migrations, ``ensure_embedding`` (a schema change), the audited admin reads and the index
drop/rebuild of the bulk import use the owner role, on short-lived connections of their own.

psycopg errors are mapped here (:func:`mapped_errors`): connection problems, a closed pool and
pool timeouts to StoreUnavailableError, rejected values to InvalidInputError, anything else to
StoreError (``raise ... from``).
"""

from __future__ import annotations

import builtins
import logging
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from memory_engine.config import Settings
from memory_engine.errors import (
    InvalidInputError,
    MemoryEngineError,
    StoreError,
    StoreUnavailableError,
)
from memory_engine.models import Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.common import (
    check_admin_read,
    check_embedding_spec,
    check_same_embedding,
    first_embedding,
)
from memory_engine.stores.postgres.migrate import MIGRATION_LOCK_KEY

logger = logging.getLogger(__name__)

#: Largest vector dimension pgvector 0.6 can index with HNSW; larger ones are searched exactly.
HNSW_MAX_DIM = 2000


@contextmanager
def mapped_errors() -> Iterator[None]:
    """Map psycopg errors raised inside the block to the engine's typed errors."""
    try:
        yield
    except MemoryEngineError:
        raise
    except PoolClosed as exc:
        raise StoreUnavailableError("the store is closed") from exc
    except psycopg.OperationalError as exc:
        raise StoreUnavailableError(f"PostgreSQL unavailable: {exc}") from exc
    except psycopg.DataError as exc:  # e.g. a NUL character in text
        raise InvalidInputError(f"value rejected by PostgreSQL: {exc}") from exc
    except psycopg.Error as exc:
        raise StoreError(f"PostgreSQL error: {exc}", sqlstate=exc.sqlstate) from exc


class PgConnection:
    """The pool, the transaction helpers and the recorded embedding of one PostgreSQL store.

    Args:
        settings: engine settings (db_app_role, db_pool_max, and what the modules read:
            exact_search_max_rows, hnsw_ef_search_max, trace_retention, list_max_limit).
        conninfo: owner login URL (migrations must have run).

    Raises:
        StoreUnavailableError: the pool cannot open a connection within 15 s.
    """

    def __init__(self, settings: Settings, conninfo: str) -> None:
        self.settings = settings
        self.conninfo = conninfo
        self.role = settings.storage.db_app_role
        self._embedding: tuple[str, int] | None = None
        self.pool: ConnectionPool = ConnectionPool(
            conninfo,
            min_size=1,
            max_size=settings.storage.db_pool_max,
            kwargs={"prepare_threshold": None, "autocommit": True},
            configure=self._configure,
            check=ConnectionPool.check_connection,
            name="memory_engine",
            open=False,
        )
        try:
            self.pool.open(wait=True, timeout=15.0)
        except PoolTimeout as exc:
            self.pool.close()
            raise StoreUnavailableError(f"cannot open a connection pool: {exc}") from exc

    def close(self) -> None:
        """Close the connection pool. Safe to call twice."""
        self.pool.close()

    def _configure(self, conn: psycopg.Connection) -> None:
        """Per pooled connection: become the RLS-bound app role, UTC, pgvector adapters."""
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.role)))
        conn.execute("SET TimeZone = 'UTC'")
        register_vector(conn)

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def tx(self, scope: Scope | None) -> Iterator[psycopg.Cursor[Any]]:
        """A pooled transaction as the app role with ``app.tenant_id`` set (SET LOCAL)."""
        with mapped_errors(), self.pool.connection() as conn, conn.transaction():
            cur = conn.cursor()
            if scope is not None:
                cur.execute("SELECT set_config('app.tenant_id', %s, true)", [scope.tenant_id])
            yield cur

    @contextmanager
    def owner_tx(self) -> Iterator[psycopg.Cursor[Any]]:
        """A transaction on a fresh owner connection (schema changes and the admin path only)."""
        with (
            mapped_errors(),
            psycopg.connect(self.conninfo, autocommit=True, prepare_threshold=None) as conn,
            conn.transaction(),
        ):
            yield conn.cursor()

    @contextmanager
    def owner_session(self) -> Iterator[psycopg.Connection[Any]]:
        """A fresh owner connection (for DROP/CREATE INDEX) whose session role is the app role."""
        with (
            mapped_errors(),
            psycopg.connect(self.conninfo, autocommit=True, prepare_threshold=None) as conn,
        ):
            conn.execute("SET TimeZone = 'UTC'")
            register_vector(conn)
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(self.role)))
            yield conn

    def admin_rows(
        self, what: str, query: str, *, actor: str, reason: str
    ) -> builtins.list[tuple[Any, ...]]:
        """Run a cross-tenant ``query`` as the owner role and audit it in ``admin_audit``
        (actor, reason, ``{"what": what, "tenants": <rows>}``) in the same transaction.

        Raises:
            InvalidInputError: empty actor or reason.
        """
        check_admin_read(actor, reason)
        with self.owner_tx() as cur:
            cur.execute("SELECT set_config('memory_engine.admin_read', 'on', true)")
            rows = [tuple(r) for r in cur.execute(query).fetchall()]
            cur.execute(
                "INSERT INTO admin_audit (actor, action, reason, details) VALUES (%s, %s, %s, %s)",
                [actor, "admin_read", reason, Jsonb({"what": what, "tenants": len(rows)})],
            )
        return rows

    # ------------------------------------------------------------------ embedding config

    def embedding_info(self) -> tuple[str, int] | None:
        """The recorded (model, dim), or None when no embedding was recorded yet."""
        with self.tx(None) as cur:
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
        check_embedding_spec(model, dim)
        recorded = self._embedding or self.embedding_info()
        if recorded is None:
            with self.owner_tx() as cur:
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

    def dim(self) -> int | None:
        """The recorded vector dimension, or None when nothing is recorded yet."""
        recorded = self._embedding or self.embedding_info()
        return recorded[1] if recorded else None

    def model_dim(self, first: NewMemory) -> tuple[str, int]:
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
