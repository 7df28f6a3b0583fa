"""Store conformance of the copy support (``record_ids``, ``read_records``, ``write_records``,
``admin_tenant_ids``): the same bodies for every backend; what one store reads, another store of
the same backend writes back identically, and conflicts are refused without a write.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from memory_engine.errors import InvalidInputError, TransferConflictError
from memory_engine.models import EventAction, MemoryStatus, Scope
from memory_engine.stores.base import MemoryRecord, MemoryStore
from memory_engine.stores.record_compare import record_differences
from tests.conformance.conftest import DIM, MODEL
from tests.conformance.helpers import ALL_STATUSES, ids, item, put, unit
from tests.conftest import new_tenant_id


def _history_tenant(store: MemoryStore, rng: np.random.Generator) -> tuple[str, list[uuid.UUID]]:
    """A tenant with 5 memories: one updated, one archived, one purged (4 stored, 1 purged)."""
    tenant = new_tenant_id("rec")
    s = Scope.of(tenant, user_id="u1")
    mids = put(
        store,
        s,
        *(item(tenant, f"fact number {i} about 北京 travel", unit(rng)) for i in range(5)),
    )
    store.update(
        mids[0],
        scope=s,
        expected_version=1,
        changes={"importance": 0.9, "tags": ("edited",)},
        actor="editor",
        reason="more important",
    )
    store.update(
        mids[1],
        scope=s,
        expected_version=1,
        changes={"status": MemoryStatus.ARCHIVED},
        actor="lifecycle",
        action="archive",
    )
    store.purge(mids[2], scope=s, actor="user", reason="forget it")
    return tenant, mids


def _all_ids(store: MemoryStore, tenant: str, limit: int) -> list[uuid.UUID]:
    out: list[uuid.UUID] = []
    cursor = None
    for _ in range(100):
        page = store.record_ids(scope=Scope.of(tenant), limit=limit, cursor=cursor)
        assert page.total == 5
        assert page.truncated == (page.next_cursor is not None)
        out.extend(page.items)
        cursor = page.next_cursor
        if cursor is None:
            return out
    raise AssertionError("record_ids never ended")


@pytest.mark.parametrize("limit", [1, 2, 500])
def test_record_ids_cover_stored_then_purged_once(
    store: MemoryStore, rng: np.random.Generator, limit: int
) -> None:
    tenant, mids = _history_tenant(store, rng)
    got = _all_ids(store, tenant, limit)
    assert len(got) == 5 and set(got) == set(mids)
    assert got[-1] == mids[2]  # purged memories come after the stored ones
    assert store.record_ids(scope=Scope.of(new_tenant_id()), limit=10).items == []
    with pytest.raises(InvalidInputError):
        store.record_ids(scope=Scope.of(tenant), cursor="not-a-cursor")


def test_read_records_holds_row_vector_terms_and_events(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    tenant, mids = _history_tenant(store, rng)
    unknown = uuid.uuid4()
    recs = store.read_records([mids[0], mids[1], mids[2], unknown], scope=Scope.of(tenant))
    assert [r.memory_id for r in recs] == [mids[0], mids[1], mids[2], unknown]
    edited, archived, purged, missing = recs
    assert edited.memory is not None and edited.memory.version == 2
    assert edited.memory.tags == ("edited",) and edited.memory.user_id == "u1"
    assert edited.embedding is not None and len(edited.embedding) == DIM
    assert edited.terms is not None and sorted(edited.terms) == sorted(
        "fact number 0 about 北京 travel".split()
    )
    assert [e.action for e in edited.events] == [EventAction.CREATE, EventAction.UPDATE]
    assert edited.events[1].actor == "editor" and edited.events[1].reason == "more important"
    assert archived.memory is not None and archived.memory.status is MemoryStatus.ARCHIVED
    assert purged.memory is None and purged.embedding is None
    assert [e.action for e in purged.events] == [EventAction.CREATE, EventAction.PURGE]
    assert missing.empty
    # another tenant sees nothing of these ids
    other = store.read_records(mids, scope=Scope.of(new_tenant_id()))
    assert all(r.empty for r in other)
    with pytest.raises(InvalidInputError):
        store.read_records([mids[0], mids[0]], scope=Scope.of(tenant))


def test_write_records_roundtrip_then_conflict(
    store: MemoryStore, store_factory: object, rng: np.random.Generator
) -> None:
    tenant, mids = _history_tenant(store, rng)
    scope = Scope.of(tenant)
    recs = store.read_records(_all_ids(store, tenant, 500), scope=scope)
    copy = store_factory.new()  # type: ignore[attr-defined]
    copy.write_records(recs, scope=scope)
    assert copy.embedding_info() == (MODEL, DIM)
    back = copy.read_records([r.memory_id for r in recs], scope=scope)
    for a, b in zip(recs, back, strict=True):
        assert record_differences(a, b) == [], a.memory_id
    # the copy answers like the original: listings, history, both retrieval legs
    assert copy.count(scope=scope) == store.count(scope=scope) == 4
    assert [e.action for e in copy.history(mids[2], scope=scope).items] == [
        EventAction.CREATE,
        EventAction.PURGE,
    ]
    assert copy.events(scope=scope, limit=1).total == store.events(scope=scope, limit=1).total
    q = recs[0].embedding
    assert q is not None
    top = copy.dense_search(q, scope=scope, k=1, statuses=ALL_STATUSES)
    assert ids(top) == [recs[0].memory_id]
    assert set(ids(copy.keyword_search(["北京"], scope=scope, k=10))) == {mids[0], mids[3], mids[4]}
    assert _all_ids(copy, tenant, 2)[-1] == mids[2]
    # writing any of them again is a typed conflict and changes nothing
    events_before = copy.events(scope=scope, limit=1).total
    with pytest.raises(TransferConflictError):
        copy.write_records(recs[:1], scope=scope)
    purged_only = [r for r in recs if r.memory is None]
    with pytest.raises(TransferConflictError):
        copy.write_records(purged_only, scope=scope)
    assert copy.events(scope=scope, limit=1).total == events_before


def test_write_records_refuses_same_active_content(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    tenant = new_tenant_id("dup")
    s = Scope.of(tenant)
    (mid,) = put(store, s, item(tenant, "same content twice", unit(rng)))
    (rec,) = store.read_records([mid], scope=s)
    assert rec.memory is not None
    clone = MemoryRecord(
        memory_id=(new_id := uuid.uuid4()),
        memory=rec.memory.model_copy(update={"id": new_id}),
        embedding=rec.embedding,
        terms=rec.terms,
        events=tuple(e.model_copy(update={"memory_id": new_id}) for e in rec.events),
    )
    with pytest.raises(TransferConflictError):
        store.write_records([clone], scope=s)
    assert store.count(scope=s) == 1
    assert store.read_records([new_id], scope=s)[0].empty


def test_write_records_refuses_other_tenant(store: MemoryStore, rng: np.random.Generator) -> None:
    tenant, mids = _history_tenant(store, rng)
    recs = store.read_records(mids, scope=Scope.of(tenant))
    from memory_engine.errors import TenantScopeError

    with pytest.raises(TenantScopeError):
        store.write_records(recs, scope=Scope.of(new_tenant_id()))


def test_admin_tenant_ids_include_purged_only_tenants(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    gone = new_tenant_id("gone")
    (mid,) = put(store, Scope.of(gone), item(gone, "to be purged", unit(rng)))
    store.purge(mid, scope=Scope.of(gone), actor="t")
    kept = new_tenant_id("kept")
    put(store, Scope.of(kept), item(kept, "stays", unit(rng)))
    tenants = store.admin_tenant_ids(actor="test", reason="conformance")
    assert {gone, kept} <= set(tenants) and tenants == sorted(tenants)
    assert "" not in tenants
    with pytest.raises(InvalidInputError):
        store.admin_tenant_ids(actor=" ", reason="x")


def test_write_records_large_batch_keeps_event_order(
    store: MemoryStore, store_factory: object, rng: np.random.Generator
) -> None:
    """100 records (more than one multi-row VALUES statement) after a large insert on the same
    store: every record and event arrives, event ids follow event time."""
    tenant = new_tenant_id("big")
    s = Scope.of(tenant)
    mids = put(store, s, *(item(tenant, f"bulk fact {i}", unit(rng)) for i in range(100)))
    for mid in mids[:30]:
        store.update(mid, scope=s, expected_version=1, changes={"importance": 0.2}, actor="t")
    recs = store.read_records(mids, scope=s)
    target = store_factory.new()  # type: ignore[attr-defined]
    target.ensure_embedding(MODEL, DIM)
    target.insert([item(tenant, f"other {i}", unit(rng)) for i in range(70)], scope=s, actor="t")
    target.write_records(recs, scope=s)
    back = target.read_records(mids, scope=s)
    assert all(record_differences(a, b) == [] for a, b in zip(recs, back, strict=True))
    events = []
    cursor = None
    while True:
        page = target.events(scope=s, limit=500, cursor=cursor)
        events.extend(page.items)
        cursor = page.next_cursor
        if not cursor:
            break
    copied = [e for e in events if e.memory_id in set(mids)]
    assert len(copied) == 130
    by_id = sorted(copied, key=lambda e: e.id)
    assert [e.at for e in by_id] == sorted(e.at for e in copied)
