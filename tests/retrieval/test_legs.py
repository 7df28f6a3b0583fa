"""The recall legs runner: concurrent legs on PostgreSQL, errors surface after every leg ends."""

from __future__ import annotations

import numpy as np
import pytest

from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, MemoryStatus, Scope
from memory_engine.retrieval.legs import run_legs
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres.store import PostgresStore
from tests.conftest import PG_TEST_DIM, new_tenant_id


class _UnitEmbedder:
    model_name = "unit"
    dim = PG_TEST_DIM
    max_input_chars = 1000

    def embed(self, texts: list[str]) -> list[list[float]]:
        rng = np.random.default_rng(len(texts[0]))
        v = rng.normal(size=PG_TEST_DIM)
        return [list(v / np.linalg.norm(v)) for _ in texts]


def _seed(store: PostgresStore, tenant: str) -> None:
    rng = np.random.default_rng(3)
    store.insert(
        [
            NewMemory(
                memory=Memory(tenant_id=tenant, content=f"green tea {i}", content_hash=f"g{i}"),
                embedding=tuple(float(x) for x in rng.normal(size=PG_TEST_DIM)),
                terms=("green", "tea", str(i)),
            )
            for i in range(6)
        ],
        scope=Scope.of(tenant),
        actor="t",
    )


def test_legs_run_concurrently_on_postgres_and_keep_order(pg_store: PostgresStore) -> None:
    assert pg_store.concurrent_legs is True
    tenant = new_tenant_id()
    _seed(pg_store, tenant)
    warnings: list[str] = []
    legs, timings, terms = run_legs(
        ["green tea", "???", "tea"],
        scope=Scope.of(tenant),
        legs=("dense", "keyword"),
        depth=4,
        statuses=(MemoryStatus.ACTIVE,),
        store=pg_store,
        embedder=_UnitEmbedder(),
        warnings=warnings,
    )
    assert list(legs) == ["dense", "keyword", "dense@x1", "keyword@x1", "dense@x2", "keyword@x2"]
    assert [len(v) for v in legs.values()] == [4, 4, 4, 0, 4, 4]
    assert terms == ["green", "tea"]
    assert warnings == ["expansion 1 has no keyword terms; its keyword leg skipped"]
    assert {"terms", "embed_query", "dense", "keyword"} <= set(timings)
    assert all(c.memory.tenant_id == tenant for v in legs.values() for c in v)


def test_a_failing_leg_raises_its_typed_error(pg_store: PostgresStore) -> None:
    tenant = new_tenant_id()
    _seed(pg_store, tenant)
    with pytest.raises(InvalidInputError):
        run_legs(
            ["green tea"],
            scope=Scope.of(tenant),
            legs=("dense", "keyword"),
            depth=5000,  # above the stores' k limit of 1000: both legs refuse
            statuses=(MemoryStatus.ACTIVE,),
            store=pg_store,
            embedder=_UnitEmbedder(),
            warnings=[],
        )
