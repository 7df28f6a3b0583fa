"""Store conformance of the entity index (``EntityIndex``): one normalised entity per key,
linked with the memory in the same write, listed with counts and bounded, filtered listings,
relinking on update, unlinking and pruning on purge, and tenant isolation, for every store.
"""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from memory_engine.entities import entity_id
from memory_engine.errors import InvalidInputError, MemoryNotFoundError
from memory_engine.models import MemoryFilter, MemoryStatus, Scope
from memory_engine.stores.base import EntityIndex, MemoryStore
from tests.conformance.helpers import item, put, unit
from tests.conftest import new_tenant_id


def _acme_three(store: MemoryStore, tenant: str, rng: np.random.Generator) -> list[uuid.UUID]:
    scope = Scope.of(tenant)
    return put(
        store,
        scope,
        item(tenant, "ACME approved the budget", unit(rng), entities=("ACME",)),
        item(tenant, "Met with ACME today", unit(rng), entities=("ＡＣＭＥ Inc.",)),
        item(tenant, "acme sent the contract", unit(rng), entities=("acme", "Priya")),
    )


def test_one_normalised_entity_links_every_spelling(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    assert isinstance(store, EntityIndex)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    ids = _acme_three(store, tenant, rng)
    page = store.list_entities(scope=scope)
    assert [(e.key, e.name, e.memory_count) for e in page.items] == [
        ("acme", "ACME", 3),  # the display name first seen
        ("priya", "Priya", 1),
    ]
    assert page.truncated is False
    acme = page.items[0]
    assert acme.id == entity_id(tenant, "acme") and acme.tenant_id == tenant
    linked = store.entity_memories("ACME Inc.", scope=scope)
    assert {m.id for m in linked.items} == set(ids) and linked.total == 3
    # the filter of a listing is the same link
    listed = store.list(scope=scope, filters=MemoryFilter(entity="acme"))
    assert [m.id for m in listed.items] == [m.id for m in linked.items]
    assert [e.key for e in store.memory_entities(ids[2], scope=scope)] == ["acme", "priya"]
    assert [e.key for e in store.memory_entities(ids[0], scope=scope)] == ["acme"]
    none = put(store, scope, item(tenant, "no names here", unit(rng)))
    assert store.memory_entities(none[0], scope=scope) == []


def test_listing_is_bounded_and_ordered_by_count_then_key(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    put(
        store,
        scope,
        item(tenant, "one", unit(rng), entities=("Zed", "北京", "Beta")),
        item(tenant, "two", unit(rng), entities=("Zed", "北京")),
        item(tenant, "three", unit(rng), entities=("Zed", "alpha")),
    )
    full = store.list_entities(scope=scope)
    assert [(e.key, e.memory_count) for e in full.items] == [
        ("zed", 3),
        ("北京", 2),
        ("alpha", 1),
        ("beta", 1),
    ]
    two = store.list_entities(scope=scope, limit=2)
    assert [e.key for e in two.items] == ["zed", "北京"] and two.truncated is True
    with pytest.raises(InvalidInputError):
        store.list_entities(scope=scope, limit=0)


def test_counts_follow_statuses_and_the_scope(store: MemoryStore, rng: np.random.Generator) -> None:
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    ids = put(
        store,
        scope,
        item(tenant, "u1 acme", unit(rng), entities=("ACME",), user_id="u1"),
        item(tenant, "u2 acme", unit(rng), entities=("ACME",), user_id="u2"),
    )
    store.update(
        ids[1],
        scope=scope,
        expected_version=1,
        changes={"status": MemoryStatus.ARCHIVED},
        actor="t",
        action="archive",
    )
    assert store.list_entities(scope=scope).items[0].memory_count == 2
    active = store.list_entities(scope=scope, statuses=(MemoryStatus.ACTIVE,))
    assert [(e.key, e.memory_count) for e in active.items] == [("acme", 1)]
    u2 = Scope.of(tenant, user_id="u2")
    assert [e.memory_count for e in store.list_entities(scope=u2).items] == [1]
    assert store.list_entities(scope=u2, statuses=(MemoryStatus.ACTIVE,)).items == []
    with pytest.raises(MemoryNotFoundError):
        store.memory_entities(ids[0], scope=u2)


def test_update_of_entities_relinks_and_prunes(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    (mid,) = put(store, scope, item(tenant, "talked to globex", unit(rng), entities=("Globex",)))
    store.update(
        mid,
        scope=scope,
        expected_version=1,
        changes={"entities": ("Initech Corp.", "王 工")},
        actor="t",
    )
    assert [e.key for e in store.memory_entities(mid, scope=scope)] == ["initech", "王工"]
    assert sorted(e.key for e in store.list_entities(scope=scope).items) == ["initech", "王工"]
    assert store.entity_memories("Globex", scope=scope).items == []
    assert [m.id for m in store.entity_memories("initech", scope=scope).items] == [mid]


def test_purge_removes_links_and_unlinked_entities(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    ids = _acme_three(store, tenant, rng)
    store.purge(ids[2], scope=scope, actor="t", reason="test")
    page = store.list_entities(scope=scope)
    assert [(e.key, e.memory_count) for e in page.items] == [("acme", 2)]  # priya is gone
    assert store.entity_memories("priya", scope=scope).items == []
    assert {m.id for m in store.entity_memories("acme", scope=scope).items} == set(ids[:2])
    for mid in ids[:2]:
        store.purge(mid, scope=scope, actor="t", reason="test")
    assert store.list_entities(scope=scope).items == []
    # a new memory naming ACME again makes a new entity with the name it is given now
    put(store, scope, item(tenant, "ACME is back", unit(rng), entities=("Acme Corporation",)))
    assert [(e.key, e.name) for e in store.list_entities(scope=scope).items] == [
        ("acme", "Acme Corporation")
    ]


def test_entities_are_tenant_isolated(store: MemoryStore, rng: np.random.Generator) -> None:
    ta, tb = new_tenant_id(), new_tenant_id()
    a, b = Scope.of(ta), Scope.of(tb)
    a_ids = _acme_three(store, ta, rng)
    b_ids = put(store, b, item(tb, "ACME in b", unit(rng), entities=("Acme", "Heron")))
    assert [(e.key, e.memory_count) for e in store.list_entities(scope=b).items] == [
        ("acme", 1),
        ("heron", 1),
    ]
    b_acme = store.list_entities(scope=b).items[0]
    a_acme = store.list_entities(scope=a).items[0]
    assert a_acme.id != b_acme.id and b_acme.name == "Acme"
    assert {m.id for m in store.entity_memories("acme", scope=b).items} == set(b_ids)
    assert store.entity_memories("heron", scope=a).items == []
    with pytest.raises(MemoryNotFoundError):
        store.memory_entities(b_ids[0], scope=a)
    store.purge(a_ids[0], scope=a, actor="t", reason="test")
    store.purge(b_ids[0], scope=b, actor="t", reason="test")
    assert store.list_entities(scope=b).items == []
    assert [e.memory_count for e in store.list_entities(scope=a).items] == [2, 1]


def test_entity_filter_refuses_a_name_without_a_key(store: MemoryStore) -> None:
    with pytest.raises(InvalidInputError):
        store.entity_memories(" ... ", scope=Scope.of(new_tenant_id()))


def test_kind_is_kept_from_the_first_memory_that_gives_it(
    store: MemoryStore, rng: np.random.Generator
) -> None:
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    put(
        store,
        scope,
        item(
            tenant,
            "Priya joined ACME",
            unit(rng),
            entities=("Priya", "ACME"),
            metadata={"entity_kinds": {"Priya": "person", "acme": "organization"}},
        ),
    )
    (mid,) = put(store, scope, item(tenant, "Priya again", unit(rng), entities=("priya",)))
    kinds = {e.key: e.kind for e in store.list_entities(scope=scope).items}
    assert kinds == {"priya": "person", "acme": "organization"}
    assert [e.kind for e in store.memory_entities(mid, scope=scope)] == ["person"]
