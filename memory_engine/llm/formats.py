"""Output-format negotiation with an OpenAI-compatible chat endpoint, and what an HTTP 400 is
about.

Modes, best first: ``json_schema`` (structured outputs), ``json_object`` (JSON mode), ``text``
(the tolerant parser alone). A mode is given up only for an HTTP 400 that is about the
``response_format`` itself (:func:`rejects_response_format`); any other 400 (a bad parameter,
an over-long prompt) leaves the mode as it is. A step down is remembered for the model for
``recheck_seconds`` (so later calls do not pay a rejected request each), then the best mode
is tried again: an endpoint upgraded or a 400 read wrongly does not downgrade the process
for good.
"""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Callable
from typing import Any

import openai

__all__ = [
    "MODES",
    "FormatChoice",
    "exceeds_context",
    "rejects_response_format",
    "response_format",
]

MODES = ("json_schema", "json_object", "text")

_CONTEXT_CODES = frozenset({"context_length_exceeded", "string_above_max_length"})
_CONTEXT_RE = re.compile(
    r"context[ _-]?(length|window)|maximum context|too many (input )?tokens|"
    r"prompt is too long|input is too long|too long for the model|reduce the length|"
    r"exceeds? (the )?(model'?s? )?(max|maximum|token limit)",
    re.I,
)
_FORMAT_RE = re.compile(
    r"response[_ ]format|json[_ ]schema|json[_ ]object|json mode|structured output|"
    r"guided[_ ]decoding|\bschema\b",
    re.I,
)


def response_format(mode: str, name: str, schema: dict[str, Any]) -> dict[str, Any] | None:
    """The ``response_format`` request field of ``mode`` (None for ``text``)."""
    if mode == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    if mode == "json_object":
        return {"type": "json_object"}
    return None


def _error_text(exc: openai.BadRequestError) -> tuple[str, str, str]:
    """``(message + body, code, param)`` of a 400, lowercased where it is free text."""
    body = exc.body
    code = str(getattr(exc, "code", None) or "")
    param = str(getattr(exc, "param", None) or "")
    if isinstance(body, dict):
        nested = body.get("error")
        inner: dict[str, Any] = nested if isinstance(nested, dict) else body
        code = code or str(inner.get("code") or "")
        param = param or str(inner.get("param") or "")
    text = f"{exc.message} {json.dumps(body, ensure_ascii=False, default=str) if body else ''}"
    return text, code, param


def exceeds_context(exc: BaseException | None) -> bool:
    """True for an HTTP 400 saying the prompt (or prompt + max_tokens) exceeds the model's
    context window (OpenAI ``context_length_exceeded``, vLLM, Ollama, DashScope wordings)."""
    if not isinstance(exc, openai.BadRequestError):
        return False
    text, code, _ = _error_text(exc)
    return code in _CONTEXT_CODES or bool(_CONTEXT_RE.search(text))


def rejects_response_format(exc: BaseException | None) -> bool:
    """True for an HTTP 400 about the ``response_format`` field (the endpoint or the model
    lacks structured outputs / JSON mode); False for every other 400 (context length
    included)."""
    if not isinstance(exc, openai.BadRequestError) or exceeds_context(exc):
        return False
    text, _, param = _error_text(exc)
    return param.startswith("response_format") or bool(_FORMAT_RE.search(text))


class FormatChoice:
    """Which output mode to ask one model for; thread-safe.

    Args:
        fixed: one mode of ``MODES`` to always use (never stepped down), or None (auto).
        recheck_seconds: how long a step down holds before the best mode is tried again
            (>= 0; 0 = every call starts from the best mode).
        clock: monotonic seconds (injected in tests).
    """

    def __init__(
        self,
        fixed: str | None = None,
        *,
        recheck_seconds: float = 600.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        if fixed is not None and fixed not in MODES:
            raise ValueError(f"unknown response_format {fixed!r}")
        if recheck_seconds < 0:
            raise ValueError("recheck_seconds must be >= 0")
        self._fixed = fixed
        self._recheck = recheck_seconds
        self._clock = clock
        self._lock = threading.Lock()
        self._index = 0 if fixed is None else MODES.index(fixed)
        self._since = 0.0

    @property
    def fixed(self) -> bool:
        """True when one mode was configured."""
        return self._fixed is not None

    def current(self) -> str:
        """The mode a new call starts with (the best one again once a step down expired)."""
        with self._lock:
            if self._fixed is None and self._index and self._clock() - self._since >= self._recheck:
                self._index = 0
            return MODES[self._index]

    def rejected(self, mode: str) -> str | None:
        """``mode`` was refused by a 400 about ``response_format``: the next mode to try in
        this call (remembered for later calls until the recheck), or None when none is left
        (fixed mode, or ``text`` itself was refused)."""
        if self._fixed is not None or mode == MODES[-1]:
            return None
        nxt = MODES.index(mode) + 1
        with self._lock:
            if nxt > self._index:
                self._index = nxt
                self._since = self._clock()
        return MODES[nxt]
