"""The PostgreSQL pool's connection check (``connection.IdleCheck``): a connection the server
dropped is replaced before a caller gets it; a connection returned within the window
(``POOL_CHECK_IDLE_S``) is checked without a round trip (closed, broken, or its socket readable),
an older one with one; a connection dropped after the check is replaced by the transaction."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest

from memory_engine.errors import StoreUnavailableError
from memory_engine.models import Scope
from memory_engine.stores.postgres.connection import IdleCheck


def _backend_pids(store: Any) -> set[int]:
    with store.conn.pool.connection() as conn:
        return {int(conn.info.backend_pid)}


def test_a_connection_dropped_while_idle_is_replaced(
    pg_store_factory: Callable[..., Any],
) -> None:
    store = pg_store_factory(db_pool_max=1)
    store.ensure_embedding("m", 3)
    store.conn._idle_check.idle_s = 0.0  # every checkout counts as idle: always checked
    [pid] = _backend_pids(store)
    with psycopg.connect(store.conn.conninfo, autocommit=True) as owner:
        owner.execute("SELECT pg_terminate_backend(%s)", [pid])
    # the pooled connection is dead; the check finds it and the pool opens a new one
    assert store.count(scope=Scope.of("pool-check")) == 0
    assert _backend_pids(store) != {pid}


def test_a_recently_returned_connection_is_not_round_tripped(
    pg_store_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = pg_store_factory(db_pool_max=1)
    store.ensure_embedding("m", 3)
    store.conn._idle_check.idle_s = 60.0  # the window (POOL_CHECK_IDLE_S)
    store.count(scope=Scope.of("pool-check"))  # the connection has just come back
    from psycopg_pool import ConnectionPool

    calls: list[object] = []
    real = ConnectionPool.check_connection
    monkeypatch.setattr(
        ConnectionPool, "check_connection", staticmethod(lambda c: (calls.append(c), real(c)))
    )
    store.count(scope=Scope.of("pool-check"))
    assert calls == []
    store.conn._idle_check.idle_s = 0.0
    store.count(scope=Scope.of("pool-check"))
    assert len(calls) == 1


def test_closed_connections_fail_the_local_check() -> None:
    check = IdleCheck(idle_s=60.0)

    class Closed:
        closed = True
        broken = False

    with pytest.raises(psycopg.OperationalError):
        check.check(Closed())  # type: ignore[arg-type]


def test_a_dropped_connection_is_found_without_a_round_trip(
    pg_store_factory: Callable[..., Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Inside the idle window, a connection whose backend was terminated is found by its
    readable socket (the server's notice, then end of file) and replaced; no round trip."""
    store = pg_store_factory(db_pool_max=1)
    store.ensure_embedding("m", 3)
    store.conn._idle_check.idle_s = 60.0
    [pid] = _backend_pids(store)
    with psycopg.connect(store.conn.conninfo, autocommit=True) as owner:
        owner.execute("SELECT pg_terminate_backend(%s, 5000)", [pid])  # waits for the exit
    from psycopg_pool import ConnectionPool

    calls: list[object] = []
    real = ConnectionPool.check_connection
    monkeypatch.setattr(
        ConnectionPool, "check_connection", staticmethod(lambda c: (calls.append(c), real(c)))
    )
    assert store.count(scope=Scope.of("pool-check")) == 0
    assert _backend_pids(store) != {pid}
    assert calls == []


def test_a_transaction_whose_connection_dies_before_its_first_statement_starts_again(
    pg_store_factory: Callable[..., Any],
) -> None:
    """The server drops the connection between the pool's check and the transaction's first
    statement (the check saw nothing yet): the transaction starts again on a new one."""
    store = pg_store_factory(db_pool_max=1)
    store.ensure_embedding("m", 3)
    store.conn._idle_check.idle_s = 60.0
    [pid] = _backend_pids(store)
    killed: list[int] = []
    check = store.conn._idle_check.check

    def check_then_drop(conn: psycopg.Connection[Any]) -> None:
        check(conn)
        if not killed:  # right after the check passed: the first checkout only
            killed.append(int(conn.info.backend_pid))
            with psycopg.connect(store.conn.conninfo, autocommit=True) as owner:
                owner.execute("SELECT pg_terminate_backend(%s, 5000)", [killed[0]])

    store.conn.pool._check = check_then_drop
    assert store.count(scope=Scope.of("pool-check")) == 0
    assert killed == [pid]
    assert _backend_pids(store) != {pid}


def test_a_connection_lost_after_the_transaction_started_is_never_retried(
    pg_store_factory: Callable[..., Any],
) -> None:
    """Once the caller's statements run, a dropped connection is the caller's error: the
    transaction body is never run a second time (no double write, no double event)."""
    store = pg_store_factory(db_pool_max=2)
    store.ensure_embedding("m", 3)
    runs: list[int] = []
    with pytest.raises(StoreUnavailableError), store.conn.tx(Scope.of("pool-check")) as cur:
        runs.append(int(cur.connection.info.backend_pid))
        with psycopg.connect(store.conn.conninfo, autocommit=True) as owner:
            owner.execute("SELECT pg_terminate_backend(%s, 5000)", [runs[0]])
        cur.execute("SELECT 1")
    assert len(runs) == 1
    assert store.count(scope=Scope.of("pool-check")) == 0  # the pool recovers
