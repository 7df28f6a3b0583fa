"""examples/agent_loop.py against the local OpenAI-compatible stub: recall before planning,
write after acting, remember conclusions; the real ``openai`` client and a real engine."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from typing import Any

import openai

from memory_engine import Scope
from memory_engine.models import MemorySource
from tests.conftest import new_tenant_id

ROOT = Path(__file__).resolve().parents[2]


def _load_example() -> Any:
    spec = importlib.util.spec_from_file_location("agent_loop", ROOT / "examples" / "agent_loop.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    sys.modules["agent_loop"] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def _reply(body: dict[str, Any]) -> str:
    said = [m["content"] for m in body["messages"]]
    if any(s.startswith("Observation:") for s in said):
        return "Final: Cook a peanut-free rice curry.\nRemember: Ann liked the rice curry plan"
    return "Thinking about it.\nAction: pantry: what is in the pantry"


def test_agent_loop_recalls_acts_and_remembers(context_engine: Any, openai_stub: Any) -> None:
    agent = _load_example()
    scope = Scope.of(new_tenant_id("agent"))
    context_engine.write(scope, "Ann is allergic to peanuts")
    openai_stub.chat_reply = _reply
    client = openai.OpenAI(base_url=openai_stub.base_url, api_key="x", max_retries=0)
    pantry_calls: list[str] = []

    def pantry(arg: str) -> str:
        pantry_calls.append(arg)
        return "The pantry has rice, coconut milk and curry paste"

    run = agent.run_agent(
        context_engine,
        scope,
        "dinner",
        "What should I cook for Ann tonight?",
        client=client,
        model="stub-chat",
        tools={"pantry": pantry},
    )
    assert run.answer == "Cook a peanut-free rice curry."
    assert pantry_calls == ["what is in the pantry"]
    assert run.remembered == ["Ann liked the rice curry plan"]
    chats = [r.body for r in openai_stub.requests if r.path == "/v1/chat/completions"]
    assert len(chats) == 2
    first = chats[0]["messages"]
    assert first[0]["role"] == "system" and "Action: <tool>: <input>" in first[0]["content"]
    assert (
        "<memory_data>" in first[1]["content"]
        and "Ann is allergic to peanuts" in first[1]["content"]
    )
    assert first[-1] == {"role": "user", "content": "What should I cook for Ann tonight?"}
    second = chats[1]["messages"]
    assert second[-1]["content"].startswith("Observation: The pantry has rice")
    assert "The pantry has rice" in second[1]["content"]  # the observation was written, recalled

    stored = {m.content: m for m in context_engine.list(scope).items}
    obs = stored["The pantry has rice, coconut milk and curry paste"]
    assert obs.source is MemorySource.TOOL_OUTPUT and obs.metadata["tool"] == "pantry"
    assert obs.session_id == "dinner"
    assert stored["Ann liked the rice curry plan"].source is MemorySource.CONVERSATION
    view = context_engine.working_memory.view(scope.tenant_id, "dinner")
    assert [m.content for m in view.recent] == [
        "What should I cook for Ann tonight?",
        "Cook a peanut-free rice curry.",
    ]
