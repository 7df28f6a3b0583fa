"""Conversation formats read by ``memory-engine ingest`` and ``MemoryEngine.ingest``.

* ``openai``: a JSON list (or JSONL) of chat messages ``{"role", "content", "name"?,
  "timestamp"|"created_at"?}``; ``content`` may be a list of ``{"type": "text", "text"}`` parts.
* ``locomo``: the LoCoMo JSON (a list of samples with ``sample_id`` and ``conversation``); one
  turn per utterance: ``Speaker said, "text"`` plus ``[shared image: caption]`` when present,
  session date as ``observed_at``, ``dia_id`` as ``source_ref``.
* ``text``: plain text; one turn per blank-line separated paragraph.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from dateutil import parser as dateparser
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_engine.errors import IngestFormatError

Format = Literal["openai", "locomo", "text"]


class Turn(BaseModel):
    """One conversation turn to remember as one episodic memory."""

    model_config = ConfigDict(frozen=True)

    speaker: str | None = None
    text: str
    observed_at: datetime | None = None  # UTC
    turn_id: str | None = None
    session_id: str | None = None
    metadata: dict[str, Any] = Field(default_factory=dict)

    def content(self) -> str:
        """The memory content: ``Speaker said, "text"`` or the text alone."""
        body = self.text.strip()
        caption = self.metadata.get("image_caption")
        if caption:
            body = f"{body} [shared image: {caption}]"
        return f'{self.speaker} said, "{body}"' if self.speaker else body


def _read(path: Path) -> str:
    """File text as UTF-8. Raises IngestFormatError for unreadable or non-UTF-8 files."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise IngestFormatError(
            f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})"
        ) from exc
    except OSError as exc:
        raise IngestFormatError(f"{path}: cannot read ({exc.strerror})") from exc


def _turn(where: str, **fields: Any) -> Turn:
    """Build a Turn, turning a validation failure into IngestFormatError naming ``where``."""
    try:
        return Turn(**fields)
    except ValidationError as exc:
        first = exc.errors()[0]
        loc = ".".join(str(p) for p in first.get("loc", ()))
        raise IngestFormatError(f"{where}: field {loc!r}: {first.get('msg')}") from exc


def parse_time(value: Any) -> datetime | None:
    """Parse a timestamp (ISO 8601, LoCoMo's "1:56 pm on 8 May, 2023", epoch seconds) to UTC.

    Naive times are taken as UTC. Raises IngestFormatError when unparseable.
    """
    if value in (None, ""):
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise IngestFormatError(f"unreadable timestamp {value!r}")
    try:
        if isinstance(value, (int, float)):
            return datetime.fromtimestamp(float(value), UTC)
        text = str(value).replace(" on ", " ")
        dt = dateparser.parse(text)
    except (ValueError, OverflowError) as exc:
        raise IngestFormatError(f"unreadable timestamp {value!r}") from exc
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def _message_text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(
            p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text"
        )
    return ""


def read_openai(path: Path) -> list[Turn]:
    """Read OpenAI chat messages (JSON list, ``{"messages": [...]}`` or JSONL)."""
    raw = _read(path)
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise IngestFormatError(f"{path}: neither JSON nor JSONL ({exc})") from exc
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        data = data["messages"]
    if not isinstance(data, list):
        raise IngestFormatError(f"{path}: expected a list of chat messages")
    turns = []
    for i, msg in enumerate(data):
        if not isinstance(msg, dict) or "role" not in msg:
            raise IngestFormatError(f"{path}: message {i} has no 'role'", index=i)
        if msg["role"] in ("system", "tool") or msg.get("tool_calls"):
            continue  # instructions and tool calls are not conversation memories
        text = _message_text(msg.get("content"))
        if not text.strip():
            continue
        turns.append(
            _turn(
                f"{path}: message {i}",
                speaker=str(msg.get("name") or msg["role"]),
                text=text,
                observed_at=parse_time(msg.get("timestamp") or msg.get("created_at")),
                turn_id=str(msg.get("id", i)),
            )
        )
    return turns


def _locomo_sessions(conv: dict[str, Any]) -> Iterator[tuple[int, list[dict[str, Any]], Any]]:
    nums = sorted(int(m.group(1)) for k in conv if (m := re.fullmatch(r"session_(\d+)", k)))
    for n in nums:
        yield n, conv[f"session_{n}"], conv.get(f"session_{n}_date_time")


def read_locomo(path: Path, conversation: str | None = None) -> dict[str, list[Turn]]:
    """Read LoCoMo samples: ``sample_id`` -> turns (one per utterance), in session order."""
    try:
        data = json.loads(_read(path))
    except json.JSONDecodeError as exc:
        raise IngestFormatError(f"{path}: not JSON ({exc})") from exc
    if not isinstance(data, list) or not all(
        isinstance(s, dict) and "conversation" in s for s in data
    ):
        raise IngestFormatError(f"{path}: expected a LoCoMo list of samples with 'conversation'")
    out: dict[str, list[Turn]] = {}
    for sample in data:
        sid = str(sample.get("sample_id"))
        if conversation and sid != conversation:
            continue
        turns = []
        conv = sample["conversation"]
        if not isinstance(conv, dict):
            raise IngestFormatError(f"{path}: {sid}: 'conversation' must be an object")
        for n, session, when in _locomo_sessions(conv):
            observed = parse_time(when)
            if not isinstance(session, list):
                raise IngestFormatError(f"{path}: {sid}: session_{n} must be a list")
            for j, utt in enumerate(session):
                if not isinstance(utt, dict):
                    raise IngestFormatError(f"{path}: {sid}: session_{n}[{j}] must be an object")
                meta = {"session": n}
                if utt.get("blip_caption"):
                    meta["image_caption"] = utt["blip_caption"]
                turns.append(
                    _turn(
                        f"{path}: {sid}: session_{n}[{j}]",
                        speaker=utt.get("speaker"),
                        text=utt.get("text", ""),
                        observed_at=observed,
                        turn_id=utt.get("dia_id"),
                        session_id=f"{sid}-s{n}",
                        metadata=meta,
                    )
                )
        out[sid] = turns
    if conversation and conversation not in out:
        held = sorted(str(s.get("sample_id")) for s in data)
        listed = ", ".join(held[:20]) + (f" (+{len(held) - 20} more)" if len(held) > 20 else "")
        raise IngestFormatError(
            f"{path}: no conversation {conversation!r}; have {listed or 'none'}"
        )
    return out


def read_text(path: Path) -> list[Turn]:
    """Plain text: one turn per paragraph (blank-line separated)."""
    paragraphs = [p.strip() for p in re.split(r"\n\s*\n", _read(path))]
    return [Turn(text=p, turn_id=f"p{i}") for i, p in enumerate(paragraphs) if p]
