"""PostgreSQL trace retention by insertion ordinals (migration 0008, ``stores/postgres/traces``):
the bounds hold per client and per tenant, a redacted trace keeps its place in the order, and
the migration numbers the traces of a folder made before it in their time order. The bounds
on every store are in tests/security/test_trace_retention.py and tests/conformance."""

from __future__ import annotations

import uuid
from concurrent.futures import ThreadPoolExecutor
from datetime import UTC, datetime, timedelta
from importlib import resources
from typing import Any

import numpy as np
import psycopg
from psycopg import sql

from memory_engine.models import Memory, Scope, Trace
from memory_engine.stores.base import NewMemory
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL, new_tenant_id
from tests.support.traces import one_candidate_trace

BASE = datetime(2026, 6, 1, tzinfo=UTC)


def _trace(scope: Scope, query: str, minute: int, memory_id: uuid.UUID | None = None) -> Trace:
    content = "我喜欢乌龙茶" if memory_id else "c"
    return one_candidate_trace(
        scope, query, BASE + timedelta(minutes=minute), memory_id=memory_id, content=content
    )


def _queries(store: Any, tenant: str) -> list[str]:
    return sorted(r["query"] for r in store.list_traces(scope=Scope.of(tenant), limit=200).items)


def _owner(store: Any) -> psycopg.Connection[Any]:
    url = store.settings.storage.database_url.get_secret_value()
    return psycopg.connect(url, autocommit=True)


def test_client_and_tenant_bounds_keep_the_newest(pg_store_factory: Any) -> None:
    store = pg_store_factory(trace_retention=4, trace_retention_tenant=10)
    tenant = new_tenant_id("tr")
    clients = [Scope.of(tenant, user_id=f"u{i}") for i in range(3)] + [Scope.of(tenant)]
    minute = 0
    for round_ in range(6):
        for c in clients:
            store.save_trace(_trace(c, f"{c.user_id or '-'} {round_}", minute), scope=c)
            minute += 1
            per_client = {
                s.user_id: len(store.list_traces(scope=s, limit=200).items) for s in clients[:3]
            }
            assert all(n <= 4 for n in per_client.values())
            assert store.list_traces(scope=Scope.of(tenant), limit=200).total <= 10
    # the tenant's 10 newest, each client holding at most its 4 newest
    assert _queries(store, tenant) == sorted(
        [f"{c.user_id or '-'} {r}" for r in range(6) for c in clients][-10:]
    )
    # another tenant's traces are never counted nor removed
    other = Scope.of(new_tenant_id("tr"))
    store.save_trace(_trace(other, "other", 0), scope=other)
    assert _queries(store, other.tenant_id) == ["other"]
    assert len(_queries(store, tenant)) == 10


def test_a_redacted_trace_keeps_its_place_in_the_order(pg_store_factory: Any) -> None:
    store = pg_store_factory(trace_retention=3)
    store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
    scope = Scope.of(new_tenant_id("tr"), user_id="u")
    vec = np.ones(PG_TEST_DIM) / np.sqrt(PG_TEST_DIM)
    (created,) = store.insert(
        [
            NewMemory(
                memory=Memory(tenant_id=scope.tenant_id, user_id="u", content="我喜欢乌龙茶"),
                embedding=tuple(vec),
            )
        ],
        scope=scope,
        actor="t",
    )
    store.save_trace(_trace(scope, "q0", 0, created.memory_id), scope=scope)
    for i in range(1, 3):
        store.save_trace(_trace(scope, f"q{i}", i), scope=scope)
    store.purge(created.memory_id, scope=scope, actor="t", reason="user asked")  # redacts q0
    assert _queries(store, scope.tenant_id) == ["q0", "q1", "q2"]
    store.save_trace(_trace(scope, "q3", 3), scope=scope)
    assert _queries(store, scope.tenant_id) == ["q1", "q2", "q3"]  # q0 still the oldest


def test_migration_numbers_existing_traces_in_time_order(pg_store_factory: Any) -> None:
    store = pg_store_factory(trace_retention=100)
    tenant = new_tenant_id("tr")
    a, b = Scope.of(tenant, user_id="a"), Scope.of(tenant, user_id="b", agent_id="bot")
    # saved out of time order: the backfill orders by created_at
    for minute, s in ((5, a), (1, b), (3, a), (0, a), (2, b)):
        store.save_trace(_trace(s, f"{s.user_id} {minute}", minute), scope=s)
    migration = (
        resources.files("memory_engine.stores.postgres")
        .joinpath("migrations/0008_trace_order.sql")
        .read_text(encoding="utf-8")
    )
    with _owner(store) as conn:
        conn.execute("ALTER TABLE traces NO FORCE ROW LEVEL SECURITY")
        conn.execute("UPDATE traces SET client_seq = NULL, tenant_seq = NULL")  # a pre-0008 folder
        conn.execute(sql.SQL(migration))  # type: ignore[arg-type]
        rows = conn.execute(
            "SELECT query, client_seq, tenant_seq FROM traces WHERE tenant_id = %s "
            "ORDER BY created_at",
            [tenant],
        ).fetchall()
        forced = conn.execute(
            "SELECT relforcerowsecurity FROM pg_class WHERE oid = 'traces'::regclass"
        ).fetchone()
    assert [tuple(r) for r in rows] == [
        ("a 0", 1, 1),
        ("b 1", 1, 2),
        ("b 2", 2, 3),
        ("a 3", 2, 4),
        ("a 5", 3, 5),
    ]
    assert forced == (True,)
    # new saves continue after the backfilled ordinals
    store.save_trace(_trace(a, "a 9", 9), scope=a)
    with _owner(store) as conn:
        seqs = conn.execute(
            "SELECT client_seq, tenant_seq FROM traces WHERE tenant_id = %s AND query = 'a 9'",
            [tenant],
        ).fetchone()
    assert seqs == (4, 6)


def test_concurrent_saves_of_one_tenant_get_distinct_ordinals_and_keep_the_bounds(
    pg_store_factory: Any,
) -> None:
    """Several clients of one tenant saving at once (threads of one pool, as the MCP server
    does): the advisory lock hands out each ordinal once, and both bounds hold afterwards."""
    store = pg_store_factory(trace_retention=5, trace_retention_tenant=12)
    tenant = new_tenant_id("tr")
    clients = [Scope.of(tenant, user_id=f"u{i % 2}", agent_id=f"a{i}") for i in range(4)]

    def save(c: Scope) -> None:
        for i in range(15):
            store.save_trace(_trace(c, f"{c.agent_id} {i}", i), scope=c)

    with ThreadPoolExecutor(len(clients)) as pool:
        list(pool.map(save, clients))
    with _owner(store) as conn:
        rows = conn.execute(
            "SELECT user_id, agent_id, client_seq, tenant_seq FROM traces WHERE tenant_id = %s",
            [tenant],
        ).fetchall()
    assert len(rows) == 12
    assert len({r[3] for r in rows}) == len(rows)  # tenant ordinals unique
    assert max(r[3] for r in rows) == 60  # every save numbered once, none skipped
    assert {r[3] for r in rows} == set(range(49, 61))  # the tenant's 12 newest
    for c in clients:
        mine = [r[2] for r in rows if (r[0], r[1]) == (c.user_id, c.agent_id)]
        assert len(mine) == len(set(mine)) <= 5
        assert not mine or max(mine) == 15
