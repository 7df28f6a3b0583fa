"""How one value shows in a table cell or a label, and bounded tables.

Every date-time is text in UTC with the zone label, in one format everywhere
(``2024-05-08 13:56 UTC``, :func:`fmt_time`; also inside history and diff cells). Every frame
that may grow is cut with :func:`bounded`, which says whether it cut anything.
"""

from __future__ import annotations

import json
import re
import uuid
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from memory_engine.dashboard.i18n import t
from memory_engine.escaping import show_invisible
from memory_engine.models import Page

#: Longest text shown in a table cell (the detail view shows the full text).
CELL_CHARS = 200


#: The one display format of a date-time (always UTC, always labelled).
TIME_FORMAT = "%Y-%m-%d %H:%M UTC"


#: Text that is an ISO-8601 date-time (e.g. a time inside an event snapshot).
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


def fmt_time(value: datetime | str | None) -> str:
    """``YYYY-MM-DD HH:MM UTC`` (naive datetimes are taken as UTC); ``""`` for None; text that
    is not an ISO date-time is returned as it is."""
    if value is None or value == "":
        return ""
    if isinstance(value, str):
        try:
            parsed = datetime.fromisoformat(value)
        except ValueError:
            return value
        value = parsed
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).strftime(TIME_FORMAT)


def short_id(value: uuid.UUID | str) -> str:
    """First 8 hex digits of an id, for labels."""
    return str(value)[:8]


def clip(text: str | None, limit: int = CELL_CHARS) -> str:
    """``text`` with its invisible formatting characters shown (``escaping.show_invisible``:
    a right-to-left override reads ``\\u202e``, never reorders the cell), cut to ``limit``
    characters with an ellipsis."""
    text = show_invisible(text or "")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def value_text(value: Any, limit: int = 80) -> str:
    if value is None:
        return "∅"
    if isinstance(value, datetime) or (isinstance(value, str) and ISO_DATETIME.match(value)):
        value = fmt_time(value)
    elif isinstance(value, (list, tuple)):
        value = ", ".join(str(v) for v in value)
    elif isinstance(value, dict):
        value = json.dumps(value, ensure_ascii=False, sort_keys=True)
    elif isinstance(value, float):
        value = f"{value:.3g}"
    return clip(str(value), limit)


def bounded(frame: pd.DataFrame, max_rows: int) -> tuple[pd.DataFrame, bool]:
    """The first ``max_rows`` rows of ``frame`` and whether rows were cut."""
    if len(frame) <= max_rows:
        return frame, False
    return frame.head(max_rows), True


def list_caption(page: Page, lang: str) -> str:
    """Caption of a bounded list: the count when the list is complete (no next page, not
    truncated; ``page.total`` may be None then), else "first N of total" (or "first N; there
    are more" when the total is unknown)."""
    shown = len(page.items)
    if not page.truncated and page.next_cursor is None:
        return t("common.all_rows", lang, total=page.total if page.total is not None else shown)
    if page.total is not None and page.total > shown:
        return t("common.truncated", lang, shown=shown, total=page.total)
    return t("common.truncated_unknown", lang, shown=shown)
