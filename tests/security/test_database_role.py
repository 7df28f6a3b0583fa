"""The engine's own database connection cannot become another role (issue: "the database role
can escape").

An attacker who gets one statement onto the engine's connection (an SQL injection anywhere)
tries what a psql user would: ``RESET ROLE``, ``SET ROLE postgres``, ``SET SESSION
AUTHORIZATION postgres``, calling the owner's SECURITY DEFINER function. Each is run here as raw
SQL on a connection taken from the store's own pool, the one every search and write uses.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import psycopg
import pytest
from psycopg import sql
from pydantic import SecretStr

from memory_engine import MemoryEngine
from memory_engine.errors import StoreError
from memory_engine.isolation.check import DATABASE_ROLE, run_isolation_check
from memory_engine.models import Scope
from memory_engine.stores.postgres.connection import check_app_login, role_escapes
from memory_engine.stores.postgres.store import PostgresStore
from tests.conftest import new_tenant_id


def _superusers(store: PostgresStore) -> list[str]:
    with store.conn.pool.connection() as conn:
        rows = conn.execute("SELECT rolname FROM pg_roles WHERE rolsuper ORDER BY 1").fetchall()
    return [str(r[0]) for r in rows]


def test_reset_role_on_the_engine_connection_is_not_a_superuser(pg_store: PostgresStore) -> None:
    with pg_store.conn.pool.connection() as conn:
        try:
            with conn.transaction():
                conn.execute("RESET ROLE")
                row = conn.execute(
                    "SELECT current_user, rolsuper, rolbypassrls FROM pg_roles "
                    "WHERE rolname = current_user"
                ).fetchone()
        finally:
            conn.close()  # never hand a connection an attacker touched back to the pool
    assert row == (pg_store.settings.storage.db_app_role, False, False)


def test_set_role_to_a_superuser_or_the_owner_is_refused(pg_store: PostgresStore) -> None:
    targets = [*_superusers(pg_store)]
    with pg_store.conn.pool.connection() as conn:
        owner = conn.execute(
            "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = 'memories'::regclass"
        ).fetchone()
        assert owner is not None
        targets.append(str(owner[0]))
        try:
            for target in sorted(set(targets)):
                for statement in ("SET ROLE {}", "SET SESSION AUTHORIZATION {}"):
                    with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                        conn.execute(sql.SQL(statement).format(sql.Identifier(target)))
        finally:
            conn.close()
    assert "postgres" in targets


def test_the_redaction_function_is_executable_by_the_owner_only(pg_store: PostgresStore) -> None:
    tenant = new_tenant_id("redact")
    with pg_store.conn.tx(Scope.of(tenant)) as cur:
        owner_only = cur.execute(
            "SELECT p.oid::regprocedure::text, pg_get_userbyid(p.proowner), "
            "has_function_privilege(current_user, p.oid, 'EXECUTE') "
            "FROM pg_proc p WHERE p.prosecdef AND p.pronamespace = current_schema()::regnamespace"
        ).fetchall()
    assert any(name.startswith("redact_memory_events") for name, _, _ in owner_only)
    assert all(not can_run for _, _, can_run in owner_only), owner_only
    with (
        pytest.raises(psycopg.errors.InsufficientPrivilege),
        pg_store.conn.pool.connection() as conn,
        conn.transaction(),
    ):
        conn.execute("SELECT set_config('app.tenant_id', %s, true)", [tenant])
        conn.execute("SELECT redact_memory_events(%s, %s)", [tenant, uuid.uuid4()])


def test_the_app_role_logs_in_itself_and_is_a_member_of_nothing(pg_store: PostgresStore) -> None:
    role = pg_store.settings.storage.db_app_role
    with pg_store.conn.pool.connection() as conn:
        row = conn.execute(
            "SELECT session_user, r.rolcanlogin, r.rolsuper, r.rolbypassrls, r.rolcreaterole, "
            "(SELECT count(*) FROM pg_auth_members m WHERE m.member = r.oid) "
            "FROM pg_roles r WHERE r.rolname = session_user"
        ).fetchone()
    assert row == (role, True, False, False, False, 0)


def test_the_isolation_check_probes_the_engine_connection(
    pg_settings_factory: Callable[..., Any],
) -> None:
    with MemoryEngine(pg_settings_factory()) as engine:
        assert engine.store.role_escapes() == []
        report = run_isolation_check(engine, tenants=2)
    assert report.ok, report.to_dict()
    assert report.probes_by_path[DATABASE_ROLE] == 1


class _SuperuserLoginStore:
    """The real store, except its role probe runs on a connection of the owner login (the
    superuser ``postgres``), as the engine's pool did before it logged in as the app role."""

    def __init__(self, inner: PostgresStore) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def role_escapes(self) -> list[str]:
        with psycopg.connect(self._inner.conn.conninfo, autocommit=True) as conn:
            return role_escapes(conn)


def test_the_isolation_check_flags_a_login_that_can_become_superuser(
    pg_settings_factory: Callable[..., Any],
) -> None:
    with MemoryEngine(pg_settings_factory()) as base:
        assert isinstance(base.store, PostgresStore)
        engine = MemoryEngine(
            base.settings, store=_SuperuserLoginStore(base.store), embedder=base.embedder
        )
        report = run_isolation_check(engine, tenants=2)
    assert not report.ok
    found = [leak.detail for leak in report.leaks if leak.path == DATABASE_ROLE]
    assert "RESET ROLE -> postgres (superuser)" in found
    assert any("redact_memory_events" in f for f in found)
    assert report.to_dict()["paths"]["engine"]["leaks"] == len(found)


def test_the_store_refuses_an_app_login_that_is_a_superuser(
    pg_settings_factory: Callable[..., Any], pg_server_url: str
) -> None:
    settings = pg_settings_factory()
    url = settings.storage.database_url.get_secret_value()
    as_owner = settings.model_copy(update={"database_app_url": SecretStr(url)})
    with pytest.raises(StoreError, match="must not be the owner login"):
        PostgresStore(as_owner)
    # a second superuser, and a plain role granted membership of the owner
    su, member = f"su_{uuid.uuid4().hex[:8]}", f"member_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN SUPERUSER").format(sql.Identifier(su)))
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(member)))
        conn.execute(sql.SQL("GRANT postgres TO {}").format(sql.Identifier(member)))
    for role, message in ((su, "is a superuser"), (member, "is a member of another role")):
        bad = settings.model_copy(update={"db_app_role": role})
        with pytest.raises(StoreError, match=message):
            PostgresStore(bad)
    # the check the pool runs once at open, on its own, for a login that is a superuser
    with psycopg.connect(url, autocommit=True) as conn, pytest.raises(StoreError) as caught:
        check_app_login(conn)
    assert "can escape row-level security" in str(caught.value)
