"""The engine's own database connection cannot become another role (issue: "the database role
can escape").

An attacker who gets one statement onto the engine's connection (an SQL injection anywhere)
tries what a psql user would: ``RESET ROLE``, ``SET ROLE postgres``, ``SET SESSION
AUTHORIZATION postgres``, calling the owner's SECURITY DEFINER function. Each is run here as raw
SQL on a connection taken from the store's own pool, the one every search and write uses.
"""

from __future__ import annotations

import uuid

import psycopg
import pytest
from psycopg import sql

from memory_engine.models import Scope
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
