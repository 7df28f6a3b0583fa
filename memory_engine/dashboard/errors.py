"""Show engine errors as one readable message (``st.error``), never a traceback.

``error_message`` maps an exception to the localised text (pure, unit-tested);
``show_error`` renders it; ``guard`` is a context manager for page code::

    with guard(lang) as g:          # stop=True: on error, show it and stop the page
        stats = engine.stats(scope)

    with guard(lang, stop=False) as g:
        engine.update(...)
    if g.failed: ...
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

import streamlit as st
from pydantic import ValidationError

from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.errors import (
    ConfigError,
    InvalidInputError,
    MemoryEngineError,
    MemoryNotFoundError,
    StoreUnavailableError,
    VersionConflictError,
)

log = logging.getLogger(__name__)


def error_message(exc: BaseException, lang: str) -> str:
    """The one-line message the dashboard shows for ``exc`` (no traceback, no repr)."""
    if isinstance(exc, MemoryEngineError):
        key = "error.engine"
        if isinstance(exc, StoreUnavailableError):
            key = "error.store_unavailable"
        elif isinstance(exc, VersionConflictError):
            key = "error.version_conflict"
        elif isinstance(exc, MemoryNotFoundError):
            return _not_found_message(exc, lang)
        elif isinstance(exc, ConfigError):
            key = "error.config"
        elif isinstance(exc, InvalidInputError):
            key = "error.invalid_input"
        return t(key, lang, message=exc.message)
    if isinstance(exc, ValidationError):  # e.g. a bad MEMORY_* environment variable
        details = exc.errors()
        if not details:
            return t("error.config", lang, message=str(exc).splitlines()[0])
        where = ".".join(str(p) for p in details[0]["loc"])
        return t("error.config", lang, message=f"{where}: {details[0]['msg']}".strip(": "))
    return t("error.unexpected", lang, kind=type(exc).__name__, message=str(exc)[:300])


def _not_found_message(exc: MemoryNotFoundError, lang: str) -> str:
    """One sentence naming what was not found (the engine's own text would repeat it)."""
    for detail, key in (
        ("trace_id", "error.trace_not_found"),
        ("memory_id", "error.memory_not_found"),
    ):
        if exc.details.get(detail) is not None:
            return t(key, lang, id=str(exc.details[detail])[:80])
    return t("error.not_found", lang, message=exc.message.rstrip(".")[:300])  # may quote a link


def show_error(exc: BaseException, lang: str) -> None:
    """Render ``exc`` as ``st.error``, shown literally (not as Markdown: messages quote input);
    unexpected errors are logged with their traceback."""
    if not isinstance(exc, (MemoryEngineError, ValidationError)):
        log.exception("unexpected dashboard error", exc_info=exc)
    st.error(md(error_message(exc, lang)), icon="⚠️")  # messages quote input


@dataclass
class Outcome:
    """What happened inside a ``guard`` block."""

    error: BaseException | None = None

    @property
    def failed(self) -> bool:
        """True when the block raised (and the error was shown)."""
        return self.error is not None


@contextmanager
def guard(lang: str, *, stop: bool = True) -> Iterator[Outcome]:
    """Show any error of the block with ``show_error``; then ``st.stop()`` unless ``stop=False``.

    ``st.stop``/``st.rerun``/``st.switch_page`` are not errors and pass through (they derive
    from ``BaseException``).
    """
    outcome = Outcome()
    try:
        yield outcome
    except Exception as exc:  # noqa: BLE001 - the UI boundary: never show a traceback
        outcome.error = exc
        show_error(exc, lang)
        if stop:
            st.stop()
