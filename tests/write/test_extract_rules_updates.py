"""Updates said in other words than the fact they change, end to end (extract mode, offline
``rules`` provider, embedded PostgreSQL): a denial of a more general subject, a fact read as a
plain statement denying a possession, leaving an employer, a value changed in a second clause,
a cancelled trip replaced by another, and an entity mentioned in lower case after it was
first named. Each test asserts the active memories and the supersession chain."""

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


def write(engine: MemoryEngine, scope: Scope, text: str) -> list[str]:
    res = engine.write(scope, text, mode="extract", observed_at=OBSERVED)
    assert res.error is None, res.error
    return [a["memory_id"] for a in res.actions if a["action"] == "create"]


def active(engine: MemoryEngine, scope: Scope) -> list[Memory]:
    return [m for m in engine.list(scope, limit=200).items if m.status == MemoryStatus.ACTIVE]


def superseded_by(engine: MemoryEngine, scope: Scope, old: str) -> str | None:
    was = engine.get(scope, old)
    assert was.status == MemoryStatus.SUPERSEDED, (was.status, was.content)
    return str(was.superseded_by)


@pytest.mark.parametrize(
    ("first", "second", "gone"),
    [
        ("I eat meat.", "I don't eat meat anymore.", "eats meat"),
        ("I'm allergic to shellfish.", "Turns out I'm not allergic to shellfish after all.", None),
        ("我有一辆车", "我已经没有车了，上个月卖掉了", "有一辆车"),
    ],
)
def test_a_denial_supersedes_what_it_denies(
    engine: MemoryEngine, scope: Scope, first: str, second: str, gone: str | None
) -> None:
    [old] = write(engine, scope, first)
    [new] = write(engine, scope, second)
    assert superseded_by(engine, scope, old) == new
    now = [m.content for m in active(engine, scope)]
    assert len(now) == 1, now
    if gone:
        assert gone not in now[0]


def test_leaving_an_employer_for_another_is_one_change(engine: MemoryEngine, scope: Scope) -> None:
    [old] = write(engine, scope, "I work at Acme as a designer.")
    created = write(engine, scope, "I left Acme, I'm now a designer at Umbrella.")
    assert len(created) == 1  # the denial and the new employer are one fact
    assert superseded_by(engine, scope, old) == created[0]
    [current] = active(engine, scope)
    assert "Umbrella" in current.content and current.content.startswith("The user")


def test_a_value_changed_in_a_second_clause(engine: MemoryEngine, scope: Scope) -> None:
    [old] = write(engine, scope, "我的车牌是浙A12345")
    [new] = write(engine, scope, "车牌换了，现在是浙B67890")
    assert superseded_by(engine, scope, old) == new
    assert [m.content for m in active(engine, scope)] == ["用户的车牌是浙B67890"]


def test_an_email_with_dots_is_kept_whole(engine: MemoryEngine, scope: Scope) -> None:
    [old] = write(engine, scope, "My email is sam@old.io")
    [new] = write(engine, scope, "My email changed, it's now sam@new.io")
    assert superseded_by(engine, scope, old) == new
    [current] = active(engine, scope)
    assert "sam@new.io" in current.content


@pytest.mark.parametrize(
    ("first", "second", "now"),
    [
        ("我打算五一去厦门玩", "五一不去厦门了，改去青岛", "青岛"),
        ("I'm going to Lisbon in May.", "Actually I'm going to Porto instead.", "Porto"),
    ],
)
def test_a_changed_trip_replaces_the_plan(
    engine: MemoryEngine, scope: Scope, first: str, second: str, now: str
) -> None:
    [old] = write(engine, scope, first)
    [new] = write(engine, scope, second)
    assert superseded_by(engine, scope, old) == new
    [current] = active(engine, scope)
    assert now in current.content


def test_a_known_entity_is_linked_however_it_is_written(engine: MemoryEngine, scope: Scope) -> None:
    ids = [
        *write(engine, scope, "ACME approved our Q3 budget today."),
        *write(engine, scope, "Had a long call with acme about the rollout."),
        *write(engine, scope, "今天和华为云的人开了对接会"),
        *write(engine, scope, "华为云 那边说下周给报价"),
    ]
    assert len(ids) == 4
    keys = [{e.key for e in engine.memory_entities(scope, i)} for i in ids]
    assert "acme" in keys[0] and "acme" in keys[1]
    assert "华为云" in keys[2] and "华为云" in keys[3]


def test_a_plain_wish_is_no_plan_and_past_travel_no_plan() -> None:
    from memory_engine.llm.rules_facts import analyse

    assert analyse("我想去洗手间").kind != "plan"  # type: ignore[union-attr]
    assert analyse("我去过日本").kind != "plan"  # type: ignore[union-attr]
    found = analyse("我打算五一去厦门玩")
    assert found is not None and (found.kind, found.subject, found.value) == (
        "plan",
        "五一",
        "厦门",
    )


@pytest.mark.parametrize(
    ("mine", "theirs"),
    [
        ("我住在上海", "我父母住在北京"),
        ("我今年34岁", "我叔叔今年50岁"),
        ("I live in Shanghai.", "My parents live in Beijing."),
        ("I'm 34 years old.", "My uncle is 50 years old."),
    ],
)
def test_a_relative_fact_never_supersedes_the_users_own(
    engine: MemoryEngine, scope: Scope, mine: str, theirs: str
) -> None:
    """A fact about the user's parents or uncle is another subject: the user's own fact stays
    active (the parents' residence superseded the user's before)."""
    (own,) = write(engine, scope, mine)
    write(engine, scope, theirs)
    assert engine.get(scope, own).status == MemoryStatus.ACTIVE
    assert len(active(engine, scope)) == 2
