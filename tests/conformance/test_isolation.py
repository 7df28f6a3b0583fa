"""Store conformance (docs/architecture.md#conformance-suite): the protocol, round trips, scope filling and tenant isolation
(docs/architecture.md#f1-scope-filter), the same calls and expected ids for every backend.
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import numpy as np
import pytest

from memory_engine.errors import (
    MemoryNotFoundError,
    TenantScopeError,
)
from memory_engine.models import (
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
)
from memory_engine.stores.base import MemoryStore
from tests.conformance.conftest import DIM, MODEL
from tests.conformance.helpers import ALL_STATUSES, ids, item, near, put, unit
from tests.conftest import new_tenant_id

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


# ----------------------------------------------------------------------------- docs/architecture.md#f1-scope-filter


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
