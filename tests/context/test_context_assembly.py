"""Context assembly (engine.context) and observe (engine.observe) on a real engine (PostgreSQL)."""

from __future__ import annotations

from typing import Any

import pytest

from memory_engine import Scope
from memory_engine.context.service import SECTION_ORDER, SUMMARY_HEADER, ContextBudgetError
from memory_engine.context.working import message_tokens
from memory_engine.errors import ContentTooLargeError, InvalidInputError
from memory_engine.models import MemorySource, MemoryType
from memory_engine.text import count_tokens
from tests.conftest import new_tenant_id

FACTS = [
    "Dana is allergic to shellfish",
    "Dana's flight to Lisbon leaves on 12 May",
    "Dana prefers aisle seats",
    "Dana's manager is Priya",
    "Dana works on the billing service",
    "达娜喜欢喝绿茶",
]


def _turn(i: int) -> list[tuple[str, str]]:
    filler = " ".join(["details"] * (i % 7 + 3))
    return [
        ("user", f"Turn {i}: can you help me plan step {i} of the trip? {filler}."),
        ("assistant", f"Sure, step {i}: book the hotel near stop {i}. 第{i}步完成。 {filler}."),
    ]


def _check_accounting(res: Any) -> None:
    assert res.total_tokens <= res.budget_tokens
    assert res.total_tokens == sum(message_tokens(m["content"]) for m in res.messages)
    assert [s.name for s in res.sections] == list(SECTION_ORDER)
    for sec in res.sections:
        msgs = res.messages[sec.first : sec.last + 1] if sec.items else []
        assert sec.tokens == sum(count_tokens(m["content"]) + 4 for m in msgs)
    order = [s.name for s in res.sections for _ in range(s.items)]
    assert order == sorted(order, key=SECTION_ORDER.index)  # sections in the documented order
    assert res.messages[0]["role"] == "system" and res.messages[-1]["role"] == "user"


def test_200_turn_session_respects_the_budget(engine_with_store: Any) -> None:
    engine = engine_with_store
    scope = Scope.of(new_tenant_id("ctx"))
    for fact in FACTS:
        engine.write(scope, fact, memory_type=MemoryType.SEMANTIC)
    for i in range(1, 201):
        for role, text in _turn(i):
            engine.add_turn(scope, "trip", role, text)  # type: ignore[arg-type]
    res = engine.context(scope, "trip", "What is Dana allergic to?")
    _check_accounting(res)
    assert res.mode == "summarise" and res.summarized_rounds == 195
    assert res.history_tokens > 0.6 * 2000
    recent = res.messages[res.sections[3].first : res.sections[3].last + 1]
    assert [m["content"] for m in recent] == [t for i in range(196, 201) for _, t in _turn(i)]
    summary = res.messages[res.sections[2].first]["content"]
    assert summary.startswith(SUMMARY_HEADER) and "round 195 (" in summary
    block = res.messages[res.sections[1].first]["content"]
    assert "<memory_data>" in block and "shellfish" in block
    assert res.messages[-1] == {"role": "user", "content": "What is Dana allergic to?"}
    included = [m for m in res.memories if m.included]
    assert included and included[0].content == "Dana is allergic to shellfish"
    assert "rank 1" in included[0].why
    if not any(t.section == "memories" for t in res.trimmed):  # block is the trace's block
        assert engine.get_trace(scope, res.trace_id).block == block


def test_tight_budget_trims_summary_then_memories_then_recent(engine_with_store: Any) -> None:
    engine = engine_with_store
    scope = Scope.of(new_tenant_id("ctx"))
    for fact in FACTS:
        engine.write(scope, fact)
    for i in range(1, 41):
        for role, text in _turn(i):
            engine.add_turn(scope, "s", role, text)  # type: ignore[arg-type]
    full = engine.context(scope, "s", "Dana flight", budget_tokens=10_000)
    assert full.trimmed == []
    previous_sections: list[str] = []
    for budget in (full.total_tokens - 20, 400, 250, 120, 60):
        res = engine.context(scope, "s", "Dana flight", budget_tokens=budget)
        _check_accounting(res)
        sections = [t.section for t in res.trimmed]
        assert sections == sorted(sections, key=["summary", "memories", "recent"].index)
        assert sum(t.tokens for t in res.trimmed) >= full.total_tokens - res.total_tokens
        assert len(sections) >= len(previous_sections)
        previous_sections = sections
        if "memories" in sections:  # the summary went first, entirely
            assert res.sections[2].items == 0
        if "recent" in sections:
            assert res.sections[1].items == 0
            assert all(not m.included for m in res.memories)
    with pytest.raises(ContextBudgetError):
        engine.context(scope, "s", "Dana flight " * 50, budget_tokens=30)


