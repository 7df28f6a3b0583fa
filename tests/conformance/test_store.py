"""Store conformance suite (STYLE.md 2): the MemoryStore protocol, the same calls and the same
expected ids for every backend. Scenarios from FAILURES.md sections 1, 2, 7, 10 and 11.

Embeddings are seeded random unit vectors; keyword ``terms`` are hand-made tuples.
"""

from __future__ import annotations

import math
import threading
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from memory_engine.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    MemoryNotFoundError,
    TenantScopeError,
    VersionConflictError,
)
from memory_engine.models import (
    EventAction,
    Memory,
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
    Trace,
    TraceCandidate,
)
from memory_engine.stores.base import MemoryStore, NewMemory
from tests.conformance.conftest import DIM, MODEL
from tests.conftest import new_tenant_id

ALL_STATUSES = tuple(MemoryStatus)

# ----------------------------------------------------------------------------- helpers


def unit(rng: np.random.Generator, dim: int = DIM) -> np.ndarray:
    v = rng.normal(size=dim)
    return v / np.linalg.norm(v)


def near(q: np.ndarray, rng: np.random.Generator, noise: float = 0.05) -> np.ndarray:
    v = q + rng.normal(scale=noise, size=q.shape)
    return v / np.linalg.norm(v)


def far(q: np.ndarray, rng: np.random.Generator, noise: float = 0.05) -> np.ndarray:
    return near(-q, rng, noise)


def item(
    tenant_id: str,
    content: str,
    emb: np.ndarray,
    *,
    terms: Sequence[str] | None = None,
    content_hash: str | None = None,
    **fields: Any,
) -> NewMemory:
    """A NewMemory; terms default to the lower-cased words, content_hash to the lower text."""
    memory = Memory(
        tenant_id=tenant_id,
        content=content,
        content_hash=content.lower() if content_hash is None else content_hash,
        **fields,
    )
    words = tuple(content.lower().replace(".", "").split()) if terms is None else tuple(terms)
    return NewMemory(memory=memory, embedding=tuple(float(x) for x in emb), terms=words)


def put(store: MemoryStore, scope: Scope, *items: NewMemory) -> list[uuid.UUID]:
    outcomes = store.insert(list(items), scope=scope, actor="test")
    assert [o.status for o in outcomes] == ["created"] * len(items)
    return [o.memory_id for o in outcomes]


def ids(candidates: Sequence[Any]) -> list[uuid.UUID]:
    return [c.memory.id for c in candidates]


# ----------------------------------------------------------------------------- contract


def test_store_satisfies_protocol(store: MemoryStore) -> None:
    assert isinstance(store, MemoryStore)
    assert isinstance(store.name, str) and store.name
    assert store.embedding_info() == (MODEL, DIM)


