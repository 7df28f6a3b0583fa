"""Write guard: the first stage of every write (DESIGN.md section 5, FAILURES.md section 8).

Validates and normalises text before anything is embedded or stored, raising a typed error for
input that must not become a memory.
"""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from pydantic import BaseModel, ConfigDict

from memory_engine.errors import ContentTooLargeError, EmptyContentError, InvalidInputError

MEMORY_TOOL_PREFIXES = ("memory_write", "memory_search", "memory_update", "memory_delete")


def clean_text(
    text: object, *, max_chars: int, field: str = "text", limit_name: str = "MEMORY_MAX_INPUT_CHARS"
) -> str:
    """Return ``text`` with NUL and other C0 control characters (except tab/newline) removed.

    Args:
        text: caller input; must be ``str``.
        max_chars: largest accepted length in characters (before cleaning).
        field: name used in error messages.
        limit_name: where the limit comes from, named in the error message.

    Raises:
        InvalidInputError: not a string.
        ContentTooLargeError: longer than ``max_chars`` characters.
        EmptyContentError: empty, whitespace-only, or only control characters.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{field} must be a string, got {type(text).__name__}", field=field)
    if len(text) > max_chars:
        raise ContentTooLargeError(
            f"{field} has {len(text):,} characters; the limit is {max_chars:,} ({limit_name})",
            field=field,
            length=len(text),
            limit=max_chars,
        )
    cleaned = "".join(
        ch for ch in text if ch in "\t\n" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    if not cleaned.strip():
        raise EmptyContentError(f"{field} is empty or whitespace-only", field=field)
    return cleaned.strip()


# ----------------------------------------------------------------------------- untrusted input

_MEMORY_TOOL_CALL_RE = re.compile(
    r"^\s*(?:[{\[]\s*\"?(?:tool|name|function)\"?\s*:\s*\"?|call(?:ing)?\s+|tool:\s*)?"
    r"(?:" + "|".join(MEMORY_TOOL_PREFIXES) + r")\b",
    re.I,
)
_INJECTION_RE = re.compile(
    r"ignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) (?:instructions|prompts?|rules)|"
    r"disregard (?:all |the )?(?:previous|prior|above) |forget (?:all )?(?:your|previous) instructions|"
    r"you are now (?:a|an|in) |new instructions?:|system prompt|developer mode|"
    r"(?:send|post|upload|leak|reveal|exfiltrate)\b[^.\n]{0,40}\b(?:api[ _-]?key|password|token|"
    r"secret|credentials)|"
    r"忽略(?:之前|以上|前面|上面)(?:的)?(?:所有)?(?:指令|指示|提示|规则)|无视(?:之前|以上)(?:的)?(?:指令|规则)|"
    r"(?:发送|泄露|上传)[^。\n]{0,20}(?:密钥|密码|令牌|api ?key)|系统提示词|你现在是",
    re.I,
)
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
    """True for a call of the engine's own memory tools (never stored: FAILURES.md section 8)."""
    tool = str((metadata or {}).get("tool_name") or (metadata or {}).get("tool") or "")
    if tool and tool.lower().startswith(MEMORY_TOOL_PREFIXES):
        return True
    return bool(_MEMORY_TOOL_CALL_RE.match(text))


def looks_like_injection(text: str) -> bool:
    """True when ``text`` holds instruction-like text aimed at the assistant (zh + en)."""
    return bool(_INJECTION_RE.search(text))


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
    untrusted = source in ("tool_output", "import")
    injection = untrusted and looks_like_injection(text)
    reduced = None
    if source == "tool_output" and len(text) > max_tool_chars:
        text = reduce_tool_output(text, max_tool_chars)
        reduced = len(text)
        notes.append(f"tool output reduced to {reduced} characters")
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
