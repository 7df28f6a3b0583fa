"""Write guard: the first stage of every write (docs/architecture.md#write-pipeline, docs/architecture.md#f8-oversized-input).

Validates and normalises text before anything is embedded or stored, raising a typed error for
input that must not become a memory.
"""

from __future__ import annotations

import re
from typing import Any

from pydantic import BaseModel, ConfigDict

from memory_engine.llm import toolsummary
from memory_engine.security.injection import ScreenAction, screen
from memory_engine.write import tool_calls

MEMORY_TOOL_PREFIXES = ("memory_write", "memory_search", "memory_update", "memory_delete")


# ----------------------------------------------------------------------------- untrusted input

_LOG_LINE_RE = re.compile(
    r"^\s*(?:\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}|\[?(?:DEBUG|INFO|WARN|WARNING|ERROR|TRACE)\]?\b|"
    r"at [\w.$]+\(|File \"|Traceback|\s*\^+\s*$|[-=*#]{5,})",
)


class GuardReport(BaseModel):
    """What the untrusted-input guard did to one input (recorded in the write trail)."""

    model_config = ConfigDict(frozen=True)

    memory_tool_call: bool = False
    injection: bool = False
    original_chars: int = 0
    reduced_to_chars: int | None = None
    notes: tuple[str, ...] = ()


def is_memory_tool_call(text: str, metadata: dict[str, Any] | None = None) -> bool:
    """True for a call of the engine's own memory tools (never stored: docs/architecture.md#f8-oversized-input).

    ``metadata['tool_name']`` (or ``tool``) names the tool when the caller knows it; the text
    is checked with ``memory_engine.write.tool_calls.is_memory_tool_call``.
    """
    tool = str((metadata or {}).get("tool_name") or (metadata or {}).get("tool") or "")
    if tool and tool.lower().startswith(MEMORY_TOOL_PREFIXES):
        return True
    return tool_calls.is_memory_tool_call(text, tool_name=tool or None)


def looks_like_injection(text: str, source: str = "tool_output") -> bool:
    """True when ``text`` from ``source`` must be quarantined: instruction-like text in an
    untrusted source (the rules and action table of ``memory_engine.security.injection``),
    or in a ``manual`` write (what MCP ``memory_write`` sends), which the default injection
    policy quarantines like a tool output (``security.policy.escalate``; a link alone is not
    enough)."""
    result = screen(text, source)
    if result.action is ScreenAction.QUARANTINE:
        return True
    return source == "manual" and result.flagged and bool(set(result.rules) - {"url"})


def reduce_tool_output(text: str, max_chars: int) -> str:
    """A tool output cut down for extraction: log/trace lines and repeats dropped, then at most
    ``max_chars`` characters (head and tail kept). Never stored as is; only facts extracted
    from it are."""
    seen: set[str] = set()
    kept: list[str] = []
    for line in text.splitlines():
        key = line.strip()
        if not key or key in seen or _LOG_LINE_RE.match(line):
            continue
        seen.add(key)
        kept.append(key)
    out = "\n".join(kept)
    if len(out) > max_chars:
        half = max_chars // 2
        out = out[:half] + "\n...\n" + out[-half:]
    return out


def guard_untrusted(
    text: str, *, source: str, metadata: dict[str, Any] | None, max_tool_chars: int
) -> tuple[str, GuardReport]:
    """Screen one cleaned input before extraction.

    Tool outputs longer than ``max_tool_chars`` are reduced (``reduce_tool_output``); memory
    tool calls and instruction-like injection in untrusted sources (tool outputs, imports) are
    flagged for the caller to skip or quarantine.

    Returns:
        (text to extract from, report).
    """
    notes: list[str] = []
    original = len(text)
    tool_call = is_memory_tool_call(text, metadata)
    injection = looks_like_injection(text, source)
    reduced = None
    if source == "tool_output" and len(text) > max_tool_chars:
        conclusions = toolsummary.summarise(text, tool_output=True)
        if conclusions:  # structured: its conclusions, never a cut of the payload
            text = toolsummary.render(conclusions)
            notes.append(f"tool output summarised to {len(conclusions)} conclusion(s)")
        else:
            text = reduce_tool_output(text, max_tool_chars)
            notes.append(f"tool output reduced to {len(text)} characters")
        reduced = len(text)
    if tool_call:
        notes.append("call of a memory tool: never stored")
    if injection:
        notes.append("instruction-like text in an untrusted source: quarantined")
    return text, GuardReport(
        memory_tool_call=tool_call,
        injection=injection,
        original_chars=original,
        reduced_to_chars=reduced,
        notes=tuple(notes),
    )
