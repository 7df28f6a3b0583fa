"""Short replies that only make sense against the previous message, end to end (extract mode,
offline ``rules`` provider, embedded PostgreSQL): a value denied as "X，不是Y", a number said
again ("no wait, it's a 2017"), a correction whose denial is the pattern ("I meant Thursday,
not Tuesday"), a restatement of what is already stored, and a plain negation after the fact
it negates. Each test asserts the active memories and the supersession chain."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.models import Memory, MemoryStatus
from tests.conftest import new_tenant_id

Make = Callable[..., MemoryEngine]
OBSERVED = datetime(2026, 11, 25, 9, tzinfo=UTC)


@pytest.fixture
def store_kind() -> str:
    return "postgres"


@pytest.fixture
def engine(make_engine: Make) -> MemoryEngine:
    return make_engine()


@pytest.fixture
def scope() -> Scope:
    return Scope.of(new_tenant_id(), user_id="u1")


def write(engine: MemoryEngine, scope: Scope, text: str) -> list[dict[str, object]]:
    res = engine.write(scope, text, mode="extract", observed_at=OBSERVED)
    assert res.error is None, res.error
    return list(res.actions)


def created(actions: list[dict[str, object]]) -> list[str]:
    return [str(a["memory_id"]) for a in actions if a["action"] == "create"]


def active(engine: MemoryEngine, scope: Scope) -> list[str]:
    items: list[Memory] = engine.list(scope, limit=200).items
    return [m.content for m in items if m.status == MemoryStatus.ACTIVE]


@pytest.mark.parametrize(
    ("first", "second", "old_value", "new_value"),
    [
        ("我开的是一辆白色卡罗拉", "我那辆是银色的，不是白色", "白色", "银色"),
        ("I drive a 2019 Honda Civic.", "no wait, it's a 2017", "2019", "2017"),
        (
            "My dentist appointment is on Tuesday at 3pm.",
            "I meant Thursday, not Tuesday, for the dentist.",
            "tuesday",
            "thursday",
        ),
    ],
)
def test_a_corrected_value_supersedes_the_old_one(
    engine: MemoryEngine, scope: Scope, first: str, second: str, old_value: str, new_value: str
) -> None:
    [old] = created(write(engine, scope, first))
    actions = write(engine, scope, second)
    was = engine.get(scope, old)
    assert was.status == MemoryStatus.SUPERSEDED, (was.content, actions)
    now = active(engine, scope)
    assert len(now) == 1, now
    assert new_value in now[0].lower() and old_value not in now[0].lower(), now


def test_a_restatement_stores_nothing_new(engine: MemoryEngine, scope: Scope) -> None:
    [first] = created(write(engine, scope, "Please keep all my code on Bitbucket."))
    before = active(engine, scope)
    actions = write(engine, scope, "yeah it's all on bitbucket")
    assert created(actions) == [], actions
    assert active(engine, scope) == before
    assert engine.get(scope, first).status == MemoryStatus.ACTIVE


def test_a_plain_negation_after_the_fact_supersedes_it(engine: MemoryEngine, scope: Scope) -> None:
    [old] = created(write(engine, scope, "I'm a morning person."))
    [new] = created(write(engine, scope, "Honestly I'm not a morning person."))
    assert str(engine.get(scope, old).superseded_by) == new
    [now] = active(engine, scope)
    assert "not" in now and "morning person" in now
