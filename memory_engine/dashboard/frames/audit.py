"""Rows and frames of the Audit page: the event log (plain rows, its facets and exports),
before / after of one event, the timeline of one memory, the as-of state and a past search
then versus now.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime, timedelta, tzinfo
from difflib import SequenceMatcher
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import pandas as pd

from memory_engine import TraceComparison, spreadsheet_csv
from memory_engine.dashboard.frames.cells import clip
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import t
from memory_engine.models import Event, Memory, ensure_utc

#: Most events the Audit page loads.
MAX_EVENTS = 2_000


def zone(name: str | None) -> tzinfo:
    """The time zone named ``name`` (IANA, e.g. ``Asia/Shanghai``: the browser's,
    ``st.context.timezone``); UTC when None, empty, unknown or not a zone name (a ``?tz=``
    link can hold anything: a name too long for a file name once raised OSError)."""
    if name and len(name) <= MAX_ZONE_NAME:
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError, OSError):
            pass
    return UTC


#: Longest accepted time-zone name (the longest IANA name has 32 characters).
MAX_ZONE_NAME = 64


def event_id(raw: str | None) -> int | None:
    """The event id in a ``?event=`` value: ASCII digits, at most 18 (a 64-bit id), else None
    (``²`` or 5,000 digits are no id; ``int`` raised ValueError on both)."""
    if raw is None:
        return None
    raw = raw.strip()
    if not raw or not raw.isascii() or not raw.isdigit() or len(raw) > 18:
        return None
    return int(raw)


def local_time(value: datetime | str | None, tz: tzinfo) -> str:
    """``YYYY-MM-DD HH:MM:SS UTC+08:00`` in ``tz`` (seconds, no fraction; naive = UTC);
    ``""`` for None or text that is not a time."""
    when = snapshot_time(value)
    if when is None:
        return ""
    here = when.astimezone(tz)
    offset = here.utcoffset() or timedelta(0)
    minutes = int(offset.total_seconds() // 60)
    sign = "+" if minutes >= 0 else "-"
    hours, mins = divmod(abs(minutes), 60)
    return f"{here:%Y-%m-%d %H:%M:%S} UTC{sign}{hours:02d}:{mins:02d}"


def event_content(event: Event) -> str:
    """The memory's content as the event stored it (after, else before; ``[purged]`` once
    erased; ``""`` for events without a snapshot)."""
    snap = event.after or event.before or {}
    value = snap.get("content")
    return value if isinstance(value, str) else ""


def changed_fields(event: Event) -> list[str]:
    """Fields whose value differs between the event's before and after snapshots (sorted;
    every field of the one snapshot when the other is missing)."""
    before, after = event.before or {}, event.after or {}
    if not before and not after:
        return []
    return sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))


def event_rows(events: Iterable[Event], tz: tzinfo = UTC) -> list[dict[str, Any]]:
    """Events as plain JSON-ready dicts (the table and the exports): ``at`` ISO 8601 UTC,
    ``at_local`` in ``tz``, ``content`` as stored, ``changed`` field names, and ``before``/
    ``after``: the changed fields' values (``details`` for events without snapshots)."""
    rows = []
    for e in events:
        changed = changed_fields(e)
        rows.append(
            {
                "id": e.id,
                "at": e.at.isoformat(),
                "at_local": local_time(e.at, tz),
                "day": e.at.astimezone(tz).date().isoformat(),
                "action": e.action.value,
                "actor": e.actor,
                "memory_id": str(e.memory_id) if e.memory_id else "",
                "content": event_content(e),
                "reason": e.reason or "",
                "changed": changed,
                "before": {k: (e.before or {}).get(k) for k in changed} if e.before else None,
                "after": {k: (e.after or {}).get(k) for k in changed} if e.after else None,
                "details": e.details or None,
            }
        )
    return rows


#: Columns of the event table on the page (row keys), in order; headers ``audit.col_<key>``.
TABLE_COLUMNS = ("id", "at_local", "action", "actor", "memory_id", "content", "reason", "pii")


def table_frame(rows: Sequence[Mapping[str, Any]], lang: str) -> pd.DataFrame:
    """The event table: translated headers and action labels, content clipped for the cell
    (the full text is in the exports and the event's view)."""
    data = [
        {
            t(f"audit.col_{k}", lang): (
                value_label("action", r["action"], lang)
                if k == "action"
                else clip(r.get(k))
                if k in ("content", "reason")
                else r.get(k, "")
            )
            for k in TABLE_COLUMNS
        }
        for r in rows
    ]
    return pd.DataFrame(data, columns=[t(f"audit.col_{k}", lang) for k in TABLE_COLUMNS])


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


