"""Conversation formats read by ``memory-engine ingest`` and ``MemoryEngine.ingest``.

* ``openai``: a JSON list (or JSONL) of chat messages ``{"role", "content", "name"?,
  "timestamp"|"created_at"?, "session_id"?}``, or an object ``{"session_id"|"id"?, "messages":
  [...]}``; ``content`` may be a list of ``{"type": "text", "text"}`` parts. Session: the
  message's ``session_id``, else the caller's (``memory-engine ingest --session``), else the
  object's ``session_id``/``id``, else one derived from the file name
  (``session_from_name``); turn index: 0, 1, ... per session, in file order, counting the
  turns kept (system and tool messages are not turns).
* ``locomo``: the LoCoMo JSON (a list of samples with ``sample_id`` and ``conversation``); one
  turn per utterance: ``Speaker said, "text"`` plus ``[shared image: caption]`` when present,
  session date as ``observed_at``, ``dia_id`` as ``source_ref``, session ``<sample>-s<n>`` and
  turn index = the utterance's position in its session, from 1 (``D3:12`` is turn 12).
* ``text``: plain text; one turn per blank-line separated paragraph. A document has no
  conversation structure: no session, no turn index (``p<i>`` is only a reference).

The explicit structure (``Turn.session_id``, ``Turn.turn_index``) is what session smoothing
uses (``retrieval.session``); it is stored as ``Memory.session_id`` and
``metadata["turn"]`` (``models.TURN_KEY``).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from dateutil import parser as dateparser
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from memory_engine.errors import IngestFormatError, quoted
from memory_engine.models import ID_PATTERN, MAX_TURN_INDEX
from memory_engine.text import detect_script

Format = Literal["openai", "locomo", "text"]


#: Chinese names of the chat roles in the Chinese speaker template (other names are kept).
_ZH_ROLES = {"user": "用户", "assistant": "助手", "system": "系统"}


class Turn(BaseModel):
    """One conversation turn to remember as one episodic memory.

    ``session_id`` and ``turn_index`` are the turn's explicit conversation structure (its
    session and its 0-based or 1-based position there, as the format numbers them); None when
    the source has none (a document paragraph).
    """

    model_config = ConfigDict(frozen=True)

    speaker: str | None = None
    text: str
    observed_at: datetime | None = None  # UTC
    turn_id: str | None = None
    session_id: str | None = None
    turn_index: int | None = Field(default=None, ge=0, le=MAX_TURN_INDEX, strict=True)
    metadata: dict[str, Any] = Field(default_factory=dict)

    def content(self) -> str:
        """The memory content, in the template of the turn's script (``text.detect_script``):

        * Latin script: ``Speaker said, "text"`` (plus `` [shared image: caption]``);
        * Chinese: ``用户说：“text”`` (``user``/``assistant``/``system`` named 用户/助手/系统,
          other speakers as given, plus ``［图片：caption］``);
        * Japanese, Korean or mixed script: the language-neutral ``Speaker: text``;
        * no speaker: the text alone.
        """
        body = self.text.strip()
        caption = self.metadata.get("image_caption")
        script = detect_script(body)
        if script == "zh":
            body = f"{body}［图片：{caption}］" if caption else body
            if not self.speaker:
                return body
            name = _ZH_ROLES.get(self.speaker.lower(), self.speaker)
            return f"{name}说：“{body}”"
        if caption:
            body = f"{body} [shared image: {caption}]"
        if not self.speaker:
            return body
        if script == "latin":
            return f'{self.speaker} said, "{body}"'
        return f"{self.speaker}: {body}"


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


def session_from_name(path: Path) -> str:
    """A session id for a chat file that names none: its file name without the extension,
    reduced to ``[A-Za-z0-9_.:-]`` (at most 64 characters); ``chat-<10 hex>`` (a hash of the
    name) when nothing of it is left (e.g. a Chinese file name)."""
    stem = re.sub(r"[^A-Za-z0-9_.:-]+", "-", path.stem).strip("-.")[:64]
    if stem:
        return stem
    return "chat-" + hashlib.sha256(path.stem.encode("utf-8")).hexdigest()[:10]


def _session_of(where: str, value: Any) -> str:
    """A session id given in a file, checked. Raises IngestFormatError when malformed."""
    sid = str(value) if isinstance(value, (str, int)) and not isinstance(value, bool) else None
    if sid is None or not ID_PATTERN.match(sid):
        raise IngestFormatError(
            f"{where}: session id must match [A-Za-z0-9_.:-]{{1,64}}, got {quoted(value)}"
        )
    return sid


def read_openai(path: Path, session_id: str | None = None) -> list[Turn]:
    """Read OpenAI chat messages (JSON list, ``{"messages": [...]}`` or JSONL).

    Args:
        session_id: the session of messages that name none (default: the file's own
            ``session_id``/``id``, else ``session_from_name``).

    Returns:
        One turn per user/assistant message with text, each with its session and turn index
        (0, 1, ... per session, in file order).

    Raises:
        IngestFormatError: unreadable file, no message list, a message without ``role``, a bad
            timestamp or session id.
    """
    raw = _read(path)
    try:
        data: Any = json.loads(raw)
    except json.JSONDecodeError:
        try:
            data = [json.loads(line) for line in raw.splitlines() if line.strip()]
        except json.JSONDecodeError as exc:
            raise IngestFormatError(f"{path}: neither JSON nor JSONL ({exc})") from exc
    default = session_id
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        if default is None:
            given = data.get("session_id", data.get("id"))
            default = _session_of(str(path), given) if given is not None else None
        data = data["messages"]
    if isinstance(data, dict) and "role" in data:
        data = [data]  # a JSONL file of one message
    if not isinstance(data, list):
        raise IngestFormatError(f"{path}: expected a list of chat messages")
    default = default or session_from_name(path)
    turns = []
    next_index: dict[str, int] = {}
    for i, msg in enumerate(data):
        if not isinstance(msg, dict) or "role" not in msg:
            raise IngestFormatError(f"{path}: message {i} has no 'role'", index=i)
        if msg["role"] in ("system", "tool") or msg.get("tool_calls"):
            continue  # instructions and tool calls are not conversation memories
        text = _message_text(msg.get("content"))
        if not text.strip():
            continue
        where = f"{path}: message {i}"
        sid = _session_of(where, msg["session_id"]) if "session_id" in msg else default
        index = next_index.get(sid, 0)
        next_index[sid] = index + 1
        turns.append(
            _turn(
                where,
                speaker=str(msg.get("name") or msg["role"]),
                text=text,
                observed_at=parse_time(msg.get("timestamp") or msg.get("created_at")),
                turn_id=str(msg.get("id", i)),
                session_id=sid,
                turn_index=index,
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
                        turn_index=j + 1,  # dia_id D<n>:<j+1>
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
