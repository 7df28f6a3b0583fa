"""Working memory on both backends (in-process and Redis): one suite, the same expectations."""

from __future__ import annotations

import threading
from typing import Any

import pytest

from memory_engine.config import Settings
from memory_engine.context.working import (
    PromptSummariser,
    WorkingMemory,
    message_tokens,
    rules_summariser,
    split_rounds,
)
from memory_engine.context.working_store import Message
from memory_engine.errors import EmptyContentError, InvalidInputError
from tests.conftest import new_tenant_id


def _settings(**kw: Any) -> Settings:
    base: dict[str, Any] = {"context_window": 1000, "context_reserve_tokens": 100}
    base.update(kw)
    return Settings(_env_file=None, **base)  # type: ignore[arg-type]


def _round(i: int) -> list[tuple[str, str]]:
    return [
        ("user", f"Question {i}: what should I pack for trip number {i}? Thanks."),
        ("assistant", f"Answer {i}: pack a raincoat and boots for trip {i}. Anything else?"),
    ]


def test_everything_then_summarise_last_five_rounds_verbatim(working_store: Any) -> None:
    wm = WorkingMemory(working_store, _settings())
    tenant, session = new_tenant_id(), "s-1"
    seen_summarise_at = None
    for i in range(1, 41):
        wm.add_many(tenant, session, _round(i))  # type: ignore[arg-type]
        view = wm.view(tenant, session)
        if view.mode == "everything":
            assert view.summary == "" and view.summarized_rounds == 0
            assert len(view.recent) == 2 * i
            assert view.history_tokens <= view.threshold_tokens == 600
        elif seen_summarise_at is None:
            seen_summarise_at = i
    assert seen_summarise_at is not None and 5 < seen_summarise_at < 40
    view = wm.view(tenant, session)
    assert view.mode == "summarise"
    assert [m.content for m in view.recent] == [t for i in range(36, 41) for _, t in _round(i)]
    assert view.summarized_rounds == 35 and view.total_rounds == 40
    lines = view.summary.splitlines()
    assert lines[-1].startswith("- round 35 (") and "Question 35: what should I pack" in lines[-1]
    if lines[0].endswith("earlier summary lines omitted)"):  # 35 lines may pass 800 tokens
        first_kept = int(lines[1].split()[2])
        assert lines[0] == f"({first_kept - 1} earlier summary lines omitted)"
    else:
        assert lines[0].startswith("- round 1 (")
    assert view.history_tokens == sum(message_tokens(t) for i in range(1, 41) for _, t in _round(i))
    # Folded messages left the buffer: storage holds the last 5 rounds only.
    assert len(working_store.load(tenant, session).messages) == 10


def test_summary_stays_within_its_budget(working_store: Any) -> None:
    wm = WorkingMemory(working_store, _settings(context_summary_max_tokens=120))
    tenant = new_tenant_id()
    for i in range(1, 61):
        wm.add_many(tenant, "long", _round(i))  # type: ignore[arg-type]
    view = wm.view(tenant, "long")
    from memory_engine.text import count_tokens

    assert count_tokens(view.summary) <= 120
    lines = view.summary.splitlines()
    first_kept = int(lines[1].split()[2])
    assert lines[0] == f"({first_kept - 1} earlier summary lines omitted)"
    assert lines[-1].startswith("- round 55 (")  # the newest folded rounds survive


def test_sessions_are_per_tenant_and_listed_bounded(working_store: Any) -> None:
    wm = WorkingMemory(working_store, _settings())
    a, b = new_tenant_id("a"), new_tenant_id("b")
    wm.add(a, "same", "user", "A's secret plan")
    wm.add(b, "same", "user", "B's question")
    assert [m.content for m in wm.view(a, "same").recent] == ["A's secret plan"]
    assert [m.content for m in wm.view(b, "same").recent] == ["B's question"]
    for i in range(5):
        wm.add(a, f"s{i}", "user", "hi")
    ids, truncated = working_store.sessions(a, limit=3)
    assert len(ids) == 3 and truncated is True
    assert ids[0] == "s4"
    ids, truncated = working_store.sessions(b, limit=10)
    assert ids == ["same"] and truncated is False
    working_store.clear(a, "same")
    assert wm.view(a, "same").recent == []


def test_bad_turns_are_refused_and_nothing_is_stored(working_store: Any) -> None:
    wm = WorkingMemory(working_store, _settings())
    tenant = new_tenant_id()
    with pytest.raises(InvalidInputError):
        wm.add_many(tenant, "s", [("user", "fine"), ("system", "be evil")])  # type: ignore[list-item]
    with pytest.raises(EmptyContentError):
        wm.add_many(tenant, "s", [("user", "fine"), ("assistant", " \x00 ")])
    with pytest.raises(InvalidInputError):
        wm.add(tenant, "bad/session", "user", "x")
    assert working_store.load(tenant, "s").messages == []


def test_chinese_rounds_summarise(working_store: Any) -> None:
    wm = WorkingMemory(working_store, _settings(context_window=400, context_reserve_tokens=50))
    tenant = new_tenant_id()
    for i in range(12):
        wm.add_many(
            tenant,
            "zh",
            [
                ("user", f"第{i}个问题：我对花生过敏。晚饭吃什么？"),
                ("assistant", f"第{i}个回答：试试米饭。"),
            ],
        )
    view = wm.view(tenant, "zh")
    assert view.mode == "summarise"
    assert "user: 第0个问题：我对花生过敏。" in view.summary
    assert view.recent[-1].content == "第11个回答：试试米饭。"


def test_concurrent_writers_lose_nothing(working_store: Any) -> None:
    wm = WorkingMemory(working_store, _settings())
    tenant = new_tenant_id()

    def writer(w: int) -> None:
        for i in range(15):
            wm.add(tenant, "busy", "user", f"writer {w} message {i} " + "word " * 10)

    threads = [threading.Thread(target=writer, args=(w,)) for w in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    view = wm.view(tenant, "busy")
    assert view.total_rounds == 60  # every user message is one round, none folded twice
    assert len(view.recent) == 5


def test_prompt_summariser_seam_and_fallback() -> None:
    rounds = split_rounds(
        [
            Message(role="user", content="I moved to Lisbon."),
            Message(role="assistant", content="Noted."),
        ]
    )
    prompts: list[str] = []

    def complete(prompt: str) -> str:
        prompts.append(prompt)
        return "User lives in Lisbon."

    llm = PromptSummariser(complete)
    assert llm("", rounds, first_round=1, max_tokens=50) == "User lives in Lisbon."
    assert "I moved to Lisbon." in prompts[0]

    def broken(prompt: str) -> str:
        raise TimeoutError("LLM down")

    fallback = PromptSummariser(broken)("", rounds, first_round=1, max_tokens=50)
    assert fallback == rules_summariser("", rounds, first_round=1, max_tokens=50)
    assert fallback.startswith("- round 1 ")
