"""Qdrant trace retention by ordinals (``stores/qdrant/traces.py``): a folder whose traces were
stored before the ordinals has them numbered in time order on the tenant's first save, so the
bounds keep the newest ones; the counters live in the meta collection, so a save neither counts
nor orders the tenant's traces. The bounds on every store: tests/security/test_trace_retention.py
and tests/conformance/test_reads.py."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from qdrant_client import QdrantClient, models

from memory_engine.config import Settings
from memory_engine.models import Scope, Trace
from memory_engine.stores.qdrant.codec import derived_id, to_us
from memory_engine.stores.qdrant.store import QdrantStore
from memory_engine.stores.trace_order import StoredTrace, TraceOrdinals, number_traces
from tests.support.traces import one_candidate_trace

BASE = datetime(2026, 6, 1, tzinfo=UTC)


def _trace(scope: Scope, query: str, minute: int) -> Trace:
    return one_candidate_trace(
        scope, query, BASE + timedelta(minutes=minute), content="我喜欢乌龙茶"
    )


def _legacy_point(trace: Trace) -> models.PointStruct:
    """A trace point as the store wrote it before the ordinals (no ``*_seq`` keys)."""
    return models.PointStruct(
        id=derived_id("trace", trace.tenant_id, str(trace.id)),
        vector={},
        payload={
            "tenant_id": trace.tenant_id,
            "user_id": trace.scope.user_id,
            "agent_id": trace.scope.agent_id,
            "session_id": None,
            "trace_id": str(trace.id),
            "created_at": trace.created_at.isoformat(),
            "created_us": to_us(trace.created_at),
            "query": trace.query,
            "returned": 1,
            "trace": trace.model_dump(mode="json"),
        },
    )


def _queries(store: Any, scope: Scope) -> list[str]:
    return sorted(r["query"] for r in store.list_traces(scope=scope, limit=100).items)


@pytest.mark.parametrize("mode", ["local", "server"])
def test_traces_stored_before_the_ordinals_are_numbered_then_bounded(
    tmp_path: Path, mode: str
) -> None:
    """``server``: the same local client driven through the server-mode path (counter points
    in the meta collection, filtered deletes), which a server runs with payload indexes."""
    settings = Settings(
        _env_file=None,
        store="qdrant",
        qdrant_path=str(tmp_path / "q"),
        trace_retention=3,
        trace_retention_tenant=4,
    )  # type: ignore[call-arg]
    client = QdrantClient(path=str(tmp_path / "q"))
    store = QdrantStore(settings, client=client)
    store.conn.local = mode == "local"
    tenant, other = Scope.of("legacy-t"), Scope.of("legacy-other")
    alice = Scope.of("legacy-t", user_id="alice")
    # stored out of time order: the numbering follows created_at, not the insertion order
    old = [_trace(alice, f"alice {i}", i) for i in (3, 0, 2, 1)]
    old += [_trace(tenant, "server 10", 10), _trace(other, "其他租户", 0)]
    client.upsert(store.conn.traces, [_legacy_point(t) for t in old])

    # alice's ordinals 1-4 (time order), the server's trace 5th of the tenant; alice's new
    # trace is her 5th (keep 3: her 1st and 2nd go) and the tenant's 6th (keep 4)
    store.save_trace(_trace(alice, "alice 20", 20), scope=alice)
    assert _queries(store, tenant) == ["alice 2", "alice 20", "alice 3", "server 10"]
    store.save_trace(_trace(tenant, "server 21", 21), scope=tenant)  # the tenant's 7th
    assert _queries(store, tenant) == ["alice 20", "alice 3", "server 10", "server 21"]
    assert _queries(store, other) == ["其他租户"]  # another tenant is neither numbered nor cut

    points, _ = client.scroll(
        store.conn.traces,
        scroll_filter=models.Filter(
            must=[models.FieldCondition(key="tenant_id", match=models.MatchValue(value="legacy-t"))]
        ),
        with_payload=["query", "client_seq", "tenant_seq"],
        limit=100,
    )
    seqs = {p.payload["query"]: (p.payload["client_seq"], p.payload["tenant_seq"]) for p in points}
    assert seqs == {
        "alice 3": (4, 4),
        "server 10": (1, 5),
        "alice 20": (5, 6),
        "server 21": (2, 7),
    }
    store.save_trace(_trace(alice, "alice 22", 22), scope=alice)  # counters carried on
    assert _queries(store, tenant) == ["alice 20", "alice 22", "server 10", "server 21"]
    store.close()
    client.close()
    reopened = QdrantStore(settings)  # a new process: the ordinals are read back
    reopened.conn.local = mode == "local"
    reopened.save_trace(_trace(tenant, "server 23", 23), scope=tenant)  # the tenant's 9th
    assert _queries(reopened, tenant) == ["alice 20", "alice 22", "server 21", "server 23"]
    reopened.close()


def test_numbering_follows_time_then_id_per_client() -> None:
    a, b = uuid.UUID(int=1), uuid.UUID(int=2)
    same_time = BASE + timedelta(minutes=5)
    got = number_traces(
        [
            StoredTrace(b, "u", None, same_time),
            StoredTrace(uuid.UUID(int=3), None, None, BASE),
            StoredTrace(a, "u", None, same_time),
            StoredTrace(uuid.UUID(int=4), "u", "bot", BASE + timedelta(minutes=9)),
        ]
    )
    assert got == {
        uuid.UUID(int=3): TraceOrdinals(client_seq=1, tenant_seq=1),
        a: TraceOrdinals(client_seq=1, tenant_seq=2),
        b: TraceOrdinals(client_seq=2, tenant_seq=3),
        uuid.UUID(int=4): TraceOrdinals(client_seq=1, tenant_seq=4),
    }
