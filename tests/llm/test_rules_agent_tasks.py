"""A task the user hands the agent's tools right now ("run the test suite", "book me the 10:30
slot", "跑一下 auth 模块的测试") is a one-off request, not a memory; a standing rule said the same
way ("always run the tests before pushing") and a fact about the user are kept."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules import RulesLLM

AT = datetime(2026, 3, 10, 9, tzinfo=UTC)


def _extract(text: str):  # type: ignore[no-untyped-def]
    result = RulesLLM().extract(ExtractInput(text=text, observed_at=AT))
    return result[0] if isinstance(result, tuple) else result


@pytest.mark.parametrize(
    "text",
    [
        "run the test suite before I push",
        "book me the 10:30 slot with Dr. Okafor on Saturday",
        "deploy web-frontend v2.14.0 to prod and tell me when it's done",
        "run ls -la on /var/log so I can eyeball it",
        "add react-beautiful-dnd to the dashboard",
        "run go tests for billing",
        "跑一下 auth 模块的测试",
        "查下我明天那趟高铁 G1234 有没有晚点",
        "装一下 torch 2.1.0 cu118 的版本",
    ],
)
def test_a_task_for_the_agent_is_not_remembered(text: str) -> None:
    found = _extract(text)
    assert not found.should_remember and not found.facts, [f.content for f in found.facts]


@pytest.mark.parametrize(
    ("text", "term"),
    [
        ("Always run the tests before pushing", "tests"),
        ("Call me Alex", "Alex"),
        ("Update my address to 5 Main St", "5 Main St"),
        ("以后每次提交前都帮我跑一下测试", "测试"),
        ("I run every morning", "run"),
        ("Remove the onions from my orders, I'm allergic", "allergic"),
        ("Cancel the newspaper, we're moving to Tokyo next month", "Tokyo"),
        ("Send me the weekly report on Mondays", "Mondays"),
        ("Deploy the frontend only on Tuesdays", "Tuesdays"),
        ("Update the address on file: I live at 12 Baker Street now", "Baker Street"),
        ("Book 2 of Dune is my favourite book", "Dune"),
        ("帮我记一下我对青霉素过敏", "青霉素"),
        ("取消一下订阅，我已经换成Spotify了", "Spotify"),
        ("查下来发现我有轻度脂肪肝", "脂肪肝"),
        ("周末我妈会帮我带一下孩子", "孩子"),
    ],
)
def test_standing_rules_and_facts_said_like_tasks_are_kept(text: str, term: str) -> None:
    found = _extract(text)
    assert found.should_remember
    assert any(term.lower() in f.content.lower() for f in found.facts), [
        f.content for f in found.facts
    ]
