"""The write-path examples of issue 15 ("Why"), end to end: a real engine in extract mode with
the offline ``rules`` provider on the embedded PostgreSQL, the stub server's embeddings. Each
test asserts the active memories afterwards (content, type, status, superseded_by)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.models import Memory, MemorySource, MemoryStatus, MemoryType
from tests.conftest import new_tenant_id

Make = Callable[..., MemoryEngine]
OBSERVED = datetime(2026, 11, 25, 9, tzinfo=UTC)  # a Wednesday


@pytest.fixture
def store_kind() -> str:
    """These run on the embedded PostgreSQL only (the pipeline is store-independent and the
    conformance and pipeline suites cover both stores)."""
    return "postgres"


@pytest.fixture
def engine(make_engine: Make) -> MemoryEngine:
    return make_engine()


@pytest.fixture
def scope() -> Scope:
    return Scope.of(new_tenant_id(), user_id="u1")


def write(engine: MemoryEngine, scope: Scope, text: str, **kw: object) -> list[str]:
    """Write ``text`` in extract mode; the ids of the memories it created."""
    res = engine.write(scope, text, mode="extract", observed_at=OBSERVED, **kw)
    assert res.error is None, res.error
    return [a["memory_id"] for a in res.actions if a["action"] == "create"]


def active(engine: MemoryEngine, scope: Scope) -> list[Memory]:
    return [m for m in engine.list(scope, limit=200).items if m.status == MemoryStatus.ACTIVE]


def contents(engine: MemoryEngine, scope: Scope) -> list[str]:
    return sorted(m.content for m in active(engine, scope))


def assert_superseded(engine: MemoryEngine, scope: Scope, old: str, new: str) -> None:
    was = engine.get(scope, old)
    assert was.status == MemoryStatus.SUPERSEDED and str(was.superseded_by) == new
    assert engine.get(scope, new).status == MemoryStatus.ACTIVE


# ----------------------------------------------------------------------------- negation


def test_zh_allergy_then_its_negation_supersedes(engine: MemoryEngine, scope: Scope) -> None:
    (old,) = write(engine, scope, "我对花生过敏")
    (new,) = write(engine, scope, "我对花生不过敏")
    assert_superseded(engine, scope, old, new)
    assert contents(engine, scope) == ["用户对花生不过敏"]


def test_en_allergy_then_no_longer_supersedes(engine: MemoryEngine, scope: Scope) -> None:
    (old,) = write(engine, scope, "I'm allergic to peanuts")
    assert engine.get(scope, old).importance >= 0.9  # health
    (new,) = write(engine, scope, "I'm not allergic to peanuts anymore")
    assert_superseded(engine, scope, old, new)
    (mem,) = active(engine, scope)
    assert "not allergic to peanuts" in mem.content


def test_en_negated_allergy_alone_is_stored_negated(engine: MemoryEngine, scope: Scope) -> None:
    (only,) = write(engine, scope, "I am not allergic to peanuts")
    mem = engine.get(scope, only)
    assert mem.content == "The user is not allergic to peanuts"
    assert mem.importance < 0.9 and mem.memory_type == MemoryType.SEMANTIC
    assert mem.metadata["fact_key"]["polarity"] == -1


# ----------------------------------------------------------------------------- containment


@pytest.mark.parametrize(
    ("first", "second"),
    [("我喜欢猫", "我喜欢猫头鹰"), ("I like tea", "I like tea ceremonies in Kyoto")],
)
def test_containment_keeps_both(
    engine: MemoryEngine, scope: Scope, first: str, second: str
) -> None:
    (a,) = write(engine, scope, first)
    res = engine.write(scope, second, mode="extract", observed_at=OBSERVED)
    assert [x["action"] for x in res.actions][0] == "create"
    assert "duplicate" not in [x["action"] for x in res.actions]
    assert len(active(engine, scope)) == 2
    assert engine.get(scope, a).status == MemoryStatus.ACTIVE


# ----------------------------------------------------------------------------- distilled facts


def test_friday_meetings_distilled_semantic(engine: MemoryEngine, scope: Scope) -> None:
    (only,) = write(engine, scope, "我周五下午一般都有会，别给我排东西")
    mem = engine.get(scope, only)
    assert mem.content == "用户周五下午通常有会，不要安排事情"
    assert mem.memory_type == MemoryType.SEMANTIC and len(mem.content) <= 50


def test_name_and_preference_are_two_facts(engine: MemoryEngine, scope: Scope) -> None:
    assert len(write(engine, scope, "My name is Sam and I like pizza")) == 2
    assert contents(engine, scope) == ["The user likes pizza", "The user's name is Sam"]


# ----------------------------------------------------------------------------- corrections


def test_natural_correction_of_residence_supersedes(engine: MemoryEngine, scope: Scope) -> None:
    (old,) = write(engine, scope, "我住在上海")
    (new,) = write(engine, scope, "之前说我住在上海，其实我上个月已经搬到深圳了")
    assert_superseded(engine, scope, old, new)
    (mem,) = active(engine, scope)
    assert "深圳" in mem.content and "上海" not in mem.content and "我" not in mem.content


def test_changed_plan_supersedes_and_names_the_new_time(engine: MemoryEngine, scope: Scope) -> None:
    (old,) = write(engine, scope, "以后每周四下午做项目汇报")
    (new,) = write(engine, scope, "计划有变：项目汇报改成周五上午九点半了")
    assert_superseded(engine, scope, old, new)
    (mem,) = active(engine, scope)
    assert "项目汇报" in mem.content and "周五上午九点半" in mem.content


def test_correction_found_by_key_when_embeddings_differ(make_engine: Make, scope: Scope) -> None:
    # no stored memory is cosine-close enough: only the fact key can find the old residence
    engine = make_engine(conflict_similarity=1.0)
    (old,) = write(engine, scope, "I live in Berlin")
    (new,) = write(engine, scope, "Actually, I moved to Lisbon last month")
    assert_superseded(engine, scope, old, new)
    assert [m.content for m in active(engine, scope)] == [engine.get(scope, new).content]


def test_updated_preference_outweighs_the_one_it_replaces(
    engine: MemoryEngine, scope: Scope
) -> None:
    (old,) = write(engine, scope, "以后周四汇报")
    (new,) = write(engine, scope, "改成周五汇报")
    assert_superseded(engine, scope, old, new)
    assert engine.get(scope, new).importance > engine.get(scope, old).importance


# ----------------------------------------------------------------------------- who and when


def test_form_of_address_one_fact(engine: MemoryEngine, scope: Scope) -> None:
    (only,) = write(engine, scope, "开会的时候别叫我老王，叫我王工就行")
    mem = engine.get(scope, only)
    assert mem.content == "开会时称呼用户为王工，不要叫老王"
    assert mem.metadata["fact_key"]["value"] == "王工"


def test_third_party_manager_keeps_the_subject(engine: MemoryEngine, scope: Scope) -> None:
    (only,) = write(engine, scope, "My manager, Priya, prefers the weekly report as a PDF")
    mem = engine.get(scope, only)
    assert mem.content == "The user's manager Priya prefers the weekly report as a PDF"
    assert "Priya" in mem.entities and mem.metadata["fact_key"]["holder"] != "user"


def test_son_birthday_and_preference_are_the_sons(engine: MemoryEngine, scope: Scope) -> None:
    ids = write(engine, scope, "我儿子下个月12号生日，他特别喜欢恐龙")
    mems = {m.content: m for m in (engine.get(scope, i) for i in ids)}
    assert set(mems) == {"用户的儿子的生日是2026-12-12", "用户的儿子特别喜欢恐龙"}
    assert mems["用户的儿子的生日是2026-12-12"].memory_type == MemoryType.EPISODIC
    assert all("用户的儿子" in m.entities for m in mems.values())


def test_temporary_state_has_valid_until_and_lasting_fact_kept(
    engine: MemoryEngine, scope: Scope
) -> None:
    (lasting,) = write(engine, scope, "I usually work from the office")
    (temp,) = write(engine, scope, "I'm working from home this week")
    mem = engine.get(scope, temp)
    assert mem.valid_until == datetime(2026, 11, 30, tzinfo=UTC)  # end of that ISO week
    assert "temporary" in mem.tags
    assert engine.get(scope, lasting).status == MemoryStatus.ACTIVE
    assert len(active(engine, scope)) == 2


def test_dated_event_is_episodic_with_the_date(engine: MemoryEngine, scope: Scope) -> None:
    (only,) = write(engine, scope, "今天我修好了自行车")
    mem = engine.get(scope, only)
    assert mem.content == "用户2026-11-25修好了自行车"
    assert mem.memory_type == MemoryType.EPISODIC
    assert mem.valid_from == datetime(2026, 11, 25, tzinfo=UTC)


# ----------------------------------------------------------------------------- tool outputs


def test_shipped_order_json_becomes_its_conclusion(engine: MemoryEngine, scope: Scope) -> None:
    payload = json.dumps(
        {"order_id": "A1029", "status": "shipped", "eta": "2026-12-04", "carrier": "UPS"}
    )
    write(engine, scope, payload, source=MemorySource.TOOL_OUTPUT)
    (mem,) = active(engine, scope)
    assert mem.content == "Order A1029 is shipped: ETA 2026-12-04"
    assert "A1029" in mem.entities and mem.memory_type == MemoryType.EPISODIC


def test_failing_pytest_summary_becomes_conclusions(engine: MemoryEngine, scope: Scope) -> None:
    out = "\n".join(
        [
            "============================= FAILURES =============================",
            "FAILED tests/test_auth.py::test_login - AssertionError: assert 401 == 200",
            "FAILED tests/test_auth.py::test_refresh - KeyError: 'token'",
            "FAILED tests/test_api.py::test_list_users",
            "================ 3 failed, 41 passed in 3.20s ================",
        ]
    )
    write(engine, scope, out, source=MemorySource.TOOL_OUTPUT)
    got = contents(engine, scope)
    # one output, one fact: the totals and the failures that fit, in one memory
    (run,) = [c for c in got if c.startswith("Test run: 3 failed, 41 passed")]
    assert "test_login failed: returns 401 (expected 200)" in run
    assert all("=====" not in c and len(c) <= 120 for c in got)


def test_40kb_json_is_never_stored_raw(engine: MemoryEngine, scope: Scope) -> None:
    records = [
        {"id": f"u{i}", "status": "active" if i % 4 else "suspended", "bio": "x" * 60}
        for i in range(400)
    ]
    payload = json.dumps({"data": records, "page": 1, "total": 400})
    assert len(payload) > 40_000
    res = engine.write(
        scope, payload, mode="extract", source=MemorySource.TOOL_OUTPUT, observed_at=OBSERVED
    )
    assert res.error is None and res.remembered
    got = contents(engine, scope)
    assert got == ["Tool returned 400 records: 300 active, 100 suspended"]
    assert all(not payload.startswith(c[:20]) and '"bio"' not in c for c in got)


# ----------------------------------------------------------------------------- skip reasons


def test_skip_reason_has_a_code(engine: MemoryEngine, scope: Scope) -> None:
    res = engine.write(scope, "你好", mode="extract")
    assert res.remembered is False and (res.reason or "").startswith("[small_talk]")
    trail = engine.write_trail(scope, str(res.write_id))
    assert trail["decision"]["reason_code"] == "small_talk"