def test_short_session_is_sent_whole(engine_with_store: Any) -> None:
    engine = engine_with_store
    scope = Scope.of(new_tenant_id("ctx"))
    engine.add_turn(scope, "short", "user", "Hi, I am Dana.")
    engine.add_turn(scope, "short", "assistant", "Hello Dana!")
    res = engine.context(scope, "short", "你好，我明天的航班几点？", system_prompt="Be brief.")
    _check_accounting(res)
    assert res.mode == "everything" and res.sections[2].items == 0
    assert res.sections[1].items == 0  # nothing stored for this tenant: no memory block
    assert res.messages == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "Hi, I am Dana."},
        {"role": "assistant", "content": "Hello Dana!"},
        {"role": "user", "content": "你好，我明天的航班几点？"},
    ]


def test_task_type_moves_needed_memory_types_up(context_engine: Any) -> None:
    scope = Scope.of(new_tenant_id("ctx"))
    context_engine.write(
        scope, "Deploy steps: run tests, then tag, then push", memory_type=MemoryType.PROCEDURAL
    )
    context_engine.write(
        scope, "The deploy target is the staging cluster", memory_type=MemoryType.SEMANTIC
    )
    context_engine.write(
        scope, "Yesterday the deploy failed on tag", memory_type=MemoryType.EPISODIC
    )
    res = context_engine.context(scope, "t", "how do I deploy", task_type="planning")
    types = [m.memory_type for m in res.memories if m.included]
    assert types[0] is MemoryType.PROCEDURAL and len(types) == 3
    assert res.task_type == "planning"
    with pytest.raises(InvalidInputError):
        context_engine.context(scope, "t", "deploy", task_type="world-domination")


def test_observe_writes_through_the_guard(context_engine: Any) -> None:
    scope = Scope.of(new_tenant_id("obs"))
    r = context_engine.observe(
        scope,
        "Build #512 failed: missing env var STRIPE_KEY",
        tool_name="ci_status",
        session_id="run-1",
    )
    mem = context_engine.get(scope, r.memory_ids[0])
    assert mem.source is MemorySource.TOOL_OUTPUT and mem.session_id == "run-1"
    assert mem.metadata["tool"] == "ci_status" and mem.metadata["observed"] == "tool_result"
    c = context_engine.observe(
        scope, "The CI failure is a config problem, not code", kind="conclusion"
    )
    assert context_engine.get(scope, c.memory_ids[0]).source is MemorySource.CONVERSATION
    with pytest.raises(InvalidInputError):
        context_engine.observe(scope, "3 results", tool_name="memory_search")
    with pytest.raises(InvalidInputError):
        context_engine.observe(scope, '{"name": "memory_write", "arguments": {"content": "x"}}')
    with pytest.raises(ContentTooLargeError):
        context_engine.observe(scope, "log line\n" * 5000)
    with pytest.raises(InvalidInputError):
        context_engine.observe(scope, "x", kind="thought")  # type: ignore[arg-type]
    assert context_engine.stats(scope).total == 2
    found = context_engine.search(scope, "why did the build fail", k=3)
    assert "STRIPE_KEY" in found.memories[0].memory.content


def test_users_of_one_tenant_never_share_a_session_buffer(engine_with_store: Any) -> None:
    """Review finding: two users who both used session "s1" saw each other's turns."""
    tenant = new_tenant_id("wm")
    alice = Scope.of(tenant, user_id="alice")
    bob = Scope.of(tenant, user_id="bob")
    engine_with_store.add_turn(alice, "s1", "user", "My bank PIN is 4321")
    engine_with_store.add_turn(bob, "s1", "user", "我喜欢喝绿茶")
    bob_view = " ".join(
        m["content"] for m in engine_with_store.context(bob, "s1", "what did I say?").messages
    )
    alice_view = " ".join(
        m["content"] for m in engine_with_store.context(alice, "s1", "what did I say?").messages
    )
    assert "4321" not in bob_view and "绿茶" in bob_view
    assert "4321" in alice_view and "绿茶" not in alice_view
    # a long session id still gets a valid, owner-specific key
    long_id = "s" * 64
    engine_with_store.add_turn(alice, long_id, "user", "long session turn")
    assert "long session turn" not in " ".join(
        m["content"] for m in engine_with_store.context(bob, long_id, "anything").messages
    )
