"""The extra dense legs on the write path: a new memory's leg vectors are embedded before the
insert and written by it (``NewMemory.legs``), in raw and extract mode and in batches; a leg
that fails to embed never fails the write. Real Qdrant local mode (in memory), small
deterministic embedders standing for the two models."""

from __future__ import annotations

import logging
from typing import Any

import numpy as np
import pytest
from qdrant_client import QdrantClient

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.stores.postgres.store import PostgresStore
from memory_engine.stores.qdrant.store import QdrantStore
from memory_engine.write.raw import WriteRequest
from tests.support.hash_embedder import HashEmbedder


def _engine() -> tuple[MemoryEngine, HashEmbedder]:
    settings = Settings(_env_file=None, store="qdrant", qdrant_path=":memory:")  # type: ignore[call-arg]
    store = QdrantStore(settings, client=QdrantClient(location=":memory:"))
    leg = HashEmbedder("ml-test-model", 24)
    engine = MemoryEngine(
        settings,
        store=store,
        embedder=HashEmbedder("primary-test", 16),
        leg_embedders={"dense_ml": leg},
    )
    return engine, leg


def _leg_vectors(engine: MemoryEngine, scope: Scope, ids: list[Any]) -> dict[Any, Any]:
    return engine.store.legs.leg_vectors("dense_ml", ids, scope=scope)  # type: ignore[attr-defined]


@pytest.mark.parametrize("mode", ["raw", "extract"])
def test_each_write_stores_its_leg_vector_with_the_memory(mode: str) -> None:
    engine, leg = _engine()
    scope = Scope.of(f"legs-write-{mode}")
    try:
        text = "我对花生过敏，吃了会起疹子。"
        result = engine.write(scope, text, mode=mode)  # type: ignore[arg-type]
        ids = [o.memory_id for o in result.outcomes if o.status == "created"]
        assert ids
        got = _leg_vectors(engine, scope, ids)
        assert set(got) == set(ids)
        contents = {m.id: m.content for m in (engine.store.get(i, scope=scope) for i in ids)}
        for mid in ids:
            assert np.allclose(got[mid], leg.embed([contents[mid]])[0], atol=1e-5)
        hit = engine.search(scope, "我对什么过敏？")
        assert "dense_ml" in hit.trace.legs and hit.trace.legs["dense_ml"]
    finally:
        engine.close()


def test_a_batch_embeds_the_leg_once_and_a_failing_leg_never_fails_the_write(
    caplog: pytest.LogCaptureFixture,
) -> None:
    engine, leg = _engine()
    scope = Scope.of("legs-batch")
    try:
        texts = [
            "Team lunch is on Friday at noon.",
            "周末我们去了西湖划船。",
            "I prefer oolong tea.",
        ]
        before = leg.calls
        results = engine.write_many(scope, [WriteRequest(text=t) for t in texts])
        assert leg.calls == before + 1  # one call for the batch
        ids = [r.outcomes[0].memory_id for r in results]
        assert set(_leg_vectors(engine, scope, ids)) == set(ids)
        leg.broken = True
        caplog.set_level(logging.WARNING, logger="memory_engine.write.legs")
        result = engine.write(scope, "The office plants need water on Mondays.")
        (outcome,) = result.outcomes
        assert outcome.status == "created"
        assert engine.store.get(outcome.memory_id, scope=scope).content.startswith("The office")
        assert _leg_vectors(engine, scope, [outcome.memory_id]) == {}
        assert any("reembed --leg dense_ml" in r.getMessage() for r in caplog.records)
    finally:
        engine.close()


@pytest.mark.parametrize("mode", ["raw", "extract"])
def test_a_leg_replaced_by_another_process_never_fails_the_write(
    mode: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Another process (``memory-engine reembed --leg`` with a new model) re-records the leg
    with another dimension while this engine still holds the old records: the store refuses
    the stale leg vector, and the memories are stored without it (logged), one event each."""
    settings = Settings(_env_file=None, store="qdrant", qdrant_path=":memory:")  # type: ignore[call-arg]
    client = QdrantClient(location=":memory:")
    engine = MemoryEngine(
        settings,
        store=QdrantStore(settings, client=client),
        embedder=HashEmbedder("primary-test", 16),
        leg_embedders={"dense_ml": HashEmbedder("ml-test-model", 24)},
    )
    scope = Scope.of(f"legs-replaced-{mode}")
    try:
        assert engine.write(scope, "I prefer oolong tea.").outcomes[0].status == "created"
        other = QdrantStore(settings, client=client)  # another process's view of the store
        other.legs.replace_leg("dense_ml", "ml-other-model", 32)
        caplog.set_level(logging.WARNING, logger="memory_engine.write.legs")
        (outcome,) = engine.write(
            scope,
            "The office plants need water on Mondays.",
            mode=mode,  # type: ignore[arg-type]
        ).outcomes
        assert outcome.status == "created"
        results = engine.write_many(
            scope,
            [WriteRequest(text="Team lunch is on Friday."), WriteRequest(text="周末去西湖划船。")],
        )
        assert [r.error for r in results] == [None, None]
        ids = [outcome.memory_id, *(r.outcomes[0].memory_id for r in results)]
        assert all(engine.store.get(i, scope=scope) for i in ids)
        assert _leg_vectors(engine, scope, ids) == {}  # filled later by reembed --leg
        events = engine.store.events(scope=scope, limit=100).items
        assert sorted(str(e.memory_id) for e in events if e.memory_id in ids) == sorted(
            str(i) for i in ids
        )
        assert any("reembed --leg dense_ml" in r.getMessage() for r in caplog.records)
    finally:
        engine.close()


def test_a_leg_replaced_by_another_process_never_fails_a_postgres_write(
    pg_store_factory: Any,
) -> None:
    """The same on PostgreSQL: the leg's column is retyped by the other process, the stale
    vector is refused by the database inside the insert, and the memory is stored without it."""
    store = pg_store_factory()
    engine = MemoryEngine(
        store.settings,
        store=store,
        embedder=HashEmbedder("primary-test", 16),
        leg_embedders={"dense_ml": HashEmbedder("ml-test-model", 24)},
    )
    scope = Scope.of("legs-replaced-pg")
    assert engine.write(scope, "I prefer oolong tea.").outcomes[0].status == "created"
    other = PostgresStore(store.settings)  # another process's view of the store
    try:
        other.legs.replace_leg("dense_ml", "ml-other-model", 32)
        (outcome,) = engine.write(scope, "The office plants need water on Mondays.").outcomes
        assert outcome.status == "created"
        (result,) = engine.write_many(scope, [WriteRequest(text="周末我们去了西湖划船。")])
        assert result.error is None and result.outcomes[0].status == "created"
        ids = [outcome.memory_id, result.outcomes[0].memory_id]
        assert all(engine.store.get(i, scope=scope) for i in ids)
        assert _leg_vectors(engine, scope, ids) == {}
    finally:
        other.close()
