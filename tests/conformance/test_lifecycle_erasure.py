"""Store conformance: access counting, version-checked purge, erasure of a purged
memory from events and traces, the index-presence probe and standalone events, on every store.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest

from memory_engine.errors import TenantScopeError, VersionConflictError
from memory_engine.models import Event, EventAction, Scope, Trace, TraceCandidate
from memory_engine.stores.base import MemoryStore
from memory_engine.stores.redaction import REDACTED
from tests.conformance.helpers import ALL_STATUSES, ids, item, put, unit


def test_record_access_counts_and_never_moves_back(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    a, b = put(
        store, s, item(tenant, "alpha fact", unit(rng)), item(tenant, "beta fact", unit(rng))
    )
    t1 = datetime(2030, 1, 2, 3, 4, 5, tzinfo=UTC)
    assert store.record_access([a, b, a], scope=s, at=t1) == 2
    assert store.record_access([a], scope=s, at=t1 - timedelta(days=3)) == 1
    ma, mb = store.get(a, scope=s), store.get(b, scope=s)
    assert (ma.access_count, mb.access_count) == (2, 1)
    assert ma.last_accessed_at == t1 and mb.last_accessed_at == t1
    assert ma.version == 1  # an access is not an edit
    assert [e.action for e in store.history(a, scope=s).items] == [EventAction.CREATE]
    assert store.record_access([], scope=s, at=t1) == 0


def test_record_access_ignores_other_tenants(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    (a,) = put(store, Scope.of(ta), item(ta, "tenant a secret", unit(rng)))
    assert store.record_access([a], scope=Scope.of(tb), at=datetime.now(UTC)) == 0
    assert store.get(a, scope=Scope.of(ta)).access_count == 0


def test_purge_with_stale_version_conflicts(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    (a,) = put(store, s, item(tenant, "versioned fact", unit(rng)))
    store.update(a, scope=s, expected_version=1, changes={"importance": 0.9}, actor="t")
    with pytest.raises(VersionConflictError):
        store.purge(a, scope=s, actor="t", expected_version=1)
    assert store.get(a, scope=s).version == 2
    store.purge(a, scope=s, actor="t", expected_version=2)
    assert store.index_presence(a, scope=s)["row"] == 0


def _trace_with(tenant: str, s: Scope, memory_id: object, content: str, other: object) -> Trace:
    def cand(mid: object, text: str, rank: int) -> TraceCandidate:
        return TraceCandidate.model_validate(
            {
                "memory_id": mid,
                "content": text,
                "memory_type": "episodic",
                "source": "manual",
                "scores": {"rrf": 0.1},
                "ranks": {"dense": rank, "final": rank},
            }
        )

    c1, c2 = cand(memory_id, content, 1), cand(other, "unrelated kept line", 2)
    block = f"## h\n<memory_data>\n1. x · {content}\n2. x · unrelated kept line\n</memory_data>"
    return Trace(
        tenant_id=tenant,
        scope=s,
        query="where is the secret",
        legs={"dense": [c1, c2]},
        candidates=[c1, c2],
        block=block,
    )


def test_purge_erases_content_from_events_and_traces(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    secret = "The vault code is 4711 秘密"
    a, b = put(
        store,
        s,
        item(tenant, secret, unit(rng), entities=("Vault Corp", "保险库")),
        item(tenant, "keep me", unit(rng)),
    )
    store.update(a, scope=s, expected_version=1, changes={"tags": ("x",)}, actor="t")
    trace = _trace_with(tenant, s, a, secret, b)
    store.save_trace(trace, scope=s)
    before = store.index_presence(a, scope=s)
    assert before["keyword_terms"] >= 1  # postings (PostgreSQL) or the sparse vector (Qdrant)
    assert {k: v for k, v in before.items() if k != "keyword_terms"} == {
        "row": 1,
        "vector": 1,
        "entity_links": 2,
        "events_with_content": 2,
        "reasons_with_content": 0,
        "traces_with_content": 1,
    }

    store.purge(a, scope=s, actor="t", reason="erasure")

    assert store.index_presence(a, scope=s) == {
        "row": 0,
        "vector": 0,
        "keyword_terms": 0,
        "entity_links": 0,
        "events_with_content": 0,
        "reasons_with_content": 0,
        "traces_with_content": 0,
    }
    assert store.list_entities(scope=s).items == []  # no memory names them any more
    history = store.history(a, scope=s).items
    assert [e.action for e in history] == [
        EventAction.CREATE,
        EventAction.UPDATE,
        EventAction.PURGE,
    ]
    for e in history:
        for snap in (e.before, e.after):
            if snap is not None:
                assert snap["content"] == REDACTED and snap["tags"] == []
                assert snap["id"] == str(a)
    stored = store.get_trace(trace.id, scope=s)
    assert secret not in stored.model_dump_json()
    assert "4711" not in stored.block and "unrelated kept line" in stored.block
    assert [c.content for c in stored.candidates] == [REDACTED, "unrelated kept line"]
    assert store.get(b, scope=s).content == "keep me"
    for statuses in (ALL_STATUSES,):
        assert a not in ids(store.keyword_search(["vault"], scope=s, k=10, statuses=statuses))
    assert store.redact_history(a, scope=s) == {"events": 0, "traces": 0}  # idempotent


def test_purge_erases_reasons_and_query_texts_quoting_the_memory(
    store: MemoryStore, tenant: str, rng: np.random.Generator
) -> None:
    s = Scope.of(tenant)
    secret = "Ann's card is 4111 1111 1111 1111, locker 7731-Q"
    a, b = put(store, s, item(tenant, secret, unit(rng)), item(tenant, "keep me", unit(rng)))
    store.update(
        a, scope=s, expected_version=1, changes={"tags": ("x",)}, actor="t", reason=f"was {secret}"
    )
    store.update(b, scope=s, expected_version=1, changes={"tags": ("y",)}, actor="t", reason="ok")
    # a trace whose query quotes the memory but which never returned it
    quoting = _trace_with(tenant, s, b, "keep me", b).model_copy(
        update={"query": "Ann's card is 4111 1111 1111 1111", "candidates": [], "legs": {}}
    )
    store.save_trace(quoting, scope=s)
    before = store.index_presence(a, scope=s, content=secret)
    assert before["reasons_with_content"] == 1 and before["traces_with_content"] == 1

    store.purge(a, scope=s, actor="t", reason=f"erasure of: {secret}")

    assert store.index_presence(a, scope=s, content=secret)["reasons_with_content"] == 0
    assert store.index_presence(a, scope=s, content=secret)["traces_with_content"] == 0
    reasons = [e.reason for e in store.history(a, scope=s).items]
    assert reasons[1] == REDACTED and all("4111" not in (r or "") for r in reasons), reasons
    assert "erasure of" in (reasons[-1] or "")  # the purge's own reason stays, minus the text
    assert "4111" not in store.get_trace(quoting.id, scope=s).model_dump_json()
    assert [e.reason for e in store.history(b, scope=s).items][-1] == "ok"  # others untouched


def test_redaction_never_touches_another_tenant(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    sa, sb = Scope.of(ta), Scope.of(tb)
    (a,) = put(store, sa, item(ta, "shared words here", unit(rng)))
    (b,) = put(store, sb, item(tb, "shared words here", unit(rng)))
    store.save_trace(_trace_with(tb, sb, a, "shared words here", b), scope=sb)
    store.purge(a, scope=sa, actor="t")
    # tenant B's trace names A's id (a forged entry), but B's data is B's: untouched by A's purge
    assert store.index_presence(a, scope=sb)["traces_with_content"] == 1
    assert store.get(b, scope=sb).content == "shared words here"


def test_append_event_is_listed_and_scoped(
    store: MemoryStore, tenant_pair: tuple[str, str], rng: np.random.Generator
) -> None:
    ta, tb = tenant_pair
    s = Scope.of(ta)
    (a,) = put(store, s, item(ta, "proof subject", unit(rng)))
    event = Event(
        tenant_id=ta,
        memory_id=a,
        action=EventAction.PURGE_PROOF,
        actor="t",
        details={"checked": ["row"], "ok": True},
    )
    store.append_event(event, scope=s)
    actions = [e.action for e in store.history(a, scope=s).items]
    assert actions == [EventAction.CREATE, EventAction.PURGE_PROOF]
    assert store.history(a, scope=s).items[-1].details == {"checked": ["row"], "ok": True}
    with pytest.raises(TenantScopeError):
        store.append_event(event, scope=Scope.of(tb))
    assert store.events(scope=Scope.of(tb)).total == 0
