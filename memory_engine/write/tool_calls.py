"""Calls of the memory tools never become memories (docs/architecture.md#f8-oversized-input).

An agent that records its own tool traffic would otherwise store ``memory_search(...)`` calls
and their results as if they were facts, and recall them forever after. Every path that stores
agent output (the MCP ``memory_write`` tool, ``engine.observe``) asks ``is_memory_tool_call``
first and refuses with a typed error.
"""

from __future__ import annotations

import json
import re
from typing import Any

from memory_engine.errors import InvalidInputError

#: The tools of the MCP server (``memory_engine.mcp_server``).
MEMORY_TOOL_NAMES = (
    "memory_write",
    "memory_search",
    "memory_update",
    "memory_delete",
    "memory_history",
)

_NAMES = "|".join(MEMORY_TOOL_NAMES)
# ``memory_search(query=...)``, ``memory_write {"content": ...}``, ``<tool_call>memory_delete``,
# ``call memory_update:`` ... anywhere in the text.
_CALL_RE = re.compile(rf"(?<![A-Za-z0-9_])(?:{_NAMES})\s*[\(\{{:]|<tool_call>\s*(?:{_NAMES})\b")
_NAME_KEYS = ("name", "tool", "tool_name", "function", "recipient_name")


def _names_in_json(value: Any, depth: int = 0) -> bool:
    if depth > 6:
        return False
    if isinstance(value, dict):
        for key in _NAME_KEYS:
            v = value.get(key)
            if isinstance(v, str) and v.split(".")[-1] in MEMORY_TOOL_NAMES:
                return True
        return any(_names_in_json(v, depth + 1) for v in value.values())
    if isinstance(value, list):
        return any(_names_in_json(v, depth + 1) for v in value[:50])
    return False


def is_memory_tool_call(text: str, *, tool_name: str | None = None) -> bool:
    """True when ``text`` (or ``tool_name``) is a call or result of one of the memory tools.

    Detects the tool name given explicitly, JSON tool-call shapes (OpenAI ``tool_calls``,
    Anthropic ``tool_use``, MCP ``tools/call`` params: any ``name``/``tool``/``function`` key
    naming a memory tool) and call syntax in plain text (``memory_search(...)``,
    ``memory_write {...}``, ``<tool_call>memory_delete``). Mentioning a tool in prose
    ("the memory_write tool is slow") is not a call.
    """
    if tool_name is not None and tool_name.split(".")[-1] in MEMORY_TOOL_NAMES:
        return True
    if _CALL_RE.search(text):
        return True
    stripped = text.strip()
    if stripped[:1] in "{[" and len(stripped) <= 1_000_000:
        try:
            return _names_in_json(json.loads(stripped))
        except ValueError:
            return False
    return False


def refuse_memory_tool_call(text: str, *, tool_name: str | None = None) -> None:
    """Raise InvalidInputError (``reason=memory_tool_call``) for a memory tool call."""
    if is_memory_tool_call(text, tool_name=tool_name):
        raise InvalidInputError(
            "calls of the memory tools are never stored as memories",
            reason="memory_tool_call",
            tool=tool_name,
        )
