"""The one connection object every module of the PostgreSQL store shares.

Two logins. Pooled connections, which run every query of the engine, log in as the application
role (``Settings.db_app_role``, or the user of ``Settings.database_app_url``): a LOGIN role that
is not a superuser, cannot bypass row-level security and is a member of no other role, so a
statement on such a connection (``RESET ROLE``, ``SET ROLE postgres``, ``SET SESSION
AUTHORIZATION``) cannot become anyone else. The store refuses to open when the role could
(:func:`check_app_login`). Every transaction sets ``app.tenant_id`` with ``set_config(..., true)``
(SET LOCAL) before anything else. The owner login (``MEMORY_DATABASE_URL``, the superuser
``postgres`` of the embedded server) runs only the migrations, ``ensure_embedding`` (a schema
change), the audited admin reads, ``purge``/redaction (which call the owner-only function
``redact_memory_events``) and the index drop/rebuild of the bulk import, on short-lived
connections of their own.

psycopg errors are mapped here (:func:`mapped_errors`): connection problems, a closed pool and
pool timeouts to StoreUnavailableError, rejected values to InvalidInputError, anything else to
StoreError (``raise ... from``).
"""

from __future__ import annotations

import builtins
import logging
import re
import select
import threading
import time
import weakref
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager, suppress
from typing import Any

import psycopg
from pgvector.psycopg import register_vector
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from psycopg.types.json import Jsonb
from psycopg_pool import ConnectionPool, PoolClosed, PoolTimeout

