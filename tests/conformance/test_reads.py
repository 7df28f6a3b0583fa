"""Store conformance (docs/architecture.md#conformance-suite): search recall and BM25 (docs/architecture.md#f11-recall-shortfall), listing,
facets, stats, events and traces for every backend.
"""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np
import pytest

from memory_engine.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    MemoryNotFoundError,
    TenantScopeError,
)
from memory_engine.models import (
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
    Trace,
    TraceCandidate,
)
from memory_engine.stores.base import MemoryStore
from tests.conformance.conftest import DIM, MODEL
from tests.conformance.helpers import far, ids, item, near, put, unit
from tests.conftest import new_tenant_id

# ----------------------------------------------------------------------------- docs/architecture.md#f11-recall-shortfall


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


def test_query_vector_of_another_dimension_is_an_embedding_mismatch(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    # a query embedded by another model than the store's (or after another process switched
    # the store) gets the typed mismatch naming the fix, not "bad input"
    s = Scope.of(tenant)
    put(store, s, item(tenant, "only one", unit(rng)))
    with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed") as err:
        store.dense_search(np.ones(DIM + 3), scope=s, k=1)
    assert err.value.details == {"expected": DIM, "actual": DIM + 3}
    with pytest.raises(InvalidInputError):  # the same length, but no direction
        store.dense_search(np.zeros(DIM), scope=s, k=1)


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


def test_saving_a_stored_trace_again_changes_nothing(store_factory: Any, tenant: str) -> None:
    """Traces are immutable: a second save of a stored id keeps the stored trace and takes no
    place in the retention order, so no older trace is dropped for it."""
    st = store_factory.new(trace_retention=3, trace_retention_tenant=3)
    s = Scope.of(tenant)
    base = datetime(2024, 6, 1, tzinfo=UTC)
    traces = [_trace(tenant, f"q{i}", base + timedelta(minutes=i)) for i in range(3)]
    for t in traces:
        st.save_trace(t, scope=s)
    st.save_trace(traces[0].model_copy(update={"query": "changed"}), scope=s)
    assert sorted(r["query"] for r in st.list_traces(scope=s).items) == ["q0", "q1", "q2"]
    assert st.get_trace(traces[0].id, scope=s).query == "q0"
    st.save_trace(_trace(tenant, "q3", base + timedelta(minutes=3)), scope=s)
    assert sorted(r["query"] for r in st.list_traces(scope=s).items) == ["q1", "q2", "q3"]


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
