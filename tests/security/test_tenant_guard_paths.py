"""The cross-tenant guard on the engine's other candidate searches: the extract pipeline's
dedupe / conflict-judge candidates and the restore-on-match search after a search.

Same approach as ``test_tenant_guard.py``: the one test double of the security suite,
``_LeakingPostgresStore`` (the real PostgreSQL store whose recall legs also return a real row of
another tenant, as a broken filter would). Everything else is real: the rules extractor and
judge, the write journal and trail, the bookkeeping worker, the audit log.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.models import EventAction, MemoryStatus
from memory_engine.stores.guard import CROSS_TENANT
from tests.conftest import new_tenant_id
from tests.security.test_tenant_guard import _LeakingPostgresStore


@pytest.fixture(scope="module")
def leaking(
    pg_settings_factory: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[MemoryEngine, _LeakingPostgresStore]]:
    settings = pg_settings_factory(
        retention_restore_min_cosine=0.5, data_dir=tmp_path_factory.mktemp("guard-paths")
    )
    store = _LeakingPostgresStore(settings)
    store.foreign = []
    engine = MemoryEngine(settings, store=store)
    yield engine, store
    engine.close()


def _alarm_events(engine: MemoryEngine, tenant: str) -> list[Any]:
    events = engine.events(Scope.of(tenant)).items
    return [e for e in events if e.action is EventAction.TENANT_ALARM]


def test_write_candidates_drop_and_alarm_a_foreign_row(
    leaking: tuple[MemoryEngine, _LeakingPostgresStore], caplog: pytest.LogCaptureFixture
) -> None:
    engine, store = leaking
    a, b = new_tenant_id("wguard-a"), new_tenant_id("wguard-b")
    text = "以后周四汇报"
    theirs = engine.write(Scope.of(b), text, mode="extract").outcomes[0].memory_id
    store.foreign = [(b, theirs)]
    try:
        with caplog.at_level(logging.ERROR, logger="memory_engine.stores.guard"):
            # the same fact: without the guard, B's row is an exact duplicate to reinforce
            res = engine.write(Scope.of(a), text, mode="extract")
    finally:
        store.foreign = []

    assert res.error is None and [a_["action"] for a_ in res.actions] == ["create"]
    mine = res.outcomes[0].memory_id
    assert mine != theirs and engine.get(Scope.of(a), mine).tenant_id == a
    theirs_now = engine.get(Scope.of(b), theirs)
    assert theirs_now.version == 1 and "reinforced" not in theirs_now.metadata  # untouched

    (fact,) = engine.write_trail(Scope.of(a), str(res.write_id))["facts"]
    assert [c["memory_id"] for c in fact["candidates"]] == []  # B's row never reached the judge
    stages = [al["stage"] for al in fact["tenant_alarms"]]
    # the keyword leg runs once for the content and once per keyed probe (``write:keyword@xN``)
    assert "write:dense" in stages and "write:keyword" in stages
    assert all(st == "write:dense" or st.startswith("write:keyword") for st in stages)
    for alarm in fact["tenant_alarms"]:
        assert (alarm["kind"], alarm["dropped"], alarm["memory_ids"]) == (
            CROSS_TENANT,
            1,
            [str(theirs)],
        )
    (event,) = _alarm_events(engine, a)
    assert event.details["write_id"] == str(res.write_id)
    assert event.details["alarms"] == fact["tenant_alarms"]
    assert event.reason == "cross-tenant rows dropped from a write's candidate search"
    assert "周四" not in str(event.details)  # ids and counts only, never foreign content
    errors = [r.getMessage() for r in caplog.records if r.levelno == logging.ERROR]
    assert len(errors) == 1 and b in errors[0] and str(theirs) in errors[0]
    assert _alarm_events(engine, b) == []


def test_restore_on_match_drops_and_alarms_a_foreign_row(
    leaking: tuple[MemoryEngine, _LeakingPostgresStore],
) -> None:
    engine, store = leaking
    a, b = new_tenant_id("rguard-a"), new_tenant_id("rguard-b")
    engine.write(Scope.of(a), "Project Falcon launches in May")
    text = "Project Heron launches in June"
    theirs = engine.write(Scope.of(b), text).outcomes[0].memory_id
    engine.archive(Scope.of(b), theirs, expected_version=1, reason="old", actor="test")
    store.foreign = [(b, theirs)]
    try:
        result = engine.search(Scope.of(a), text)  # B's archived row scores 0.99 cosine
        engine.flush_accesses()  # the restore-on-match runs on the bookkeeping worker
    finally:
        store.foreign = []

    theirs_now = engine.get(Scope.of(b), theirs)
    assert theirs_now.status is MemoryStatus.ARCHIVED and theirs_now.version == 2
    restore = [
        e
        for e in _alarm_events(engine, a)
        if e.reason == "cross-tenant rows dropped from the restore-on-match search"
    ]
    assert len(restore) == 1
    assert restore[0].details["trace_id"] == str(result.trace.id)
    assert restore[0].details["alarms"] == [
        {"kind": CROSS_TENANT, "stage": "restore:dense", "dropped": 1, "memory_ids": [str(theirs)]}
    ]
    assert _alarm_events(engine, b) == []