#: Columns of the Audit CSV export: the event (``at`` in UTC, ``at_local`` in the viewer's time
#: zone), the content as stored, the changed fields with their values before and after (JSON
#: text), then its PII summary (``frames.pii.add_event_pii``; empty when the event's memory had
#: no findings). The JSON export has the same keys (objects instead of JSON text) plus
#: ``day``, ``details``.
AUDIT_CSV_FIELDS = (
    "id",
    "at",
    "at_local",
    "action",
    "actor",
    "memory_id",
    "content",
    "reason",
    "changed",
    "before",
    "after",
    "pii",
)


def export_bytes(rows: Sequence[Mapping[str, Any]], fmt: str) -> bytes:
    """``rows`` as UTF-8 ``json``, or ``csv`` for spreadsheets (``csvsafe.spreadsheet_csv``,
    columns ``AUDIT_CSV_FIELDS``; lists and objects as JSON text)."""
    if fmt == "json":
        return json.dumps(list(rows), ensure_ascii=False, indent=1).encode("utf-8")
    flat = [
        {k: (_cell(r.get(k)) if k in ("changed", "before", "after") else r.get(k)) for k in r}
        for r in rows
    ]
    return spreadsheet_csv(flat, AUDIT_CSV_FIELDS)


def diff_frame(event: Event, lang: str, *, all_fields: bool = False) -> pd.DataFrame:
    """The fields an event changed, before and after (``all_fields``: every field, changed
    first)."""
    before, after = event.before or {}, event.after or {}
    changed = set(changed_fields(event))
    keys = sorted(
        (k for k in set(before) | set(after) if all_fields or k in changed),
        key=lambda k: (k not in changed, k),
    )
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


def text_diff(before: str, after: str) -> list[tuple[str, str]]:
    """Word-level diff of two texts as ``(op, text)`` segments in order: ``=`` kept, ``-``
    removed, ``+`` added (whitespace kept with the words; CJK text compares per character)."""
    split = re.compile(r"\s+|[\u3400-\u9fff]|[^\s\u3400-\u9fff]+")
    a, b = split.findall(before), split.findall(after)
    out: list[tuple[str, str]] = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(("=", "".join(a[i1:i2])))
            continue
        if i2 > i1:
            out.append(("-", "".join(a[i1:i2])))
        if j2 > j1:
            out.append(("+", "".join(b[j1:j2])))
    return out


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


def timeline_range(events: Sequence[Event]) -> tuple[datetime, datetime] | None:
    """The x range of a memory's timeline: its first to its last event, padded by a tenth of
    the span on each side (one hour each side for a single instant); None without events."""
    if not events:
        return None
    times = [ensure_utc(e.at) for e in events]
    start, end = min(times), max(times)  # type: ignore[type-var]
    assert start is not None and end is not None
    pad = (end - start) / 10 if end > start else timedelta(hours=1)
    return start - pad, end + pad


def timeline_frame(events: Iterable[Event], lang: str, tz: tzinfo = UTC) -> pd.DataFrame:
    """One row per event of a memory: time (in ``tz``), action, actor, version after, reason."""
    rows = [
        {
            t("audit.col_time", lang): e.at.astimezone(tz).replace(tzinfo=None),
            t("col.action", lang): value_label("action", e.action.value, lang),
            t("col.actor", lang): e.actor,
            t("col.version", lang): (e.after or e.before or {}).get("version"),
            t("col.reason", lang): e.reason or "",
        }
        for e in events
    ]
    cols = [
        t(c, lang)
        for c in ("audit.col_time", "col.action", "col.actor", "col.version", "col.reason")
    ]
    return pd.DataFrame(rows, columns=cols)


def state_frame(memories: Iterable[Memory], lang: str, tz: tzinfo = UTC) -> pd.DataFrame:
    """Memories of an as-of state: id, content, type, status (translated), valid from/until
    (in ``tz``), version."""
    keys = ("col.id", "col.content", "col.type", "col.status", "audit.col_valid_from")
    cols = [t(k, lang) for k in (*keys, "audit.col_valid_until", "col.version")]
    rows = [
        dict(
            zip(
                cols,
                (
                    str(m.id),
                    clip(m.content),
                    value_label("type", m.memory_type.value, lang),
                    value_label("status", m.status.value, lang),
                    local_time(m.valid_from, tz),
                    local_time(m.valid_until, tz),
                    m.version,
                ),
                strict=True,
            )
        )
        for m in memories
    ]
    return pd.DataFrame(rows, columns=cols)


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
