"""The PostgreSQL pool's connection check (``connection.IdleCheck``): a connection the server
dropped is replaced before a caller gets it; with a window set, a connection returned within it
is handed out without the extra round trip (the default window is 0: always checked)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg
import pytest

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
    store.conn._idle_check.idle_s = 60.0  # the window (off by default: POOL_CHECK_IDLE_S 0)
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
