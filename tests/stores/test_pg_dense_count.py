"""Dense-leg row counting (exact vs HNSW decision) and the embedded server's tuning file."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
import psycopg
import pytest

from memory_engine.models import Memory, MemoryStatus, Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres.sql import _match_filter, matching_rows
from memory_engine.stores.postgres.store import PostgresStore
from memory_engine.stores.postgres.tuning import INCLUDE_FILE, tuning_text, write_tuning
from tests.conftest import PG_TEST_DIM, new_tenant_id


def _vec(rng: np.random.Generator) -> tuple[float, ...]:
    v = rng.normal(size=PG_TEST_DIM)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def _fill(
    store: PostgresStore, tenant: str, users: dict[str, int], rng: np.random.Generator
) -> None:
    items = [
        NewMemory(
            memory=Memory(
                tenant_id=tenant, user_id=user, content=f"{user} {i}", content_hash=f"{user}{i}"
            ),
            embedding=_vec(rng),
            terms=("row", str(i)),
        )
        for user, n in users.items()
        for i in range(n)
    ]
    store.insert(items, scope=Scope.of(tenant), actor="t")


def _count(store: PostgresStore, scope: Scope, cap: int, statuses: list[str]) -> int:
    params: dict[str, object] = {}
    with store.conn.tx(scope) as cur:
        where = _match_filter(scope, statuses, params)
        matching, table = matching_rows(cur, scope, where, params, cap)
    narrowed = scope.user_id is not None
    # the table-wide estimate comes in the same statement only for a tenant-wide scope
    assert (table is None) == narrowed
    assert table is None or table >= 0
    return matching


def test_matching_rows_tenant_wide_and_narrowed(
    pg_store_factory: Callable[..., PostgresStore],
) -> None:
    store = pg_store_factory()
    store.ensure_embedding("m", PG_TEST_DIM)
    rng = np.random.default_rng(1)
    tenant, other = new_tenant_id(), new_tenant_id()
    _fill(store, tenant, {"u1": 30, "u2": 12}, rng)
    _fill(store, other, {"u1": 7}, rng)
    one = store.dense_search(_vec(rng), scope=Scope.of(tenant), k=1)[0].memory
    store.update(
        one.id,
        scope=Scope.of(tenant),
        expected_version=one.version,
        changes={"status": MemoryStatus.ARCHIVED},
        actor="t",
        action="archive",
    )

    # tenant-wide: from the trigger-kept statistics, per status, never another tenant's rows
    assert _count(store, Scope.of(tenant), 5, ["active"]) == 41
    assert _count(store, Scope.of(tenant), 5, ["active", "archived"]) == 42
    assert _count(store, Scope.of(other), 5, ["active"]) == 7
    # narrowed: bounded count below the cap, full count above it
    u2 = Scope.of(tenant, user_id="u2")
    expected_u2 = 12 - (one.user_id == "u2")
    assert _count(store, u2, 100, ["active"]) == expected_u2
    assert _count(store, u2, 3, ["active"]) == expected_u2
    assert _count(store, Scope.of(tenant, user_id="nobody"), 3, ["active"]) == 0


def test_dense_search_paths_by_count(
    pg_store_factory: Callable[..., PostgresStore], caplog: pytest.LogCaptureFixture
) -> None:
    store = pg_store_factory(exact_search_max_rows=20)
    store.ensure_embedding("m", PG_TEST_DIM)
    rng = np.random.default_rng(2)
    tenant = new_tenant_id()
    _fill(store, tenant, {"big": 40, "small": 9}, rng)
    caplog.set_level(logging.DEBUG, logger="memory_engine.stores.postgres.store")

    small = store.dense_search(_vec(rng), scope=Scope.of(tenant, user_id="small"), k=50)
    assert len(small) == 9 and {c.memory.user_id for c in small} == {"small"}
    assert any("exact scan over 9 rows" in r.getMessage() for r in caplog.records)

    caplog.clear()
    big = store.dense_search(_vec(rng), scope=Scope.of(tenant, user_id="big"), k=10)
    assert len(big) == 10 and {c.memory.user_id for c in big} == {"big"}
    assert any("matching=40" in r.getMessage() for r in caplog.records)

    caplog.clear()
    everyone = store.dense_search(_vec(rng), scope=Scope.of(tenant), k=60)
    assert len(everyone) == 49
    assert any("matching=49" in r.getMessage() for r in caplog.records)


def test_embedded_server_runs_with_tuned_shared_buffers(pg_server_url: str) -> None:
    # The session server was started by start_embedded_server with the default setting.
    with psycopg.connect(pg_server_url) as conn:
        row = conn.execute("SHOW shared_buffers").fetchone()
    assert row == ("1GB",)


def test_write_tuning_is_idempotent(tmp_path: Path) -> None:
    assert write_tuning(tmp_path, 512) is False  # not a data folder: nothing written
    conf = tmp_path / "postgresql.conf"
    conf.write_text("# stock\nmax_connections = 100", encoding="utf-8")
    assert write_tuning(tmp_path, 512) is True
    assert write_tuning(tmp_path, 512) is False
    lines = conf.read_text(encoding="utf-8").splitlines()
    assert lines.count(f"include_if_exists = '{INCLUDE_FILE}'") == 1
    assert lines[1] == "max_connections = 100"
    assert "shared_buffers = '512MB'" in (tmp_path / INCLUDE_FILE).read_text(encoding="utf-8")
    assert write_tuning(tmp_path, 0) is True  # back to PostgreSQL's default
    assert "shared_buffers =" not in (tmp_path / INCLUDE_FILE).read_text(encoding="utf-8")
    assert tuning_text(0).startswith("# Written by memory_engine")
