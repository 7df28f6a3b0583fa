"""A large insert (COPY through the pooled session's temp table ``staged_memories``) keeps
working after ``memory-engine reembed --leg`` retyped the leg's column to another dimension on
the same pooled connection, and still refuses a vector of the old dimension."""

from __future__ import annotations

import uuid
from typing import Any

import numpy as np
import pytest

from memory_engine import text as textmod
from memory_engine.errors import MemoryEngineError
from memory_engine.models import Memory, Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres.writes import VALUES_MAX_ROWS

DIM = 16


def _unit(rng: np.random.Generator, dim: int) -> tuple[float, ...]:
    v = rng.normal(size=dim)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def _items(tenant: str, n: int, leg_dim: int, seed: int) -> list[NewMemory]:
    rng = np.random.default_rng(seed)
    out = []
    for i in range(n):
        content = f"staged row {seed}-{i} 第{i}条"
        out.append(
            NewMemory(
                memory=Memory(
                    tenant_id=tenant,
                    content=content,
                    content_hash=textmod.content_hash(content),
                    embedding_model="primary-model",
                ),
                embedding=_unit(rng, DIM),
                terms=tuple(textmod.tokenize(content)),
                legs={"dense_ml": _unit(rng, leg_dim)},
            )
        )
    return out


def test_large_inserts_follow_a_leg_retyped_on_the_same_connection(
    pg_store_factory: Any, tenant: str
) -> None:
    store = pg_store_factory(db_pool_max=1)  # one pooled session: its temp table is reused
    store.ensure_embedding("primary-model", DIM)
    store.legs.ensure_leg("dense_ml", "ml-model", 8)
    scope = Scope.of(tenant)
    n = VALUES_MAX_ROWS + 6  # above the multi-row VALUES bound: COPY into staged_memories
    first = store.insert(_items(tenant, n, 8, seed=1), scope=scope, actor="test")
    assert [o.status for o in first] == ["created"] * n

    store.legs.replace_leg("dense_ml", "ml-model-large", 12)  # reembed --leg, new dimension
    second = store.insert(_items(tenant, n, 12, seed=2), scope=scope, actor="test")
    assert [o.status for o in second] == ["created"] * n
    ids = [o.memory_id for o in second]
    stored = store.legs.leg_vectors("dense_ml", ids, scope=scope)
    assert set(stored) == set(ids)
    assert {len(v) for v in stored.values()} == {12}
    assert store.count(scope=scope) == 2 * n

    # a vector of the old dimension is still refused, and nothing of that batch is stored
    stale = _items(tenant, n, 12, seed=3)
    stale[-1] = stale[-1].model_copy(
        update={"legs": {"dense_ml": _unit(np.random.default_rng(4), 8)}}
    )
    with pytest.raises(MemoryEngineError):
        store.insert(stale, scope=scope, actor="test")
    assert store.count(scope=scope) == 2 * n
    assert not store.legs.leg_vectors(
        "dense_ml", [uuid.UUID(int=0), stale[0].memory.id], scope=scope
    )