def test_insert_get_roundtrip(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s = Scope.of(tenant, user_id="u1", agent_id="ag", session_id="s1")
    observed = datetime(2023, 5, 24, 10, 30, tzinfo=UTC)
    new = item(
        tenant,
        "User prefers tea",
        unit(rng),
        memory_type=MemoryType.SEMANTIC,
        entities=("user", "tea"),
        tags=("pref",),
        importance=0.8,
        confidence=0.9,
        source=MemorySource.MANUAL,
        source_ref="msg-1",
        observed_at=observed,
        metadata={"k": [1, 2], "nested": {"a": "b"}},
    )
    (mid,) = put(store, s, new)
    got = store.get(mid, scope=s)
    assert got.content == "User prefers tea"
    assert (got.user_id, got.agent_id, got.session_id) == ("u1", "ag", "s1")
    assert got.memory_type is MemoryType.SEMANTIC and got.source is MemorySource.MANUAL
    assert got.entities == ("user", "tea") and got.tags == ("pref",)
    assert got.importance == pytest.approx(0.8) and got.confidence == pytest.approx(0.9)
    assert got.observed_at == observed and got.created_at.tzinfo is not None
    assert got.metadata == {"k": [1, 2], "nested": {"a": "b"}}
    assert got.version == 1 and got.status is MemoryStatus.ACTIVE
    assert got.embedding_model == MODEL


def test_scope_ids_fill_and_contradiction(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant, user_id="u1")
    (mid,) = put(store, s, item(tenant, "filled from scope", unit(rng)))
    assert store.get(mid, scope=s).user_id == "u1"
    with pytest.raises(TenantScopeError):
        store.insert([item(tenant, "x", unit(rng), user_id="u2")], scope=s, actor="t")
    with pytest.raises(TenantScopeError):
        store.insert([item(new_tenant_id(), "x", unit(rng))], scope=s, actor="t")
    assert store.count(scope=Scope.of(tenant)) == 1


# ----------------------------------------------------------------------------- FAILURES 1


def test_falcon_heron_isolation_in_every_leg(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    a, b = Scope.of(ta), Scope.of(tb)
    q = unit(rng)
    (falcon,) = put(store, a, item(ta, "Project codename is Falcon", near(q, rng, 0.01)))
    (heron,) = put(store, b, item(tb, "Project codename is Heron", near(q, rng, 0.2)))
    for statuses in ((MemoryStatus.ACTIVE,), ALL_STATUSES):
        dense_b = store.dense_search(q, scope=b, k=10, statuses=statuses)
        kw_b = store.keyword_search(["project", "codename"], scope=b, k=10, statuses=statuses)
        assert ids(dense_b) == [heron] and ids(kw_b) == [heron]
        dense_a = store.dense_search(q, scope=a, k=10, statuses=statuses)
        kw_a = store.keyword_search(["project", "codename", "heron"], scope=a, k=10)
        assert ids(dense_a) == [falcon] and ids(kw_a) == [falcon]
    assert store.keyword_search(["falcon"], scope=b, k=10) == []
    assert [m.id for m in store.list(scope=b).items] == [heron]
    assert store.count(scope=b) == 1
    assert all(e.memory_id == heron for e in store.events(scope=b).items)


def test_same_user_and_session_strings_under_two_tenants_never_share(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    q = unit(rng)
    sa = Scope.of(ta, user_id="alice", session_id="sess-1")
    sb = Scope.of(tb, user_id="alice", session_id="sess-1")
    (ma,) = put(store, sa, item(ta, "alice likes green", near(q, rng)))
    (mb,) = put(store, sb, item(tb, "alice likes blue", near(q, rng)))
    for scope, mine in ((sa, ma), (sb, mb)):
        for narrowed in (scope, Scope.of(scope.tenant_id, session_id="sess-1")):
            assert ids(store.dense_search(q, scope=narrowed, k=10)) == [mine]
            assert ids(store.keyword_search(["alice", "likes"], scope=narrowed, k=10)) == [mine]
            assert [m.id for m in store.list(scope=narrowed).items] == [mine]
    with pytest.raises(MemoryNotFoundError):
        store.get(mb, scope=sa)


def test_user_and_agent_narrowing(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    q = unit(rng)
    writer = Scope.of(tenant, user_id="u1", agent_id="planner")
    (mid,) = put(store, writer, item(tenant, "The dog is called Biscuit", near(q, rng)))
    visible = [
        Scope.of(tenant),
        Scope.of(tenant, user_id="u1"),
        Scope.of(tenant, user_id="u1", agent_id="planner"),
        Scope.of(tenant, agent_id="planner"),
    ]
    hidden = [
        Scope.of(tenant, user_id="u1", agent_id="coder"),
        Scope.of(tenant, user_id="u2"),
        Scope.of(tenant, session_id="other"),
    ]
    for s in visible:
        assert ids(store.dense_search(q, scope=s, k=5)) == [mid]
        assert ids(store.keyword_search(["biscuit"], scope=s, k=5)) == [mid]
        assert store.get(mid, scope=s).id == mid
        assert store.count(scope=s) == 1
    for s in hidden:
        assert store.dense_search(q, scope=s, k=5) == []
        assert store.keyword_search(["biscuit"], scope=s, k=5) == []
        assert store.list(scope=s).total == 0
        assert store.count(scope=s) == 0
        with pytest.raises(MemoryNotFoundError):
            store.get(mid, scope=s)
        with pytest.raises(MemoryNotFoundError):
            store.update(mid, scope=s, expected_version=1, changes={"importance": 0.1}, actor="t")


def test_other_tenants_id_is_not_found_everywhere(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    a, b = Scope.of(ta), Scope.of(tb)
    (mid,) = put(store, a, item(ta, "secret of A", unit(rng)))
    with pytest.raises(MemoryNotFoundError):
        store.get(mid, scope=b)
    with pytest.raises(MemoryNotFoundError):
        store.update(mid, scope=b, expected_version=1, changes={"content": "pwned"}, actor="x")
    with pytest.raises(MemoryNotFoundError):
        store.purge(mid, scope=b, actor="x")
    with pytest.raises(MemoryNotFoundError):
        store.history(mid, scope=b)
    with pytest.raises(MemoryNotFoundError):
        store.get(uuid.uuid4(), scope=a)
    assert store.get(mid, scope=a).content == "secret of A"
    assert len(store.history(mid, scope=a).items) == 1


# ----------------------------------------------------------------------------- FAILURES 2


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
    assert update.reason == "step 1" and update.request_id == "req-1"
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


# ----------------------------------------------------------------------------- FAILURES 7


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
    with pytest.raises(InvalidInputError):
        st.dense_search(unit(rng, 12), scope=s, k=3)
    with pytest.raises(InvalidInputError):
        st.insert([item(tenant, "twelve", unit(rng, 12))], scope=s, actor="t")
    assert st.count(scope=s) == 3
    reopened = store_factory.reopen(st)
    with pytest.raises(EmbeddingMismatchError):
        reopened.ensure_embedding("model-b", 12)


# ----------------------------------------------------------------------------- FAILURES 11


def test_recall_with_a_large_neighbour_tenant(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    q = unit(rng)
    b = Scope.of(tb)
    for start in range(0, 2000, 500):
        store.insert(
            [item(tb, f"b near {i}", near(q, rng, 0.1)) for i in range(start, start + 500)],
            scope=b,
            actor="t",
        )
    a = Scope.of(ta)
    a_ids = set(put(store, a, *(item(ta, f"a far {i}", far(q, rng, 0.3)) for i in range(30))))
    ten = store.dense_search(q, scope=a, k=10)
    assert len(ten) == 10 and set(ids(ten)) <= a_ids
    fifty = store.dense_search(q, scope=a, k=50)
    assert len(fifty) == 30 and set(ids(fifty)) == a_ids
    scores = [c.scores["cosine"] for c in fifty]
    assert scores == sorted(scores, reverse=True)
    assert all(-1.0 - 1e-6 <= x <= 1.0 + 1e-6 for x in scores)
    assert [c.ranks["dense"] for c in fifty] == list(range(1, 31))


@pytest.mark.parametrize(("tenants", "rows_each"), [(10, 100), (100, 20)])
def test_hnsw_path_returns_full_k(
    store_factory: Any, tenants: int, rows_each: int, rng: np.random.Generator
) -> None:
    st = store_factory.new(exact_search_max_rows=0)  # always the approximate (HNSW) path
    st.ensure_embedding(MODEL, DIM)
    names = [new_tenant_id(f"h{i}") for i in range(tenants)]
    for name in names:
        st.insert(
            [item(name, f"{name} row {j}", unit(rng)) for j in range(rows_each)],
            scope=Scope.of(name),
            actor="t",
        )
    for name in names[:5]:
        s = Scope.of(name)
        found = st.dense_search(unit(rng), scope=s, k=10)
        assert len(found) == 10
        assert all(c.memory.tenant_id == name for c in found)
        assert len(st.dense_search(unit(rng), scope=s, k=rows_each + 5)) == rows_each


def test_search_k_bounds(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s = Scope.of(tenant)
    put(store, s, item(tenant, "only one", unit(rng)))
    assert len(store.dense_search(unit(rng), scope=s, k=1000)) == 1
    for k in (0, -1, 1001):
        with pytest.raises(InvalidInputError):
            store.dense_search(unit(rng), scope=s, k=k)
        with pytest.raises(InvalidInputError):
            store.keyword_search(["only"], scope=s, k=k)
    with pytest.raises(InvalidInputError):
        store.dense_search(np.zeros(DIM), scope=s, k=1)
    with pytest.raises(InvalidInputError):  # an empty status filter is not "everything"
        store.dense_search(unit(rng), scope=s, k=1, statuses=())
    with pytest.raises(InvalidInputError):
        store.keyword_search(["only"], scope=s, k=1, statuses=())


# ----------------------------------------------------------------------------- keyword / BM25


def _bm25(tf: float, dl: float, avgdl: float, n: int, df: int) -> float:
    idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
    return idf * tf * 2.2 / (tf + 1.2 * (1 - 0.75 + 0.75 * dl / avgdl))


def test_bm25_values_and_order(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s = Scope.of(tenant)
    d1, d2, d3 = put(
        store,
        s,
        item(tenant, "a", unit(rng), terms=["peanut", "allergy", "peanut"]),
        item(tenant, "b", unit(rng), terms=["peanut", "butter", "toast", "breakfast"]),
        item(tenant, "c", unit(rng), terms=["coffee", "morning"]),
    )
    found = store.keyword_search(["peanut"], scope=s, k=10)
    assert ids(found) == [d1, d2]
    avgdl = (3 + 4 + 2) / 3
    assert found[0].scores["bm25"] == pytest.approx(_bm25(2, 3, avgdl, 3, 2), rel=1e-6)
    assert found[1].scores["bm25"] == pytest.approx(_bm25(1, 4, avgdl, 3, 2), rel=1e-6)
    assert [c.ranks["keyword"] for c in found] == [1, 2]
    twice = store.keyword_search(["peanut", "peanut", ""], scope=s, k=10)
    assert [c.scores["bm25"] for c in twice] == pytest.approx([c.scores["bm25"] for c in found])
    both = store.keyword_search(["peanut", "coffee"], scope=s, k=10)
    assert set(ids(both)) == {d1, d2, d3} and all(c.scores["bm25"] >= 0 for c in both)
    assert store.keyword_search(["nothing"], scope=s, k=10) == []
    assert store.keyword_search([], scope=s, k=10) == []
    assert len(store.keyword_search(["peanut", "coffee"], scope=s, k=1)) == 1


def test_bm25_statistics_are_per_tenant(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    (only,) = put(store, Scope.of(ta), item(ta, "x", unit(rng), terms=["rare", "word"]))
    put(store, Scope.of(tb), *(item(tb, f"y{i}", unit(rng), terms=["rare"]) for i in range(20)))
    (hit,) = store.keyword_search(["rare"], scope=Scope.of(ta), k=5)
    assert hit.memory.id == only
    assert hit.scores["bm25"] == pytest.approx(_bm25(1, 2, 2, 1, 1), rel=1e-6)


# ----------------------------------------------------------------------------- listings


def _dated(store: MemoryStore, tenant: str, rng: np.random.Generator, n: int) -> list[uuid.UUID]:
    base = datetime(2024, 1, 1, tzinfo=UTC)
    return put(
        store,
        Scope.of(tenant),
        *(
            item(
                tenant,
                f"note {i} 100%_sure" if i == 2 else f"note {i}",
                unit(rng),
                created_at=base + timedelta(days=i),
                memory_type=MemoryType.SEMANTIC if i % 2 else MemoryType.EPISODIC,
                source=MemorySource.MANUAL if i < 3 else MemorySource.CONVERSATION,
            )
            for i in range(n)
        ),
    )


def test_list_is_newest_first_keyset_paginated(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    mids = _dated(store, tenant, rng, 7)
    seen: list[uuid.UUID] = []
    cursor = None
    pages = 0
    while True:
        page = store.list(scope=s, limit=3, cursor=cursor)
        assert page.total == 7 and len(page.items) <= 3
        seen += [m.id for m in page.items]
        pages += 1
        cursor = page.next_cursor
        assert page.truncated == (cursor is not None)
        if cursor is None:
            break
    assert pages == 3 and seen == list(reversed(mids))
    with pytest.raises(InvalidInputError):
        store.list(scope=s, cursor="not-a-cursor")
    with pytest.raises(InvalidInputError):
        store.list(scope=s, limit=0)


def test_list_limit_is_clamped(store_factory: Any, tenant: str, rng: np.random.Generator) -> None:
    st = store_factory.new(list_max_limit=5)
    st.ensure_embedding(MODEL, DIM)
    _dated(st, tenant, rng, 8)
    page = st.list(scope=Scope.of(tenant), limit=10_000)
    assert len(page.items) == 5 and page.total == 8 and page.next_cursor is not None
    assert len(st.events(scope=Scope.of(tenant), limit=10_000).items) == 5


def test_list_filters_and_facets(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s = Scope.of(tenant)
    mids = _dated(store, tenant, rng, 6)
    store.update(mids[0], scope=s, expected_version=1, changes={"status": "archived"}, actor="t")

    def listed(**f: Any) -> list[uuid.UUID]:
        return [m.id for m in store.list(scope=s, filters=MemoryFilter(**f), limit=50).items]

    assert listed(memory_types=(MemoryType.SEMANTIC,)) == [mids[5], mids[3], mids[1]]
    assert listed(statuses=(MemoryStatus.ARCHIVED,)) == [mids[0]]
    assert listed(sources=(MemorySource.MANUAL,)) == [mids[2], mids[1], mids[0]]
    assert listed(text_contains="100%_S") == [mids[2]]
    assert listed(text_contains="%") == [mids[2]]
    assert listed(text_contains="_") == [mids[2]]
    assert listed(text_contains="NOTE 4") == [mids[4]]
    base = datetime(2024, 1, 1, tzinfo=UTC)
    assert listed(created_from=base + timedelta(days=2), created_to=base + timedelta(days=3)) == [
        mids[3],
        mids[2],
    ]
    facets = store.facet_counts(scope=s)
    assert facets["memory_type"] == {"semantic": 3, "episodic": 3}
    assert facets["status"] == {"active": 5, "archived": 1}
    assert facets["source"] == {"manual": 3, "conversation": 3}
    narrowed = store.facet_counts(scope=s, filters=MemoryFilter(sources=(MemorySource.MANUAL,)))
    assert narrowed["status"] == {"active": 2, "archived": 1}
    assert store.count(scope=s, statuses=[MemoryStatus.ACTIVE]) == 5


def test_stats(store: MemoryStore, tenant: str, rng: np.random.Generator) -> None:
    s = Scope.of(tenant)
    mids = _dated(store, tenant, rng, 4)
    store.update(mids[0], scope=s, expected_version=1, changes={"status": "archived"}, actor="t")
    stats = store.stats(scope=s, days=7)
    assert stats.total == 4
    assert stats.by_status == {"active": 3, "archived": 1}
    assert stats.by_type == {"episodic": 2, "semantic": 2}
    assert stats.by_source == {"manual": 3, "conversation": 1}
    assert len(stats.writes_per_day) == 7
    assert stats.writes_per_day[-1] == (datetime.now(UTC).date().isoformat(), 5)
    assert sum(n for _, n in stats.writes_per_day) == 5


def test_events_are_newest_first_with_cursor(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    put(store, s, *(item(tenant, f"event source {i}", unit(rng)) for i in range(5)))
    first = store.events(scope=s, limit=2)
    assert first.total == 5 and len(first.items) == 2 and first.next_cursor
    second = store.events(scope=s, limit=2, cursor=first.next_cursor)
    third = store.events(scope=s, limit=2, cursor=second.next_cursor)
    got = [e.id for e in first.items + second.items + third.items]
    assert len(got) == 5 and got == sorted(got, reverse=True)
    assert third.next_cursor is None


# ----------------------------------------------------------------------------- traces


def _trace(tenant: str, query: str, when: datetime) -> Trace:
    cand = TraceCandidate(
        memory_id=uuid.uuid4(),
        content="c",
        memory_type=MemoryType.EPISODIC,
        source=MemorySource.CONVERSATION,
        scores={"rrf": 0.03},
    )
    dropped = cand.model_copy(update={"memory_id": uuid.uuid4(), "dropped": "threshold"})
    return Trace(
        tenant_id=tenant,
        scope=Scope.of(tenant),
        query=query,
        created_at=when,
        candidates=[cand, dropped, cand.model_copy(update={"memory_id": uuid.uuid4()})],
        legs={"dense": [cand]},
        timings_ms={"dense": 1.5},
    )


def test_traces_roundtrip_and_isolation(store: MemoryStore, tenant_pair: tuple[str, str]) -> None:
    ta, tb = tenant_pair
    trace = _trace(ta, "where is the dog", datetime.now(UTC))
    store.save_trace(trace, scope=Scope.of(ta))
    got = store.get_trace(trace.id, scope=Scope.of(ta))
    assert got.model_dump(mode="json") == trace.model_dump(mode="json")
    with pytest.raises(MemoryNotFoundError):
        store.get_trace(trace.id, scope=Scope.of(tb))
    with pytest.raises(TenantScopeError):
        store.save_trace(trace, scope=Scope.of(tb))
    (row,) = store.list_traces(scope=Scope.of(ta)).items
    assert row["id"] == trace.id and row["query"] == "where is the dog" and row["returned"] == 2
    assert store.list_traces(scope=Scope.of(tb)).items == []


def test_trace_retention_keeps_newest(store_factory: Any, tenant: str) -> None:
    st = store_factory.new(trace_retention=3)
    s = Scope.of(tenant)
    base = datetime(2024, 6, 1, tzinfo=UTC)
    traces = [_trace(tenant, f"q{i}", base + timedelta(minutes=i)) for i in range(5)]
    for t in traces:
        st.save_trace(t, scope=s)
    page = st.list_traces(scope=s, limit=2)
    assert page.total == 3 and [r["query"] for r in page.items] == ["q4", "q3"]
    rest = st.list_traces(scope=s, limit=2, cursor=page.next_cursor)
    assert [r["query"] for r in rest.items] == ["q2"] and rest.next_cursor is None
    with pytest.raises(MemoryNotFoundError):
        st.get_trace(traces[0].id, scope=s)


# ----------------------------------------------------------------------------- admin


def test_admin_tenant_counts_spans_tenants(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    put(store, Scope.of(ta), item(ta, "one", unit(rng)), item(ta, "two", unit(rng)))
    (mid,) = put(store, Scope.of(tb), item(tb, "three", unit(rng)))
    store.update(
        mid, scope=Scope.of(tb), expected_version=1, changes={"status": "deleted"}, actor="t"
    )
    counts = store.admin_tenant_counts(actor="ops", reason="capacity review")
    assert counts[ta] == 2 and tb not in counts
    with pytest.raises(InvalidInputError):
        store.admin_tenant_counts(actor="ops", reason=" ")
