"""As-of snapshot store (memory_engine.history.asof): the same BM25 and cosine as PostgreSQL, and
event replay rules."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memory_engine.history.asof import SnapshotStore, replay_events, valid_at
from memory_engine.models import Event, EventAction, Memory, Scope
from memory_engine.stores.base import MemoryStore
from tests.conformance.helpers import item, put, unit


def test_snapshot_scores_equal_postgres(pg_store: MemoryStore, tenant: str) -> None:
    rng = np.random.default_rng(7)
    s = Scope.of(tenant)
    texts = [
        "alpha beta gamma",
        "alpha alpha delta",
        "beta epsilon zeta eta theta",
        "gamma gamma gamma alpha",
        "unrelated words only here",
    ]
    items = [item(tenant, t, unit(rng)) for t in texts]
    put(pg_store, s, *items)
    memories = [pg_store.get(i.memory.id, scope=s) for i in items]
    snap = SnapshotStore(
        memories,
        {i.memory.id: np.asarray(i.embedding) for i in items},
        {i.memory.id: list(i.terms) for i in items},
    )
    for query in (["alpha"], ["gamma", "beta"], ["theta", "alpha", "missing"]):
        ref = pg_store.keyword_search(query, scope=s, k=5)
        got = snap.keyword_search(query, scope=s, k=5)
        assert [c.memory.id for c in got] == [c.memory.id for c in ref]
        for x, y in zip(got, ref, strict=True):
            assert x.scores["bm25"] == pytest.approx(y.scores["bm25"], rel=1e-6)
    q = unit(rng)
    ref = pg_store.dense_search(q, scope=s, k=5)
    got = snap.dense_search(q, scope=s, k=5)
    assert [c.memory.id for c in got] == [c.memory.id for c in ref]
    for x, y in zip(got, ref, strict=True):
        assert x.scores["cosine"] == pytest.approx(y.scores["cosine"], abs=1e-5)
    other = SnapshotStore(memories, {}, {})
    assert other.keyword_search(["alpha"], scope=Scope.of("someone-else"), k=5) == []


def test_replay_rules() -> None:
    t = datetime(2026, 1, 1, tzinfo=UTC)
    mid = uuid.uuid4()
    m1 = Memory(id=mid, tenant_id="x", content="v1", valid_until=t + timedelta(days=3))
    m2 = m1.model_copy(update={"content": "v2", "version": 2})

    def ev(i: int, action: EventAction, days: int, after: Memory | None) -> Event:
        return Event(
            id=i,
            tenant_id="x",
            memory_id=mid,
            action=action,
            actor="t",
            at=t + timedelta(days=days),
            after=after.public_dict() if after else None,
        )

    events = [
        ev(3, EventAction.PURGE, 2, None),
        ev(1, EventAction.CREATE, 0, m1),
        ev(4, EventAction.PURGE_PROOF, 2, None),
        ev(2, EventAction.UPDATE, 1, m2),
    ]
    assert replay_events(events, t - timedelta(seconds=1)) == {}
    assert replay_events(events, t)[mid].content == "v1"
    assert replay_events(events, t + timedelta(days=1, hours=1))[mid].content == "v2"
    assert replay_events(events, t + timedelta(days=2)) == {}
    assert valid_at(m1, t + timedelta(days=2)) and not valid_at(m1, t + timedelta(days=3))
