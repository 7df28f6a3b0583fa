"""Versioned SQL migrations of the PostgreSQL store.

Files ``memory_engine/stores/postgres/migrations/NNNN_name.sql`` are applied in version order, each in its
own transaction, and recorded in ``schema_migrations(version, name, applied_at)``. Every
transaction first takes ``pg_advisory_xact_lock(MIGRATION_LOCK_KEY)``, so processes starting at
the same time (dashboard, CLI, tests) apply each migration exactly once. ``roles.sql`` (the
application role and its grants) is idempotent and re-applied after the numbered files on every
start. Migrations run as the owner role (the connection's login user), never as the app role.

After the numbered files the ``vector`` extension is updated to the version the server ships
(``ALTER EXTENSION vector UPDATE``) when it is older: a data folder made by the earlier embedded
server (pgvector 0.6.2) gets pgvector 0.8 (iterative index scans) on its first start with the new
one. The update needs the extension's owner or a superuser; on an external server where the owner
login is neither, a warning names the statement to run.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from memory_engine.errors import StoreError, StoreUnavailableError

logger = logging.getLogger(__name__)

#: Key of the advisory lock serialising migrations (and ``ensure_embedding``) across processes.
MIGRATION_LOCK_KEY = 7_241_930_001

_FILE_RE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")

_BOOTSTRAP = """
CREATE TABLE IF NOT EXISTS schema_migrations (
    version    integer     PRIMARY KEY,
    name       text        NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now()
)
"""


@dataclass(frozen=True)
class Migration:
    """One numbered SQL file."""

    version: int
    name: str
    sql: str


def available_migrations() -> list[Migration]:
    """Numbered migrations shipped as package data, sorted by version.

    Raises:
        StoreError: two files share a version number.
    """
    folder = resources.files("memory_engine.stores.postgres").joinpath("migrations")
    found: dict[int, Migration] = {}
    for entry in folder.iterdir():
        match = _FILE_RE.match(entry.name)
        if not match:
            continue
        version = int(match.group(1))
        if version in found:
            raise StoreError(f"two migrations with version {version}", version=version)
        found[version] = Migration(version, match.group(2), entry.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


def version_tuple(text: str) -> tuple[int, ...]:
    """``"0.8.5"`` -> ``(0, 8, 5)``; the first part without digits ends the tuple."""
    out: list[int] = []
    for part in text.split("."):
        digits = "".join(ch for ch in part if ch.isdigit())
        if not digits:
            break
        out.append(int(digits))
    return tuple(out)


def _roles_sql() -> str:
    folder = resources.files("memory_engine.stores.postgres").joinpath("migrations")
    return folder.joinpath("roles.sql").read_text(encoding="utf-8")


def _lock(conn: psycopg.Connection) -> None:
    conn.execute("SELECT pg_advisory_xact_lock(%s)", [MIGRATION_LOCK_KEY])


def apply_migrations(conninfo: str, app_role: str) -> list[int]:
    """Apply pending migrations and (re)grant the application role.

    Args:
        conninfo: libpq URL or key=value string of the owner login.
        app_role: name of the NOLOGIN application role (``Settings.db_app_role``).

    Returns:
        Versions applied by this call (empty when the schema was already current).

    Raises:
        StoreUnavailableError: the server cannot be reached.
        StoreError: a migration failed (its transaction is rolled back; later ones are skipped).
    """
    applied_now: list[int] = []
    try:
        with psycopg.connect(conninfo, autocommit=True, prepare_threshold=None) as conn:
            with conn.transaction():
                _lock(conn)
                conn.execute(_BOOTSTRAP)
            for migration in available_migrations():
                with conn.transaction():
                    _lock(conn)
                    row = conn.execute(
                        "SELECT 1 FROM schema_migrations WHERE version = %s", [migration.version]
                    ).fetchone()
                    if row:
                        continue
                    logger.info("applying migration %04d_%s", migration.version, migration.name)
                    conn.execute(migration.sql.encode("utf-8"))  # no params: multi-statement
                    conn.execute(
                        "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)",
                        [migration.version, migration.name],
                    )
                    applied_now.append(migration.version)
            _update_vector(conn)
            with conn.transaction():
                _lock(conn)
                conn.execute("SELECT set_config('memory_engine.app_role', %s, true)", [app_role])
                conn.execute(_roles_sql().encode("utf-8"))
    except psycopg.OperationalError as exc:
        raise StoreUnavailableError(f"cannot reach PostgreSQL to migrate: {exc}") from exc
    except psycopg.Error as exc:
        raise StoreError(f"migration failed: {exc}", applied=applied_now) from exc
    return applied_now


def _update_vector(conn: psycopg.Connection) -> None:
    """``ALTER EXTENSION vector UPDATE`` when the installed version is older than the shipped."""
    with conn.transaction():
        _lock(conn)
        row = conn.execute(
            "SELECT e.extversion, a.default_version FROM pg_extension e "
            "JOIN pg_available_extensions a ON a.name = e.extname WHERE e.extname = 'vector'"
        ).fetchone()
        if row is None or version_tuple(str(row[0])) >= version_tuple(str(row[1])):
            return
        try:
            with conn.transaction():
                conn.execute("ALTER EXTENSION vector UPDATE")
        except psycopg.errors.InsufficientPrivilege:
            logger.warning(
                "pgvector %s is installed, %s is available: run ALTER EXTENSION vector UPDATE "
                "as a superuser (dense search falls back to exact scans more often until then)",
                row[0],
                row[1],
            )
            return
        logger.info("pgvector updated from %s to %s", row[0], row[1])


def applied_versions(conninfo: str) -> list[int]:
    """Versions recorded in ``schema_migrations`` (empty when the table does not exist).

    Raises:
        StoreUnavailableError: the server cannot be reached.
    """
    try:
        with psycopg.connect(conninfo, autocommit=True, prepare_threshold=None) as conn:
            exists = conn.execute("SELECT to_regclass('schema_migrations')").fetchone()
            if not exists or exists[0] is None:
                return []
            rows = conn.execute("SELECT version FROM schema_migrations ORDER BY version")
            return [int(r[0]) for r in rows.fetchall()]
    except psycopg.OperationalError as exc:
        raise StoreUnavailableError(f"cannot reach PostgreSQL: {exc}") from exc
