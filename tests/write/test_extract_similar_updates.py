"""Corrections said in other words, as a user meets them: an empty data folder, only
``MEMORY_DATA_DIR`` set (plus ``MEMORY_STORE=qdrant`` and its folder for Qdrant), extract mode
with the offline rules provider and the default legs (the multilingual ``dense_ml`` leg finds
the stored fact, the judge's similarity fallback decides). Each pair's first memory ends
superseded by the second; a third party's fact and a more specific one leave it active; a
known name is not linked to a common word; a message that continues the previous one ("she's a
border collie") supplements what that one stored, and another scope's or an old write's
memories are never "previous"."""

from __future__ import annotations

import os
import shutil
import tempfile
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope, WriteRequest
from memory_engine.models import MemorySource, MemoryStatus
from memory_engine.stores.postgres.embedded import stop_embedded_server

OBSERVED = datetime(2026, 11, 25, 9, tzinfo=UTC)


@pytest.fixture(params=["postgres", "qdrant"], scope="module")
def engine(request: pytest.FixtureRequest) -> Iterator[MemoryEngine]:
    """One engine on a fresh folder, configured only by the environment a user sets."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-similar-"))
    data = root / "data"
    saved = {k: v for k, v in os.environ.items() if k.startswith("MEMORY_")}
    for key in saved:
        del os.environ[key]
    os.environ["MEMORY_DATA_DIR"] = str(data)
    if request.param == "qdrant":
        os.environ.update(MEMORY_STORE="qdrant", MEMORY_QDRANT_PATH=str(root / "qdrant"))
    eng = MemoryEngine()
    try:
        yield eng
    finally:
        eng.close()
        for key in [k for k in os.environ if k.startswith("MEMORY_")]:
            del os.environ[key]
        os.environ.update(saved)
        stop_embedded_server(data)
        shutil.rmtree(root, ignore_errors=True)


def _write(engine: MemoryEngine, scope: Scope, text: str) -> list[dict]:
    res = engine.write(scope, text, mode="extract", observed_at=OBSERVED)
    assert res.error is None, res.error
    return list(res.actions)


def _created(engine: MemoryEngine, scope: Scope, text: str) -> str:
    """The id of the one memory ``text`` created."""
    [made] = [a["memory_id"] for a in _write(engine, scope, text) if a["action"] == "create"]
    return str(made)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我用的是安卓手机", "我换成苹果手机了"),
        ("我老家是湖南的", "不对，我老家其实是江西的"),
        ("I usually run in the mornings.", "I switched to running in the evenings."),
        ("I'm flying to Tokyo on March 20.", "I postponed the Tokyo trip to April 2."),
        # taking back what the previous message said
        ("We're planning to go to Portugal for our anniversary in June.",
         "Plans changed — we're doing Japan instead, found a crazy flight deal"),
        ("我在阿里做前端", "更正一下，我上个月已经跳槽去字节了"),
        ("I drive a 2015 Honda Civic", "scratch that, sold the civic last weekend. got a Mazda CX-5 now"),
        ("My cat's name is Mochi", "it's Miso, not Mochi"),
    ],
)  # fmt: skip
def test_a_correction_in_other_words_supersedes(
    engine: MemoryEngine, first: str, second: str
) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    old = _created(engine, scope, first)
    actions = _write(engine, scope, second)
    assert any(a["action"] == "supersede" and a["target_id"] == old for a in actions), actions
    assert engine.get(scope, old).status == MemoryStatus.SUPERSEDED


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我住在上海", "我妹妹住在杭州"),
        ("I like chess.", "I like chess puzzles on my phone."),
    ],
)
def test_someone_else_or_more_detail_keeps_the_fact(
    engine: MemoryEngine, first: str, second: str
) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    old = _created(engine, scope, first)
    actions = _write(engine, scope, second)
    assert not any(a["action"] == "supersede" for a in actions), actions
    assert engine.get(scope, old).status == MemoryStatus.ACTIVE


def test_a_known_name_is_not_linked_to_a_common_word(engine: MemoryEngine) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    engine.write(scope, "Will reviewed the Go service", entities=["Will", "Go"], mode="raw")
    [fact] = [
        a
        for a in _write(engine, scope, "I will go home early on Fridays.")
        if a["action"] == "create"
    ]
    names = {e.name for e in engine.memory_entities(scope, fact["memory_id"])}
    assert not names & {"Will", "Go"}, names


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("We got a dog last year, best decision ever", "she's a border collie, her name's Pepper"),
        ("我们每周一有个产品评审会", "对了，一般在3楼大会议室开，远程的同事走腾讯会议"),
    ],
)
def test_a_message_that_continues_the_previous_one_supplements_it(
    engine: MemoryEngine, first: str, second: str
) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    old = _created(engine, scope, first)
    res = engine.write(scope, second, mode="extract", observed_at=OBSERVED)
    assert res.error is None, res.error
    assert any(a["action"] == "supplement" and a["target_id"] == old for a in res.actions), (
        res.actions
    )
    assert engine.get(scope, old).status == MemoryStatus.ACTIVE
    # the trail shows the previous message's memory as a recent candidate
    trail = engine.write_trail(scope, str(res.write_id))
    shown = [c for f in trail["facts"] for c in f["candidates"]]
    assert any(c.get("recent") and c["memory_id"] == old for c in shown), shown


def test_another_scope_is_never_the_previous_message(engine: MemoryEngine) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    mine, theirs = Scope.of(tenant, user_id="u1"), Scope.of(tenant, user_id="u2")
    _write(engine, theirs, "We got a dog last year")
    res = engine.write(mine, "she's a border collie", mode="extract", observed_at=OBSERVED)
    assert not any(a["action"] == "supplement" for a in res.actions), res.actions


def test_a_temporary_change_after_the_previous_message_replaces_nothing(
    engine: MemoryEngine,
) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    old = _created(engine, scope, "我早餐一般吃包子")
    actions = _write(engine, scope, "这个月在控糖，早餐暂时改吃鸡蛋")
    assert not any(a["action"] == "supersede" for a in actions), actions
    assert engine.get(scope, old).status == MemoryStatus.ACTIVE


def test_only_the_message_just_before_counts_as_previous(engine: MemoryEngine) -> None:
    """A question in between stored nothing: the message after it continues nothing."""
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    _write(engine, scope, "My sister lives in Denver")
    engine.write(scope, "Do you know any good vets?", mode="extract", observed_at=OBSERVED)
    res = engine.write(scope, "She's a golden retriever, 3 years old", mode="extract")
    assert not any(a["action"] == "supplement" for a in res.actions), res.actions


def test_a_tenant_wide_scope_never_continues_a_users_message(engine: MemoryEngine) -> None:
    tenant = f"t-{uuid.uuid4().hex[:8]}"
    _write(engine, Scope.of(tenant, user_id="u1"), "We got a dog last year")
    res = engine.write(Scope.of(tenant), "she's a border collie", mode="extract")
    assert not any(a["action"] == "supplement" for a in res.actions), res.actions
    trail = engine.write_trail(Scope.of(tenant), str(res.write_id))
    assert not any(c.get("recent") for f in trail["facts"] for c in f["candidates"])


def test_a_tool_output_is_not_the_users_previous_message(engine: MemoryEngine) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    engine.write(
        scope,
        '{"flight": "UA 837", "status": "Delayed", "estimatedDeparture": "15:40"}',
        mode="extract",
        source=MemorySource.TOOL_OUTPUT,
    )
    res = engine.write(scope, "It's my first trip to Tokyo", mode="extract")
    assert not any(a["action"] == "supplement" for a in res.actions), res.actions


def test_a_dry_run_in_between_does_not_hide_the_previous_message(engine: MemoryEngine) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    old = _created(engine, scope, "My cat's name is Mochi")
    planned = engine.write_extract(scope, WriteRequest(text="it's Miso, not Mochi"), dry_run=True)
    assert any(a["action"] == "supersede" for a in planned.actions), planned.actions
    actions = _write(engine, scope, "it's Miso, not Mochi")
    assert any(a["action"] == "supersede" and a["target_id"] == old for a in actions), actions


def test_the_previous_message_is_of_the_same_conversation(engine: MemoryEngine) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    for text, session in [("I play piano", "c1"), ("I live in Berlin", "c2")]:
        engine.write_extract(scope, WriteRequest(text=text, session_id=session))
    res = engine.write_extract(scope, WriteRequest(text="mostly jazz stuff", session_id="c1"))
    made = [
        engine.get(scope, a["memory_id"]).content for a in res.actions if a["action"] == "create"
    ]
    assert not any("Berlin" in m for m in made), made


def test_the_same_words_after_another_message_are_judged_again(engine: MemoryEngine) -> None:
    scope = Scope.of(f"t-{uuid.uuid4().hex[:8]}", user_id="u1")
    for text in ("I play piano", "mostly jazz stuff", "I play guitar"):
        _write(engine, scope, text)
    res = engine.write(scope, "mostly jazz stuff", mode="extract", observed_at=OBSERVED)
    assert "exact hash" not in (res.reason or ""), res.reason
