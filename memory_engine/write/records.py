"""Typed records passed between the steps of a write (``write/service.py`` <-> ``write/extract.py``).

* :class:`AcceptedWrite`: one input after the guard, validated once: scope checked, text
  cleaned (``text.clean_text``), metadata checked, the tenant's PII policy applied. Every
  later step reads its ``text`` instead of cleaning the input again.
* :class:`WriteAction`: one thing an extract-mode write did (or planned, in a dry run) to one
  memory. ``as_dict`` gives the JSON shape of ``WriteResult.actions`` and of the journal.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from memory_engine import text as textmod
from memory_engine.models import Scope
from memory_engine.write.raw import WriteRequest

#: How a write is processed: ``raw`` (one memory per chunk) or ``extract`` (the LLM pipeline).
WriteMode = Literal["raw", "extract"]

#: What a write did to a memory (``supersede_skipped``: the old one changed concurrently).
ActionKind = Literal["create", "duplicate", "supersede", "supersede_skipped", "supplement"]


@dataclass(frozen=True)
class AcceptedWrite:
    """A write input that passed the guard.

    Attributes:
        scope: the validated scope.
        request: the request as journalled (text redacted by the tenant's PII policy, findings
            in ``metadata["pii"]``; otherwise the caller's request unchanged).
        text: ``request.text`` cleaned (control characters removed, stripped, non-empty, at
            most ``MEMORY_MAX_INPUT_CHARS`` characters).
        mode: ``raw`` or ``extract``.
        actor: who asked for the write (audit events).
    """

    scope: Scope
    request: WriteRequest
    text: str
    mode: WriteMode
    actor: str

    @property
    def input_hash(self) -> str:
        """``text.content_hash`` of ``text``: the journal's key for exact duplicate inputs."""
        return textmod.content_hash(self.text)


@dataclass(frozen=True)
class WriteAction:
    """One action of an extract-mode write on one memory.

    Attributes:
        action: what was done (see ``ActionKind``).
        memory_id: the memory created or reinforced (for supersede/supplement: the new one).
        target_id: the older memory a supersede or supplement is about.
        content: the new memory's content (``create`` only).
        reason: the judge's reason, or ``reinforced``.
        note: why an action was not applied as decided (``changed concurrently``).
        planned: True in a dry run: decided, not applied.
    """

    action: ActionKind
    memory_id: str
    target_id: str | None = None
    content: str | None = None
    reason: str | None = None
    note: str | None = None
    planned: bool = False

    def as_dict(self) -> dict[str, Any]:
        """The JSON shape: ``action`` and ``memory_id``, then only the fields that are set."""
        out: dict[str, Any] = {"action": self.action, "memory_id": self.memory_id}
        for key in ("target_id", "content", "reason", "note"):
            value = getattr(self, key)
            if value is not None:
                out[key] = value
        if self.planned:
            out["planned"] = True
        return out