from memory_engine.config import Settings
from memory_engine.errors import (
    EmbeddingMismatchError,
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
from memory_engine.stores.postgres.migrate import MIGRATION_LOCK_KEY, version_tuple

logger = logging.getLogger(__name__)

#: Largest vector dimension pgvector can index with HNSW (``vector``); larger ones are searched
#: exactly.
HNSW_MAX_DIM = 2000

#: pgvector version from which ``hnsw.iterative_scan`` exists.
ITERATIVE_SCAN_VERSION = (0, 8)

#: A pooled connection handed back more than this many seconds ago is checked with a round
#: trip before reuse (:class:`IdleCheck`); a more recent one only locally: closed, broken, or
#: its socket readable (the server closed it or sent a termination notice). 0: every checkout
#: gets the round trip. A connection the server drops in the instant between the check and
#: the transaction's first statement is replaced by :meth:`PgConnection.tx` (one retry).
POOL_CHECK_IDLE_S = 5.0


def app_conninfo(owner: str, role: str, app_url: str | None = None) -> tuple[str, str]:
    """The application login: ``(conninfo, role name)``.

    Args:
        owner: owner login URL or key=value string.
        role: ``Settings.db_app_role``, used when ``app_url`` is None or names no user.
        app_url: ``Settings.database_app_url`` (its user is the role) or None: then the owner's
            URL with the user replaced by ``role`` and no password (trust, peer or certificate
            authentication; the embedded server's Unix socket is ``trust``).
    """
    if app_url:
        user = conninfo_to_dict(app_url).get("user")
        return app_url, str(user) if user else role
    params = conninfo_to_dict(owner)
    params["user"] = role
    params.pop("password", None)
    params.pop("passfile", None)
    return make_conninfo("", **params), role


def app_login(settings: Settings, owner: str) -> tuple[str, str]:
    """:func:`app_conninfo` of ``settings`` (``database_app_url``, ``db_app_role``)."""
    app_url = settings.storage.database_app_url
    url = app_url.get_secret_value().strip() if app_url is not None else ""
    return app_conninfo(owner, settings.storage.db_app_role, url or None)


#: Roles the session user is a member of (directly or not) that are superusers, bypass row-level
#: security or own the tables; with the session user's own attributes. A safe application login
#: has none and neither attribute.
_ESCAPES = """
SELECT r.rolsuper, r.rolbypassrls,
       ARRAY(SELECT o.rolname FROM pg_roles o
             WHERE o.oid <> r.oid AND pg_has_role(r.oid, o.oid, 'MEMBER')
               AND (o.rolsuper OR o.rolbypassrls OR o.oid = (
                    SELECT relowner FROM pg_class WHERE oid = to_regclass('memories'))))
FROM pg_roles r WHERE r.rolname = session_user
"""


def check_app_login(conn: psycopg.Connection[Any]) -> None:
    """Refuse an application login that is, or can become, a superuser or the owner.

    Raises:
        StoreError: the session user is a superuser, has BYPASSRLS, or is a member of a role
            that is one of these or owns the tables (``SET ROLE`` would reach it).
    """
    row = conn.execute(_ESCAPES).fetchone()
    if row is None:  # pragma: no cover - session_user always has a pg_roles row
        raise StoreError("the application login has no pg_roles row")
    superuser, bypass, members = bool(row[0]), bool(row[1]), list(row[2] or [])
    if superuser or bypass or members:
        raise StoreError(
            "the application login can escape row-level security: "
            f"superuser={superuser}, bypassrls={bypass}, member of {members}; "
            "log the engine in as a role that is none of these (Settings.db_app_role, "
            "MEMORY_DATABASE_APP_URL)",
            superuser=superuser,
            bypassrls=bypass,
            member_of=members,
        )


#: pgvector's messages when a vector meets a column of another dimension (a search: "different
#: vector dimensions 512 and 384"; an insert: "expected 512 dimensions, not 384").
_DIMENSIONS_CHANGED_RE = re.compile(r"different vector dimensions|expected \d+ dimensions, not \d+")


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
        if _DIMENSIONS_CHANGED_RE.search(str(exc)):
            # pgvector compared a query vector with a column another process re-typed
            # (``memory-engine reembed`` switched the store while this engine was open).
            raise EmbeddingMismatchError(
                "the store's vectors changed dimension while this engine was open (another "
                "process switched it with `memory-engine reembed`): configure the store's "
                f"new embedder and reopen the engine ({exc})"
            ) from exc
        raise InvalidInputError(f"value rejected by PostgreSQL: {exc}") from exc
    except psycopg.Error as exc:
        raise StoreError(f"PostgreSQL error: {exc}", sqlstate=exc.sqlstate) from exc


#: SECURITY DEFINER functions of the schema the session user may execute (should be none).
_DEFINER_CALLABLE = """
SELECT p.oid::regprocedure::text FROM pg_proc p
WHERE p.prosecdef AND p.pronamespace = current_schema()::regnamespace
  AND has_function_privilege(session_user, p.oid, 'EXECUTE')
ORDER BY 1
"""


def role_escapes(conn: psycopg.Connection[Any]) -> list[str]:
    """Try, as raw SQL on ``conn``, what an injected statement would to leave its role.

    ``RESET ROLE`` (then ``current_user`` must be neither a superuser nor BYPASSRLS),
    ``SET ROLE`` and ``SET SESSION AUTHORIZATION`` to every superuser and to the tables' owner
    (each must fail with insufficient privilege), and which SECURITY DEFINER functions the
    login may call (none). Each attempt runs in its own transaction and is rolled back (which
    also undoes a SET that worked); ``conn`` must be in autocommit mode and should come from the
    engine's own pool.

    Returns:
        One finding per escape that worked (empty when the login is contained), e.g.
        ``"RESET ROLE -> postgres (superuser)"``.
    """
    findings: list[str] = []

    class _Rollback(Exception):
        pass

    def attempt(statement: sql.Composed | sql.SQL, check: sql.SQL | None = None) -> Any:
        result: Any = None
        try:
            with conn.transaction():
                conn.execute(statement)
                if check is not None:
                    result = conn.execute(check).fetchone()
                else:
                    result = True
                raise _Rollback
        except _Rollback:
            return result
        except psycopg.Error:  # insufficient privilege (or no such role): contained
            return None

    became = attempt(
        sql.SQL("RESET ROLE"),
        sql.SQL(
            "SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        ),
    )
    if became and (became[1] or became[2]):
        kind = "superuser" if became[1] else "bypassrls"
        findings.append(f"RESET ROLE -> {became[0]} ({kind})")
    targets = conn.execute(
        "SELECT rolname FROM pg_roles WHERE (rolsuper OR oid = (SELECT relowner FROM "
        "pg_class WHERE oid = to_regclass('memories'))) AND rolname <> session_user "
        "ORDER BY 1"
    ).fetchall()
    for (target,) in targets:
        for template in ("SET ROLE {}", "SET SESSION AUTHORIZATION {}"):
            statement = sql.SQL(template).format(sql.Identifier(str(target)))
            if attempt(statement):
                findings.append(f"{template.format(target)} succeeded")
    for (name,) in conn.execute(_DEFINER_CALLABLE).fetchall():
        findings.append(f"may EXECUTE the SECURITY DEFINER function {name}")
    return findings


def socket_readable(conn: psycopg.Connection[Any]) -> bool:
    """True when the idle connection's socket has something to read, without blocking.

    An idle connection between transactions has nothing to read: readable means the server
    closed it (end of file) or sent a message on its own, in practice the FATAL notice of a
    terminated backend (a restart, ``pg_terminate_backend``, an idle timeout). Either way the
    connection is not handed out. A socket that cannot be polled counts as readable.
    """
    try:
        ready, _, _ = select.select([conn.pgconn.socket], [], [], 0)
    except (OSError, ValueError, psycopg.Error):
        return True
    return bool(ready)


class IdleCheck:
    """The pool's connection check, with a round trip only for connections idle a while.

    ``ConnectionPool.check_connection`` sends an empty query on every checkout: a round trip
    per transaction (a search runs 4-5), ~8% of the MCP server's CPU under 20 clients
    (py-spy, bench/mcp_load.py). A connection handed back less than
    :data:`POOL_CHECK_IDLE_S` seconds ago is only checked locally: closed, broken, or its
    socket readable (:func:`socket_readable`: a dropped connection, found with a zero-timeout
    ``select``, no round trip). An older one also gets the round trip.
    """

    def __init__(self, idle_s: float | None = None) -> None:
        self.idle_s = POOL_CHECK_IDLE_S if idle_s is None else idle_s
        self._returned: weakref.WeakKeyDictionary[psycopg.Connection[Any], float] = (
            weakref.WeakKeyDictionary()
        )
        self._lock = threading.Lock()

    def returned(self, conn: psycopg.Connection[Any]) -> None:
        """Pool ``reset`` callback: note when ``conn`` came back."""
        with self._lock:
            self._returned[conn] = time.monotonic()

    def check(self, conn: psycopg.Connection[Any]) -> None:
        """Pool ``check`` callback. Raises psycopg.OperationalError for a dead connection."""
        if conn.closed or conn.broken:
            raise psycopg.OperationalError("connection closed")
        if socket_readable(conn):
            conn.close()  # so the pool discards it (it keeps a connection libpq deems fine)
            raise psycopg.OperationalError("the server closed the connection")
        with self._lock:
            since = self._returned.get(conn)
        if since is None or time.monotonic() - since > self.idle_s:
            ConnectionPool.check_connection(conn)


class PgConnection:
    """The pool, the transaction helpers and the recorded embedding of one PostgreSQL store.

    Args:
        settings: engine settings (db_app_role, database_app_url, db_pool_max, and what the
            modules read: exact_search_max_rows, hnsw_ef_search_max, hnsw_max_scan_tuples,
            trace_retention, list_max_limit).
        conninfo: owner login URL (migrations must have run).

    Raises:
        StoreUnavailableError: the pool cannot open a connection within 15 s.
        StoreError: the application login can become a superuser or the owner
            (:func:`check_app_login`).
    """

    def __init__(self, settings: Settings, conninfo: str) -> None:
        self.settings = settings
        self.conninfo = conninfo
        self.app_conninfo, self.role = app_login(settings, conninfo)
        self._embedding: tuple[str, int] | None = None
        self._idle_check = IdleCheck()
        self.pool: ConnectionPool = ConnectionPool(
            self.app_conninfo,
            min_size=1,
            max_size=settings.storage.db_pool_max,
            kwargs={"prepare_threshold": None, "autocommit": True},
            configure=self._configure,
            check=self._idle_check.check,
            reset=self._idle_check.returned,
            name="memory_engine",
            open=False,
        )
        try:
            self.pool.open(wait=True, timeout=15.0)
        except PoolTimeout as exc:
            self.pool.close()
            raise StoreUnavailableError(f"cannot open a connection pool: {exc}") from exc
        try:
            with mapped_errors(), self.pool.connection() as conn:
                check_app_login(conn)
                row = conn.execute(
                    "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
                ).fetchone()
        except BaseException:
            self.pool.close()
            raise
        #: pgvector supports ``hnsw.iterative_scan`` (0.8+): the dense leg uses it.
        self.iterative_scan = (
            row is not None and version_tuple(str(row[0])) >= ITERATIVE_SCAN_VERSION
        )

    def close(self) -> None:
        """Close the connection pool. Safe to call twice."""
        self.pool.close()

    def role_escapes(self) -> builtins.list[str]:
        """:func:`role_escapes` on a connection of this store's pool (the engine's own login);
        a connection on which an escape worked is closed, never reused."""
        with mapped_errors(), self.pool.connection() as conn:
            findings = role_escapes(conn)
            if findings:
                conn.close()
            return findings

    def _configure(self, conn: psycopg.Connection) -> None:
        """Per pooled connection (logged in as the app role): UTC, pgvector adapters; it
        counts as just returned (:class:`IdleCheck`: no round trip on its first checkout)."""
        conn.execute("SET TimeZone = 'UTC'")
        register_vector(conn)
        self._idle_check.returned(conn)

    # ------------------------------------------------------------------ transactions

    @contextmanager
    def tx(self, scope: Scope | None) -> Iterator[psycopg.Cursor[Any]]:
        """A pooled transaction as the app role with ``app.tenant_id`` set (SET LOCAL).

        When the connection fails before the caller's first statement (``BEGIN`` or the
        tenant setting: the server dropped it just after the pool's check), it is discarded
        and the transaction starts once more on another connection; nothing ran yet.
        """
        with mapped_errors():
            for attempt in range(2):
                stack = ExitStack()
                conn = stack.enter_context(self.pool.connection())  # pool errors: not retried
                try:
                    stack.enter_context(conn.transaction())
                    cur = conn.cursor()
                    if scope is not None:
                        cur.execute(
                            "SELECT set_config('app.tenant_id', %s, true)", [scope.tenant_id]
                        )
                except psycopg.OperationalError:
                    with suppress(psycopg.Error):
                        stack.close()  # the broken connection goes back and is discarded
                    if attempt:
                        raise
                    continue
                try:
                    with stack:
                        yield cur
                except psycopg.DataError as exc:
                    if _DIMENSIONS_CHANGED_RE.search(str(exc)):  # read the record again
                        self._embedding = None
                    raise
                return

    @contextmanager
    def owner_tx(self, scope: Scope | None = None) -> Iterator[psycopg.Cursor[Any]]:
        """A transaction on a fresh owner connection (schema changes, the admin path, purge).

        With ``scope``, ``app.tenant_id`` is set first (SET LOCAL), as in :meth:`tx`: a
        non-superuser owner is bound by the same row-level security (FORCE).
        """
        with (
            mapped_errors(),
            psycopg.connect(self.conninfo, autocommit=True, prepare_threshold=None) as conn,
            conn.transaction(),
        ):
            cur = conn.cursor()
            cur.execute("SET LOCAL TimeZone = 'UTC'")
            if scope is not None:
                cur.execute("SELECT set_config('app.tenant_id', %s, true)", [scope.tenant_id])
            yield cur

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
