"""Reason codes of write decisions: why an input was (not) remembered.

A reason is ``"[code] English detail"``: the code is stable (callers and the Write Inspector
key on it, the dashboard renders it in the user's language), the detail is for logs. A reason
from an LLM provider carries no code and is shown as it is.
"""

from __future__ import annotations

import re
from enum import StrEnum


class SkipReason(StrEnum):
    """Why nothing (or not everything) of an input was stored."""

    SMALL_TALK = "small_talk"
    QUESTION = "question"
    ONE_OFF_REQUEST = "one_off_request"
    NO_FACT = "no_fact"
    TOOL_OUTPUT_UNSTRUCTURED = "tool_output_unstructured"
    MEMORY_TOOL_CALL = "memory_tool_call"
    INJECTION = "injection"
    FACTS_DROPPED = "facts_dropped"


_CODE_RE = re.compile(r"^\[(?P<code>[a-z_]+)\]\s*")


def tagged(code: SkipReason | str, detail: str) -> str:
    """``"[code] detail"``."""
    return f"[{code}] {detail}".strip()


def code_of(reason: str) -> str | None:
    """The code of a tagged reason, or None (an untagged reason, e.g. from an LLM)."""
    m = _CODE_RE.match(reason or "")
    return m.group("code") if m else None


def detail_of(reason: str) -> str:
    """The reason without its code."""
    return _CODE_RE.sub("", reason or "", count=1)
