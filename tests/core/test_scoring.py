"""Retention formulas (memory_engine.scoring) and maintenance planning (memory_engine.lifecycle.plan)
with a frozen clock."""

from __future__ import annotations

import math
import uuid
from datetime import UTC, datetime, timedelta

import pytest

from memory_engine.errors import InvalidInputError
from memory_engine.lifecycle.plan import MaintenancePolicy, plan_maintenance
from memory_engine.models import Memory, MemoryStatus
from memory_engine.scoring import (
    RetentionParams,
    age_days,
    decay_curve,
    rank_by_retention,
    retention,
)

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def mem(days_ago: float, **fields: object) -> Memory:
    created = NOW - timedelta(days=days_ago)
    return Memory.model_validate(
        {"tenant_id": "t", "content": "c", "created_at": created, "updated_at": created, **fields}
    )


def test_frozen_clock_importance_08_thirty_days_half_life_30() -> None:
    m = mem(30, importance=0.8)
    assert age_days(m, NOW) == 30.0
    assert retention(m, NOW) == pytest.approx(0.4)  # access term ln(1 + 0) = 0
    accessed = mem(90, importance=0.8, access_count=3, last_accessed_at=NOW - timedelta(days=30))
    expected = 0.4 + 0.1 * math.log(4)
    assert retention(accessed, NOW) == pytest.approx(expected)
    assert retention(accessed, NOW, RetentionParams(access_weight=0.25)) == pytest.approx(
        0.4 + 0.25 * math.log(4)
    )


def test_age_counts_from_last_access_and_never_negative() -> None:
    m = mem(100, last_accessed_at=NOW - timedelta(hours=12))
    assert age_days(m, NOW) == pytest.approx(0.5)
    assert age_days(mem(-2), NOW) == 0.0  # created "after" a frozen clock
    naive = NOW.replace(tzinfo=None)
    assert age_days(m, naive) == pytest.approx(0.5)


def test_weighted_preset_seven_day_half_life() -> None:
    p = RetentionParams.for_preset("weighted")
    assert p.half_life_days == 7.0
    m = mem(7, confidence=0.5, access_count=0)
    assert retention(m, NOW, p) == pytest.approx(0.3 * 0.5 + 0.3 * 0.5)
    saturated = mem(0, confidence=1.0, access_count=20, last_accessed_at=NOW)
    assert retention(saturated, NOW, p) == pytest.approx(1.0)
    assert RetentionParams.for_preset("weighted", half_life_days=3).half_life_days == 3
    with pytest.raises(InvalidInputError):
        RetentionParams.for_preset("nope")  # type: ignore[arg-type]


def test_decay_curve_and_ranking() -> None:
    m = mem(0, importance=1.0)
    assert decay_curve(m, NOW, RetentionParams(), [0, 30, 60]) == pytest.approx([1.0, 0.5, 0.25])
    low, high = mem(60, importance=0.2), mem(1, importance=0.9)
    assert [x.id for x, _ in rank_by_retention([high, low], NOW, RetentionParams())] == [
        low.id,
        high.id,
    ]


def test_plan_archives_bottom_below_floor_expires_and_purges() -> None:
    policy = MaintenancePolicy(floor=0.05, bottom_fraction=0.5, purge_after_days=30)
    stale = [mem(200, importance=0.5) for _ in range(3)]  # 0.5 * 0.5^(200/30) ~ 0.005
    fresh = [mem(1, importance=0.5) for _ in range(5)]
    expired = mem(1, valid_until=NOW - timedelta(minutes=1))
    future = mem(1, valid_until=NOW + timedelta(days=1))
    old_archive = mem(100, status=MemoryStatus.ARCHIVED)
    touched_archive = mem(100, status=MemoryStatus.ARCHIVED, last_accessed_at=NOW)
    plan = plan_maintenance(
        "t",
        [*fresh, *stale, expired, future],
        [old_archive, touched_archive],
        now=NOW,
        policy=policy,
    )
    assert plan.counts() == {"archive": 3, "purge": 1, "expire": 1}
    assert {c.memory_id for c in plan.of("archive")} == {m.id for m in stale}
    assert [c.memory_id for c in plan.of("expire")] == [expired.id]
    assert [c.memory_id for c in plan.of("purge")] == [old_archive.id]
    # bottom_fraction bounds the archive even when more are below the floor
    narrow = policy.model_copy(update={"bottom_fraction": 0.1})
    plan2 = plan_maintenance("t", [*fresh, *stale], [], now=NOW, policy=narrow)
    assert len(plan2.of("archive")) == 1  # ceil(0.1 * 8)
    assert plan2.of("archive")[0].reason.startswith("maintenance: retention 0.00")
    assert all(isinstance(c.memory_id, uuid.UUID) for c in plan.changes)
