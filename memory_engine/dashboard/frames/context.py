"""Context Preview: pasted turns, and the frames of an assembled context."""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pandas as pd

from memory_engine import ContextResult, InvalidInputError, message_tokens
from memory_engine.config import Settings
from memory_engine.context.service import TASK_TYPE_PREFERENCES
from memory_engine.context.working import WorkingMemory, WorkingView
from memory_engine.context.working_store import InProcessWorkingStore
from memory_engine.dashboard.i18n import t

#: Task types of the engine's prompt assembly (``MemoryEngine.context(task_type=...)``).
TASK_TYPES: tuple[str, ...] = tuple(TASK_TYPE_PREFERENCES)
#: Session id of pasted turns (a throw-away working memory, never stored).
PASTE_SESSION = "context-preview"
#: Pasted messages accepted at most.
MAX_PASTED_MESSAGES = 2000


#: Role prefixes, matched on an NFKC-normalised, case-folded line: "：" and "ｕｓｅｒ" count too
#: (NFKC maps each of those characters to one character, so the prefix length is unchanged).
_PREFIXES = {"user:": "user", "assistant:": "assistant", "用户:": "user", "助手:": "assistant"}


def parse_turns(text: str) -> list[tuple[str, str]]:
    """Pasted turns -> ``[(role, content)]``.

    Accepts a JSON array of ``{"role", "content"}`` objects, or lines starting with ``user:`` /
    ``assistant:`` (also ``用户：`` / ``助手：``; either colon, any case or width); a line without a
    prefix continues the previous message. Roles other than user/assistant are refused.

    Raises:
        InvalidInputError: nothing parseable, a bad role, or more than ``MAX_PASTED_MESSAGES``.
    """
    stripped = text.strip()
    turns: list[tuple[str, str]] = []
    if stripped.startswith("["):
        try:
            data = json.loads(stripped)
        except json.JSONDecodeError as exc:
            raise InvalidInputError(f"invalid JSON: {exc.msg} (line {exc.lineno})") from exc
        for i, item in enumerate(data if isinstance(data, list) else []):
            if not isinstance(item, dict) or item.get("role") not in ("user", "assistant"):
                raise InvalidInputError(f"item {i}: needs role 'user' or 'assistant'", index=i)
            if not isinstance(item.get("content"), str):
                raise InvalidInputError(f"item {i}: content must be a string", index=i)
            turns.append((item["role"], item["content"]))
    else:
        for line in stripped.splitlines():
            low = unicodedata.normalize("NFKC", line.lstrip()).lower()
            for prefix, role in _PREFIXES.items():
                if low.startswith(prefix):
                    turns.append((role, line.lstrip()[len(prefix) :].strip()))
                    break
            else:
                if turns:
                    turns[-1] = (turns[-1][0], turns[-1][1] + "\n" + line)
                elif line.strip():
                    raise InvalidInputError(
                        "the first line must start with 'user:' or 'assistant:'"
                    )
    if not turns:
        raise InvalidInputError("no turns found")
    if len(turns) > MAX_PASTED_MESSAGES:
        raise InvalidInputError(f"at most {MAX_PASTED_MESSAGES} messages", count=len(turns))
    return turns


def section_label(name: str, lang: str) -> str:
    return t(f"ctx.section.{name}", lang)


def sections_frame(result: ContextResult, lang: str) -> pd.DataFrame:
    """One row per section (in prompt order): label, tokens, messages."""
    return pd.DataFrame(
        [
            {
                t("ctx.col.section", lang): section_label(s.name, lang),
                t("ctx.col.tokens", lang): s.tokens,
                t("ctx.col.messages", lang): s.items,
            }
            for s in result.sections
        ]
    )


def message_rows(result: ContextResult, lang: str) -> list[dict[str, Any]]:
    """Each message with its section label and tokens (``label``, ``content``)."""
    section_of: dict[int, str] = {}
    for s in result.sections:
        for i in range(s.first, s.last + 1) if s.items else ():
            section_of[i] = s.name
    return [
        {
            "label": t(
                "ctx.message_label",
                lang,
                index=i + 1,
                section=section_label(section_of[i], lang),
                role=m["role"],
                tokens=message_tokens(m["content"]),
            ),
            "content": m["content"],
        }
        for i, m in enumerate(result.messages)
    ]


def memories_frame(result: ContextResult, lang: str) -> pd.DataFrame:
    """Recalled memories: id, content, type, included, why."""
    return pd.DataFrame(
        [
            {
                "id": str(m.id),
                "content": m.content,
                "type": m.memory_type.value,
                t("ctx.col.included", lang): m.included,
                t("ctx.col.why", lang): m.why,
            }
            for m in result.memories
        ]
    )


def trimmed_frame(result: ContextResult, lang: str) -> pd.DataFrame:
    """What the budget removed, in trimming order: section, what, tokens."""
    return pd.DataFrame(
        [
            {
                t("ctx.col.section", lang): section_label(x.section, lang),
                t("ctx.col.what", lang): x.what,
                t("ctx.col.tokens", lang): x.tokens,
            }
            for x in result.trimmed
        ]
    )


def pasted_view(turns: list[tuple[str, str]], tenant: str, settings: Settings) -> WorkingView:
    """The working-memory view of pasted ``turns`` (as the engine would keep them), built in
    a throw-away in-process store: nothing is stored."""
    wm = WorkingMemory(InProcessWorkingStore(), settings)
    wm.add_many(tenant, PASTE_SESSION, turns)  # type: ignore[arg-type]
    return wm.view(tenant, PASTE_SESSION)
