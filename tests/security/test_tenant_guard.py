"""The cross-tenant alarm of the search path (``memory_engine.stores.guard``).

A real store cannot return another tenant's row (row-level security, Qdrant's mandatory
filter), so to see the alarm fire these tests use the one test double of the security suite:
``_LeakingPostgresStore``, the real PostgreSQL store whose two recall legs append a real row of
another tenant (read with that tenant's own scope, as a broken filter would return it). Every
other call, the engine, the pipeline, the trace storage and the audit log are the real ones.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.isolation_probe import DashboardProber
from memory_engine.isolation.check import run_isolation_check
from memory_engine.models import Candidate, EventAction
from memory_engine.retrieval.guarded import guarded_search
from memory_engine.retrieval.pipeline import run_search
from memory_engine.stores.guard import CROSS_TENANT
from memory_engine.stores.postgres.store import PostgresStore
from tests.conftest import new_tenant_id


class _LeakingPostgresStore(PostgresStore):
    """PostgreSQL store whose dense and keyword legs also return ``foreign`` rows (test double)."""

    foreign: list[tuple[str, uuid.UUID]] = []

    def _foreign(self, score: str) -> list[Candidate]:
        return [
            Candidate(memory=self.get(mid, scope=Scope.of(tenant)), scores={score: 0.99})
            for tenant, mid in self.foreign
        ]

    def dense_search(self, vector: Any, *, scope: Scope, **kwargs: Any) -> list[Candidate]:
        return self._foreign("cosine") + super().dense_search(vector, scope=scope, **kwargs)

    def keyword_search(self, terms: Any, *, scope: Scope, **kwargs: Any) -> list[Candidate]:
        return self._foreign("bm25") + super().keyword_search(terms, scope=scope, **kwargs)


@pytest.fixture(scope="module")
def leaking(pg_settings_factory: Callable[..., Any]) -> Any:
    settings = pg_settings_factory()
    store = _LeakingPostgresStore(settings)
    store.foreign = []
    engine = MemoryEngine(settings, store=store)
    yield engine, store
    engine.close()


def test_foreign_rows_are_dropped_and_raise_an_alarm(
    leaking: Any, caplog: pytest.LogCaptureFixture
) -> None:
    engine, store = leaking
    a, b = new_tenant_id("guard-a"), new_tenant_id("guard-b")
    mine = engine.write(Scope.of(a), "Project Falcon launches in May").outcomes[0].memory_id
    theirs = engine.write(Scope.of(b), "Project Heron secret: 猎鹰口令 7731").outcomes[0].memory_id
    store.foreign = [(b, theirs)]
    try:
        with caplog.at_level(logging.ERROR, logger="memory_engine.stores.guard"):
            result = engine.search(Scope.of(a), "project launch")
    finally:
        store.foreign = []

    # The result and every recorded candidate are A's only; B's text is nowhere.
    assert [c.memory.id for c in result.memories] == [mine]
    assert all(c.memory.tenant_id == a for c in result.memories)
    trace = result.trace
    seen = {c.memory_id for cs in trace.legs.values() for c in cs}
    seen |= {c.memory_id for c in trace.candidates}
    assert seen == {mine}
    assert "Heron" not in result.block and "猎鹰" not in result.block

    # The alarm: one entry per leg, in the trace (stored too), the log and the audit.
    assert trace.tenant_alarms == [
        {"kind": CROSS_TENANT, "stage": "dense", "dropped": 1, "memory_ids": [str(theirs)]},
        {"kind": CROSS_TENANT, "stage": "keyword", "dropped": 1, "memory_ids": [str(theirs)]},
    ]
    assert engine.get_trace(Scope.of(a), trace.id).tenant_alarms == trace.tenant_alarms
    errors = [r for r in caplog.records if r.levelno == logging.ERROR]
    assert (
        len(errors) == 1 and b in errors[0].getMessage() and str(theirs) in errors[0].getMessage()
    )
    events = [e for e in engine.events(Scope.of(a)).items if e.action is EventAction.TENANT_ALARM]
    assert len(events) == 1
    assert events[0].details["trace_id"] == str(trace.id)
    assert events[0].details["alarms"] == trace.tenant_alarms
    # B's own data is untouched and B's audit has no alarm.
    assert engine.get(Scope.of(b), theirs).version == 1
    assert not [e for e in engine.events(Scope.of(b)).items if e.action is EventAction.TENANT_ALARM]


def test_a_clean_search_has_no_alarm(leaking: Any) -> None:
    engine, _store = leaking
    a = new_tenant_id("guard-clean")
    engine.write(Scope.of(a), "我对花生过敏")
    result = engine.search(Scope.of(a), "花生")
    assert result.trace.tenant_alarms == [] and len(result.memories) == 1
    assert not [e for e in engine.events(Scope.of(a)).items if e.action is EventAction.TENANT_ALARM]


def test_without_the_guard_the_pipeline_would_fail_loudly(leaking: Any) -> None:
    """Why the guard sits in front of the pipeline: its own check only raises (no alarm)."""
    engine, store = leaking
    a, b = new_tenant_id("guard-raw-a"), new_tenant_id("guard-raw-b")
    engine.write(Scope.of(a), "Falcon")
    theirs = engine.write(Scope.of(b), "Heron").outcomes[0].memory_id
    store.foreign = [(b, theirs)]
    try:
        opts = engine.search_options(legs=("keyword",))
        with pytest.raises(AssertionError):
            run_search("Falcon", scope=Scope.of(a), options=opts, store=store, embedder=None)
        guarded = guarded_search(
            "Falcon", scope=Scope.of(a), options=opts, store=store, embedder=None
        )
    finally:
        store.foreign = []
    assert [al["stage"] for al in guarded.trace.tenant_alarms] == ["keyword"]


def test_the_isolation_check_reports_the_alarm_as_a_leak(leaking: Any) -> None:
    """A store leaking B's canary into A's legs: the guard drops it, the check still fails."""
    engine, store = leaking

    original = store.dense_search

    def dense_search(vector: Any, *, scope: Scope, **kwargs: Any) -> list[Candidate]:
        # every probe tenant's dense leg also gets the newest memory of another probe tenant
        others = [
            (t, m.id)
            for t in store.admin_tenant_counts(actor="test", reason="leak")
            if t.startswith("isocheck-") and t != scope.tenant_id
            for m in PostgresStore.list(store, scope=Scope.of(t), limit=1).items
        ]
        store.foreign = others[:1]
        try:
            return original(vector, scope=scope, **kwargs)
        finally:
            store.foreign = []

    store.dense_search = dense_search
    try:
        report = run_isolation_check(engine, tenants=2, probers=[DashboardProber(engine)])
    finally:
        del store.dense_search
    data = report.to_dict()
    assert not data["ok"]
    details = {leak["detail"] for leak in data["leak_details"]}
    assert any(d.startswith("tenant guard alarm") for d in details)
    assert data["paths"]["engine"]["leaks"] > 0 and data["paths"]["dashboard"]["leaks"] > 0
