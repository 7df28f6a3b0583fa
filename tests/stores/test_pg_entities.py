"""The PostgreSQL entity index (migration 0004): row-level security on ``entities`` and
``entity_links`` exactly like ``memories``, links that commit and roll back with the memory
rows, and the one-time backfill of memories stored before the migration."""

from __future__ import annotations

import uuid

import numpy as np
import psycopg
import pytest
from psycopg import sql

from memory_engine.entities import entity_id
from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres.entities import backfill_links
from memory_engine.stores.postgres.store import PostgresStore
from tests.conftest import PG_TEST_DIM, new_tenant_id


def _item(tenant: str, text: str, rng: np.random.Generator, *names: str, **kw: object) -> NewMemory:
    v = rng.normal(size=PG_TEST_DIM)
    memory = Memory(tenant_id=tenant, content=text, content_hash=text.lower(), entities=names, **kw)  # type: ignore[arg-type]
    return NewMemory(memory=memory, embedding=tuple(float(x) for x in v / np.linalg.norm(v)))


def _url(store: PostgresStore) -> str:
    assert store.settings.storage.database_url is not None
    return store.settings.storage.database_url.get_secret_value()


def test_entity_tables_are_tenant_isolated_by_forced_rls(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(7)
    ta, tb = new_tenant_id("a"), new_tenant_id("b")
    pg_store.insert([_item(ta, "a knows ACME", rng, "ACME")], scope=Scope.of(ta), actor="t")
    pg_store.insert([_item(tb, "b knows ACME", rng, "ACME")], scope=Scope.of(tb), actor="t")
    role = sql.Identifier(pg_store.settings.storage.db_app_role)
    with psycopg.connect(_url(pg_store), autocommit=True) as conn:
        forced = conn.execute(
            "SELECT relname FROM pg_class WHERE relrowsecurity AND relforcerowsecurity "
            "AND relname IN ('entities', 'entity_links')"
        ).fetchall()
        assert sorted(r[0] for r in forced) == ["entities", "entity_links"]
        conn.execute(sql.SQL("SET ROLE {}").format(role))
        with conn.transaction():
            conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
            for table in ("entities", "entity_links"):
                rows = conn.execute(
                    sql.SQL("SELECT DISTINCT tenant_id FROM {}").format(sql.Identifier(table))
                ).fetchall()
                assert {r[0] for r in rows} == {ta}, table
        for table in ("entities", "entity_links"):  # no tenant set: nothing visible
            count = conn.execute(
                sql.SQL("SELECT count(*) FROM {}").format(sql.Identifier(table))
            ).fetchone()
            assert count == (0,), table
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
            conn.execute(
                "INSERT INTO entities (id, tenant_id, key, name) VALUES (%s, %s, 'x', 'x')",
                [uuid.uuid4(), tb],
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
            conn.execute("UPDATE entities SET tenant_id = %s", [tb])


def test_links_roll_back_with_the_memory_rows(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(8)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    (first,) = pg_store.insert([_item(tenant, "first", rng, "Keep")], scope=scope, actor="t")
    clash = _item(tenant, "clash", rng, "Rollback Co").memory.model_copy(
        update={"id": first.memory_id}
    )
    batch = [
        _item(tenant, "fresh", rng, "Rollback Co"),
        NewMemory(memory=clash, embedding=_item(tenant, "x", rng).embedding),
    ]
    with pytest.raises(InvalidInputError):
        pg_store.insert(batch, scope=scope, actor="t")
    assert [e.key for e in pg_store.list_entities(scope=scope).items] == ["keep"]
    assert pg_store.entity_memories("rollback", scope=scope).items == []


def test_backfill_links_memories_stored_before_the_index(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(9)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    ids = [
        o.memory_id
        for o in pg_store.insert(
            [
                _item(tenant, "one", rng, "ACME", "Priya"),
                _item(tenant, "two", rng, "ＡＣＭＥ Inc."),
                _item(tenant, "three", rng),
            ],
            scope=scope,
            actor="t",
        )
    ]
    with pg_store.conn.tx(scope) as cur:  # as a store written before migration 0004
        cur.execute("DELETE FROM entity_links WHERE tenant_id = %s", [tenant])
        cur.execute("DELETE FROM entities WHERE tenant_id = %s", [tenant])
    assert pg_store.list_entities(scope=scope).items == []
    assert backfill_links(pg_store.conn) >= 3
    page = pg_store.list_entities(scope=scope)
    assert [(e.key, e.name, e.memory_count) for e in page.items] == [
        ("acme", "ACME", 2),
        ("priya", "Priya", 1),
    ]
    assert page.items[0].id == entity_id(tenant, "acme")
    assert {m.id for m in pg_store.entity_memories("acme", scope=scope).items} == set(ids[:2])
    with psycopg.connect(_url(pg_store), autocommit=True) as conn:  # RLS forced again
        forced = conn.execute(
            "SELECT count(*) FROM pg_class WHERE relforcerowsecurity "
            "AND relname IN ('memories', 'entities', 'entity_links')"
        ).fetchone()
        assert forced == (3,)
