"""Retention weighting in search: the engine plugs scoring.retention into the weighting stage."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.models import Memory
from memory_engine.retrieval.weighting import retention_weight_fn
from memory_engine.scoring import RetentionParams, retention
from tests.conftest import new_tenant_id


def _memory(importance: float, age_days: float, now: datetime) -> Memory:
    return Memory(
        tenant_id="t",
        content="x",
        content_hash="h",
        importance=importance,
        created_at=now - timedelta(days=age_days),
    )


def test_weight_blends_retention_by_share() -> None:
    now = datetime(2026, 1, 1, tzinfo=UTC)
    params = RetentionParams.for_preset("decay")  # half-life 30 days
    old = _memory(0.8, 30.0, now)  # retention 0.8 * 0.5 = 0.4
    fresh = _memory(1.0, 0.0, now)  # retention 1.0
    half = retention_weight_fn(0.5, params, now)
    assert half(old) == pytest.approx(1 - 0.5 + 0.5 * 0.4)
    assert half(fresh) == pytest.approx(1.0)
    assert retention_weight_fn(0.0, params, now)(old) == 1.0
    assert retention_weight_fn(1.0, params, now)(old) == pytest.approx(0.4)
    with pytest.raises(ValueError):
        retention_weight_fn(1.5, params, now)


def test_engine_search_applies_the_configured_share(engine: MemoryEngine) -> None:
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    a = engine.write(scope, "I prefer green tea in the morning", importance=0.6)
    b = engine.write(scope, "My green bicycle is in the garage", importance=0.9)
    # read before any search: searches count accesses (asynchronously), which raise retention
    before = {
        m.id: m
        for m in (
            engine.get(scope, a.outcomes[0].memory_id),
            engine.get(scope, b.outcomes[0].memory_id),
        )
    }

    opts = engine.search_options(retention_weight=0.5)
    now = datetime.now(UTC)
    weighted = engine.search(scope, "green tea", options=opts, save_trace=False)
    assert weighted.trace.config["retention_weight"] == 0.5
    params = engine.retention_params()
    kept = [c for c in weighted.trace.candidates if not c.dropped]
    assert {c.memory_id for c in kept} == set(before)
    for c in kept:
        expected = 0.5 + 0.5 * min(1.0, retention(before[c.memory_id], now, params))
        assert c.scores["retention"] == pytest.approx(expected, abs=1e-3)
        assert c.scores["retention"] < 1.0  # importance 0.6 / 0.9, never accessed

    plain = engine.search(scope, "green tea", save_trace=False)
    assert {c.scores["retention"] for c in plain.trace.candidates if not c.dropped} == {1.0}
