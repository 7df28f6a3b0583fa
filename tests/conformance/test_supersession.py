"""Conformance: the fields the write pipeline relies on (valid_until, superseded_by set and
cleared, request ids on events) behave the same on every store."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from memory_engine.models import MemoryStatus, Scope
from memory_engine.stores.base import MemoryStore
from tests.conformance.helpers import ids, item, near, put, unit


def test_supersede_then_restore_with_valid_until(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    q = unit(rng)
    until = datetime(2023, 6, 7, tzinfo=UTC)
    old, new = put(
        store,
        s,
        item(tenant, "User reports on Thursday", near(q, rng)),
        item(tenant, "User reports on Friday", near(q, rng), valid_until=until),
    )
    assert store.get(new, scope=s).valid_until == until
    store.update(
        old,
        scope=s,
        expected_version=1,
        changes={"status": MemoryStatus.SUPERSEDED, "superseded_by": new, "valid_until": until},
        actor="writer",
        action="supersede",
        request_id="write-1",
    )
    got = store.get(old, scope=s)
    assert (got.status, got.superseded_by, got.valid_until) == ("superseded", new, until)
    assert ids(store.dense_search(q, scope=s, k=5)) == [new]
    assert ids(store.dense_search(q, scope=s, k=5, statuses=[MemoryStatus.SUPERSEDED])) == [old]
    store.update(
        old,
        scope=s,
        expected_version=2,
        changes={"status": MemoryStatus.ACTIVE, "superseded_by": None, "valid_until": None},
        actor="reviewer",
        action="restore",
        request_id="write-1",
    )
    back = store.get(old, scope=s)
    assert (back.status, back.superseded_by, back.valid_until) == ("active", None, None)
    events = store.history(old, scope=s).items
    assert [e.action for e in events] == ["create", "supersede", "restore"]
    assert [e.request_id for e in events[1:]] == ["write-1", "write-1"]
