"""Store conformance (docs/architecture.md#conformance-suite): archive/restore/purge, versions, events, duplicates,
concurrency and embedding drift (docs/architecture.md#failure-catalogue F2, F7 and F10) for every backend.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from memory_engine.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    MemoryNotFoundError,
    VersionConflictError,
)
from memory_engine.models import (
    EventAction,
    MemoryFilter,
    MemoryStatus,
    Scope,
)
from memory_engine.stores.base import MemoryStore
from tests.conformance.conftest import DIM, MODEL
from tests.conformance.helpers import ALL_STATUSES, ids, item, near, put, unit

# ----------------------------------------------------------------------------- docs/architecture.md#f2-deleted-returned


def _two_jwt(store: MemoryStore, tenant: str, rng: np.random.Generator) -> tuple[Any, ...]:
    s = Scope.of(tenant)
    q = unit(rng)
    first, second = put(
        store,
        s,
        item(tenant, "JWT tokens expire after 15 minutes", near(q, rng, 0.01)),
        item(tenant, "JWT signing key rotates monthly", near(q, rng, 0.3)),
    )
    assert ids(store.dense_search(q, scope=s, k=1)) == [first]
    return s, q, first, second


def test_purge_then_search_k1_returns_the_other(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s, q, first, second = _two_jwt(store, tenant, rng)
    store.purge(first, scope=s, actor="test", reason="user request")
    assert ids(store.dense_search(q, scope=s, k=1)) == [second]
    assert ids(store.keyword_search(["jwt"], scope=s, k=1)) == [second]
    for statuses in (ALL_STATUSES,):
        assert first not in ids(store.dense_search(q, scope=s, k=10, statuses=statuses))
    with pytest.raises(MemoryNotFoundError):
        store.get(first, scope=s)
    actions = [e.action for e in store.history(first, scope=s).items]
    assert actions == [EventAction.CREATE, EventAction.PURGE]
    assert store.list(scope=s, filters=MemoryFilter(statuses=ALL_STATUSES)).total == 1


def test_archive_then_restore(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s, q, first, second = _two_jwt(store, tenant, rng)
    archived = store.update(
        first,
        scope=s,
        expected_version=1,
        changes={"status": MemoryStatus.ARCHIVED},
        actor="t",
        action="archive",
    )
    assert archived.status is MemoryStatus.ARCHIVED and archived.version == 2
    assert ids(store.dense_search(q, scope=s, k=1)) == [second]
    assert ids(store.keyword_search(["jwt"], scope=s, k=5)) == [second]
    assert ids(store.dense_search(q, scope=s, k=1, statuses=[MemoryStatus.ARCHIVED])) == [first]
    store.update(
        first,
        scope=s,
        expected_version=2,
        changes={"status": "active"},
        actor="t",
        action="restore",
    )
    assert ids(store.dense_search(q, scope=s, k=1)) == [first]
    assert len(store.keyword_search(["jwt"], scope=s, k=5)) == 2


def test_superseded_and_deleted_are_hidden_by_default(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s, q, first, second = _two_jwt(store, tenant, rng)
    store.update(
        first,
        scope=s,
        expected_version=1,
        changes={"status": "superseded", "superseded_by": second},
        actor="t",
        action="supersede",
    )
    store.update(
        second,
        scope=s,
        expected_version=1,
        changes={"status": "deleted"},
        actor="t",
        action="delete",
    )
    assert store.dense_search(q, scope=s, k=5) == []
    assert store.keyword_search(["jwt"], scope=s, k=5) == []
    assert store.get(first, scope=s).superseded_by == second
    assert store.count(scope=s, statuses=[MemoryStatus.ACTIVE]) == 0
    assert store.count(scope=s) == 2


def test_purging_everything_shows_zero(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    q = unit(rng)
    mids = put(store, s, *(item(tenant, f"fact number {i}", near(q, rng, 0.5)) for i in range(4)))
    for mid in mids:
        store.purge(mid, scope=s, actor="t")
    assert store.dense_search(q, scope=s, k=10, statuses=ALL_STATUSES) == []
    assert store.keyword_search(["fact"], scope=s, k=10, statuses=ALL_STATUSES) == []
    page = store.list(scope=s)
    assert page.items == [] and page.total == 0 and page.next_cursor is None
    assert store.count(scope=s) == 0
    assert store.stats(scope=s).total == 0
    assert store.facet_counts(scope=s) == {"memory_type": {}, "status": {}, "source": {}}


# ----------------------------------------------------------------------------- writes


def test_version_conflict(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s = Scope.of(tenant)
    (mid,) = put(store, s, item(tenant, "meeting on Monday", unit(rng)))
    updated = store.update(
        mid, scope=s, expected_version=1, changes={"content": "meeting on Tuesday"}, actor="t"
    )
    assert updated.version == 2 and updated.content == "meeting on Tuesday"
    assert updated.updated_at >= updated.created_at
    with pytest.raises(VersionConflictError) as err:
        store.update(mid, scope=s, expected_version=1, changes={"importance": 0.9}, actor="t")
    assert err.value.details["expected"] == 1 and err.value.details["actual"] == 2
    assert err.value.details["memory_id"] == mid
    assert store.get(mid, scope=s).importance == pytest.approx(0.5)


def test_update_validates_changes(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    (mid,) = put(store, s, item(tenant, "x y z", unit(rng)))
    for bad in ({"tenant_id": "other"}, {"version": 9}, {"nope": 1}, {"importance": 3.0}):
        with pytest.raises(InvalidInputError):
            store.update(mid, scope=s, expected_version=1, changes=bad, actor="t")
    with pytest.raises(InvalidInputError):
        store.update(mid, scope=s, expected_version=1, changes={}, actor="t", action="purge")
    assert store.get(mid, scope=s).version == 1
    assert len(store.history(mid, scope=s).items) == 1


def test_update_replaces_embedding_and_terms(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    q1, q2 = unit(rng), unit(rng)
    (mid,) = put(store, s, item(tenant, "old text", near(q1, rng), terms=["old", "text"]))
    store.update(
        mid,
        scope=s,
        expected_version=1,
        changes={"content": "new words", "content_hash": "new words"},
        embedding=tuple(near(q2, rng, 0.001)),
        terms=["new", "words"],
        actor="t",
    )
    assert store.keyword_search(["old"], scope=s, k=5) == []
    assert ids(store.keyword_search(["words"], scope=s, k=5)) == [mid]
    (hit,) = store.dense_search(q2, scope=s, k=1)
    assert hit.scores["cosine"] > 0.99


def test_every_change_writes_one_event(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    other = put(store, s, item(tenant, "newer fact", unit(rng)))[0]
    (mid,) = put(store, s, item(tenant, "old fact", unit(rng)))
    steps: list[tuple[str, dict[str, Any]]] = [
        ("update", {"importance": 0.7}),
        ("archive", {"status": "archived"}),
        ("restore", {"status": "active"}),
        ("supersede", {"status": "superseded", "superseded_by": other}),
        ("restore", {"status": "active", "superseded_by": None}),
        ("delete", {"status": "deleted"}),
    ]
    for version, (action, changes) in enumerate(steps, start=1):
        store.update(
            mid,
            scope=s,
            expected_version=version,
            changes=changes,
            actor="tester",
            action=action,
            reason=f"step {version}",
            request_id=f"req-{version}",
        )
    before_purge = store.history(mid, scope=s).items
    assert before_purge[1].reason == "step 1" and before_purge[1].request_id == "req-1"
    store.purge(mid, scope=s, actor="tester", reason="gdpr")
    history = store.history(mid, scope=s).items
    assert [e.action.value for e in history] == ["create"] + [a for a, _ in steps] + ["purge"]
    assert all(e.memory_id == mid and e.tenant_id == tenant for e in history)
    assert [e.id for e in history] == sorted(e.id for e in history)  # oldest first
    create, update = history[0], history[1]
    assert create.before is None and create.after is not None and create.actor == "test"
    assert update.before is not None and update.after is not None
    assert update.before["importance"] == 0.5 and update.after["importance"] == 0.7
    assert update.before["version"] == 1 and update.after["version"] == 2
    # a purge erases the reasons of the memory's earlier events (they may quote its text)
    assert update.reason == "[purged]" and update.request_id == "req-1"
    assert history[4].after is not None and history[4].after["superseded_by"] == str(other)
    assert all("embedding" not in (e.before or {}) | (e.after or {}) for e in history)
    assert history[-1].before is not None and history[-1].reason == "gdpr"
    newest = store.events(scope=s, limit=1).items[0]
    assert newest.action is EventAction.PURGE


def test_duplicates_by_content_hash(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    (first,) = put(store, s, item(tenant, "I like spicy food", unit(rng), content_hash="h1"))
    outcomes = store.insert(
        [
            item(tenant, "I like spicy food!", unit(rng), content_hash="h1"),  # same as stored
            item(tenant, "brand new", unit(rng), content_hash="h2"),
            item(tenant, "brand new again", unit(rng), content_hash="h2"),  # same as batch item
            item(tenant, "other user", unit(rng), content_hash="h1", user_id="u9"),
        ],
        scope=s,
        actor="t",
    )
    assert [o.status for o in outcomes] == ["duplicate", "created", "duplicate", "created"]
    assert outcomes[0].existing_id == first
    assert outcomes[2].existing_id == outcomes[1].memory_id
    assert store.count(scope=s) == 3
    assert len(store.events(scope=s).items) == 3  # no event for duplicates
    store.update(first, scope=s, expected_version=1, changes={"status": "archived"}, actor="t")
    (again,) = store.insert(
        [item(tenant, "I like spicy food", unit(rng), content_hash="h1")], scope=s, actor="t"
    )
    assert again.status == "created"


def test_concurrent_inserts_survive_reopen(
    store_factory: Any, tenant: str, rng: np.random.Generator
) -> None:
    st = store_factory.new()
    st.ensure_embedding(MODEL, DIM)
    s = Scope.of(tenant, user_id="u1")
    vectors = [unit(rng) for _ in range(20)]
    errors: list[BaseException] = []
    outcomes: list[Any] = []
    barrier = threading.Barrier(20)

    def write(i: int) -> None:
        try:
            barrier.wait()
            outcomes.extend(
                st.insert([item(tenant, f"concurrent fact {i}", vectors[i])], scope=s, actor="t")
            )
        except BaseException as exc:  # noqa: BLE001 - collected and asserted below
            errors.append(exc)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert sorted(o.status for o in outcomes) == ["created"] * 20
    reopened = store_factory.reopen(st)
    assert reopened.count(scope=s) == 20
    page = reopened.list(scope=s, limit=50)
    assert page.total == 20 and len(page.items) == 20
    assert {m.content for m in page.items} == {f"concurrent fact {i}" for i in range(20)}
    assert len(reopened.dense_search(vectors[0], scope=s, k=50)) == 20


# ----------------------------------------------------------------------------- docs/architecture.md#f7-embedding-drift


def test_embedding_model_drift_is_refused(store_factory: Any, tenant: str) -> None:
    st = store_factory.new()
    assert st.embedding_info() is None
    st.ensure_embedding("model-a", 8)
    rng = np.random.default_rng(7)
    s = Scope.of(tenant)
    put(st, s, *(item(tenant, f"eight dim {i}", unit(rng, 8)) for i in range(3)))
    for model, dim in (("model-b", 12), ("model-c", 8), ("model-a", 12)):
        with pytest.raises(EmbeddingMismatchError) as err:
            st.ensure_embedding(model, dim)
        assert "re-embed required" in err.value.message
        assert err.value.details["stored_model"] == "model-a"
        assert err.value.details["stored_dim"] == 8
        assert err.value.details["configured_model"] == model
        assert err.value.details["configured_dim"] == dim
    st.ensure_embedding("model-a", 8)  # same model and dimension: fine
    assert st.embedding_info() == ("model-a", 8)
    assert st.count(scope=s) == 3
    assert len(st.dense_search(unit(rng, 8), scope=s, k=10)) == 3
    with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed"):
        st.dense_search(unit(rng, 12), scope=s, k=3)  # a query of another model
    with pytest.raises(InvalidInputError):
        st.insert([item(tenant, "twelve", unit(rng, 12))], scope=s, actor="t")
    assert st.count(scope=s) == 3
    reopened = store_factory.reopen(st)
    with pytest.raises(EmbeddingMismatchError):
        reopened.ensure_embedding("model-b", 12)
