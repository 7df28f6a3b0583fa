"""Rows and frames of the Audit page: the event log (plain rows, its facets and exports),
before / after of one event, the timeline of one memory, the as-of state and a past search
then versus now.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import pandas as pd

from memory_engine import TraceComparison, spreadsheet_csv
from memory_engine.dashboard.frames.cells import clip, fmt_time
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import label, t
from memory_engine.models import Event, Memory, ensure_utc

#: Most events the Audit page loads.
MAX_EVENTS = 2_000


def event_rows(events: Iterable[Event]) -> list[dict[str, Any]]:
    """Events as plain JSON-ready dicts (for the table and the exports)."""
    return [
        {
            "id": e.id,
            "at": e.at.isoformat(),
            "day": e.at.date().isoformat(),
            "action": e.action.value,
            "actor": e.actor,
            "memory_id": str(e.memory_id) if e.memory_id else "",
            "reason": e.reason or "",
        }
        for e in events
    ]


#: Table header of each event row key (``event_rows``); other keys (the PII summary) are shown
#: under ``col.<key>`` when the catalog has it, else as they are.
_EVENT_COLUMNS = {
    "id": "col.event_id",
    "at": "col.time",
    "day": "col.day",
    "action": "col.action",
    "actor": "col.actor",
    "memory_id": "col.memory",
    "reason": "col.reason",
}


def events_table(rows: Sequence[Mapping[str, Any]], lang: str) -> pd.DataFrame:
    """Event rows (``event_rows``, filtered) for display: headers and actions in ``lang``,
    times as ``YYYY-MM-DD HH:MM UTC``; the rows themselves (and the exports) keep the ids."""
    shown = []
    for r in rows:
        row = {}
        for key, value in r.items():
            if key == "action":
                value = value_label("action", str(value), lang)
            elif key == "at":
                value = fmt_time(str(value))
            row[label(_EVENT_COLUMNS.get(key, f"col.{key}"), lang, key)] = value
        shown.append(row)
    return pd.DataFrame(shown)


def facet_counts(rows: Sequence[Mapping[str, Any]], key: str) -> dict[str, int]:
    """Counts of ``key`` over ``rows``, largest first."""
    return dict(Counter(str(r[key]) for r in rows).most_common())


def filter_rows(
    rows: Sequence[Mapping[str, Any]],
    *,
    actions: Sequence[str] = (),
    actors: Sequence[str] = (),
    days: Sequence[str] = (),
) -> list[Mapping[str, Any]]:
    """Rows matching every non-empty facet selection."""
    return [
        r
        for r in rows
        if (not actions or r["action"] in actions)
        and (not actors or r["actor"] in actors)
        and (not days or r["day"] in days)
    ]


#: Columns of the Audit CSV export: the event, then its PII summary (``frames.pii.add_event_pii``;
#: empty when the event's memory had no findings). The JSON export also has the derived ``day``.
AUDIT_CSV_FIELDS = ("id", "at", "action", "actor", "memory_id", "reason", "pii")


def export_bytes(rows: Sequence[Mapping[str, Any]], fmt: str) -> bytes:
    """``rows`` as UTF-8 ``json``, or ``csv`` for spreadsheets (``csvsafe.spreadsheet_csv``,
    columns ``AUDIT_CSV_FIELDS``)."""
    if fmt == "json":
        return json.dumps(list(rows), ensure_ascii=False, indent=1).encode("utf-8")
    return spreadsheet_csv(rows, AUDIT_CSV_FIELDS)


def diff_frame(event: Event, lang: str) -> pd.DataFrame:
    """Field-by-field before/after of one event (changed fields first)."""
    before, after = event.before or {}, event.after or {}
    keys = sorted(set(before) | set(after), key=lambda k: (before.get(k) == after.get(k), k))
    rows = [
        {
            t("col.field", lang): k,
            t("col.before", lang): _cell(before.get(k)),
            t("col.after", lang): _cell(after.get(k)),
        }
        for k in keys
    ]
    cols = [t(c, lang) for c in ("col.field", "col.before", "col.after")]
    return pd.DataFrame(rows, columns=cols)


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, (list, dict)):
        return json.dumps(value, ensure_ascii=False, sort_keys=True)
    return str(value)


def snapshot_time(value: Any) -> datetime | None:
    """A time field of an event snapshot (ISO 8601 text, as snapshots store it, or a
    datetime) as an aware UTC datetime; None when missing or not a time."""
    if isinstance(value, str):
        try:
            value = datetime.fromisoformat(value)
        except ValueError:
            return None
    return ensure_utc(value) if isinstance(value, datetime) else None


def timeline_frame(events: Iterable[Event], lang: str) -> pd.DataFrame:
    """One row per event of a memory: time, action, actor, version after, reason."""
    rows = [
        {
            t("col.time", lang): e.at,
            t("col.action", lang): value_label("action", e.action.value, lang),
            t("col.actor", lang): e.actor,
            t("col.version", lang): (e.after or e.before or {}).get("version"),
            t("col.reason", lang): e.reason or "",
        }
        for e in events
    ]
    cols = [
        t(c, lang) for c in ("col.time", "col.action", "col.actor", "col.version", "col.reason")
    ]
    return pd.DataFrame(rows, columns=cols)


def state_frame(memories: Iterable[Memory], lang: str) -> pd.DataFrame:
    """Memories of an as-of state: id, content, type, status, valid from/until, version."""
    rows = [
        {
            t("col.id", lang): str(m.id),
            t("col.content", lang): clip(m.content),
            t("col.type", lang): value_label("type", m.memory_type.value, lang),
            t("col.status", lang): value_label("status", m.status.value, lang),
            "valid_from": fmt_time(m.valid_from),
            "valid_until": fmt_time(m.valid_until),
            t("col.version", lang): m.version,
        }
        for m in memories
    ]
    cols = [t(c, lang) for c in ("col.id", "col.content", "col.type", "col.status")]
    return pd.DataFrame(rows, columns=[*cols, "valid_from", "valid_until", t("col.version", lang)])


def comparison_frame(cmp: TraceComparison, lang: str) -> pd.DataFrame:
    """Rows of a then-versus-now comparison: change, id, content, ranks and rrf scores."""
    rows = [
        {
            t("col.what", lang): t(f"audit.change_{group}", lang),
            t("col.id", lang): str(c.memory_id),
            t("col.content", lang): clip(c.content),
            t("col.rank_then", lang): c.rank_then,
            t("col.rank_now", lang): c.rank_now,
            t("col.rrf_then", lang): c.rrf_then,
            t("col.rrf_now", lang): c.rrf_now,
        }
        for group in ("entered", "left", "moved", "unchanged")
        for c in getattr(cmp, group)
    ]
    keys = ("col.what", "col.id", "col.content", "col.rank_then", "col.rank_now")
    cols = [t(k, lang) for k in (*keys, "col.rrf_then", "col.rrf_now")]
    return pd.DataFrame(rows, columns=cols)
