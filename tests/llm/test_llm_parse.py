"""Tolerant parsing of model output (docs/architecture.md#f4-malformed-output), unit level."""

from __future__ import annotations

import pytest

from memory_engine.llm.parse import (
    OutputParseError,
    load_json_object,
    parse_extraction,
    parse_judgement,
    strip_reasoning,
)

GOOD = '{"should_remember": true, "reason": "r", "facts": [{"content": "用户喜欢川菜"}]}'


@pytest.mark.parametrize(
    "raw",
    [
        GOOD,
        f"```json\n{GOOD}\n```",
        f"```\n{GOOD}\n```",
        f"<think>The user said 喜欢. {{not json}}</think>\n{GOOD}",
        f"reasoning without an opening tag</think>{GOOD}",
        f"{GOOD}\n\nI extracted one fact because the user likes food.",
        f"Here you go:\n{GOOD}",
    ],
)
def test_wrapped_json_is_found(raw: str) -> None:
    extraction, warnings = parse_extraction(raw)
    assert extraction.should_remember is True
    assert [f.content for f in extraction.facts] == ["用户喜欢川菜"]
    assert warnings == []


@pytest.mark.parametrize(
    "raw",
    [
        "",
        "   ",
        "<think>still thinking",
        '{"should_remember": true, "facts": [{"content": "x"',
        "no json here",
        '{"reason": "missing flag", "facts": []}',
        "[1, 2]",
    ],
)
def test_unusable_output_raises(raw: str) -> None:
    with pytest.raises(OutputParseError):
        parse_extraction(raw)


def test_invalid_item_skipped_with_warning() -> None:
    raw = (
        '{"should_remember": true, "reason": "", "facts": ['
        '{"content": "The user likes tea"}, {"memory_type": "semantic"}, '
        '{"content": "x", "importance": 7}]}'
    )
    extraction, warnings = parse_extraction(raw)
    assert [f.content for f in extraction.facts] == ["The user likes tea"]
    assert len(warnings) == 2
    assert "fact 1 skipped" in warnings[0] and "content" in warnings[0]
    assert "fact 2 skipped" in warnings[1]


def test_all_items_invalid_is_an_error_not_zero_facts() -> None:
    with pytest.raises(OutputParseError, match="every fact was invalid"):
        parse_extraction('{"should_remember": true, "facts": [{"tags": []}]}')


def test_judge_unknown_index_dropped_valid_kept() -> None:
    raw = (
        '{"decisions": [{"candidate": 12, "relation": "contradicts"},'
        ' {"candidate": 1, "relation": "contradicts"},'
        ' {"candidate": 0, "relation": "explodes"},'
        ' {"candidate": 1, "relation": "duplicate"}]}'
    )
    judgement, warnings = parse_judgement(raw, shown=5)
    assert [(d.candidate, d.relation) for d in judgement.decisions] == [(1, "contradicts")]
    assert any("candidate 12 was not shown (shown 0-4)" in w for w in warnings)
    assert len(warnings) == 3


def test_strip_reasoning_and_first_object() -> None:
    assert strip_reasoning("<think>a</think>b<thinking>c</thinking>") == "b"
    assert load_json_object('text {"a": {"b": 1}} tail {"c": 2}') == {"a": {"b": 1}}
