"""Pasted turns on Context Preview (pure): role prefixes with either colon. Chinese input
methods type "：" but "用户:" (ASCII colon) and "User：" are just as common; those lines were
refused ("the first line must start with 'user:' or 'assistant:'") or glued to the previous
message."""

from __future__ import annotations

import pytest

from memory_engine.dashboard.frames.context import parse_turns
from memory_engine.errors import InvalidInputError


@pytest.mark.parametrize(
    "text",
    [
        "用户: 我下周去里斯本\n助手: 好的！",
        "用户：我下周去里斯本\n助手：好的！",
        "User：我下周去里斯本\nAssistant:好的！",
        "ｕｓｅｒ: 我下周去里斯本\nassistant： 好的！",
    ],
)
def test_role_prefixes_with_either_colon(text: str) -> None:
    assert parse_turns(text) == [("user", "我下周去里斯本"), ("assistant", "好的！")]


def test_unprefixed_lines_continue_and_a_bare_first_line_is_refused() -> None:
    assert parse_turns("user: a\nmore: text\nassistant: b") == [
        ("user", "a\nmore: text"),
        ("assistant", "b"),
    ]
    with pytest.raises(InvalidInputError):
        parse_turns("我下周去里斯本")
