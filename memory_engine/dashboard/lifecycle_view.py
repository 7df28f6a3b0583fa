"""Data for the Retention and Audit pages: pandas frames built from engine results and the
scoring functions (no Streamlit here, so it is unit-testable; the pages only render).

Every retention number comes from :mod:`memory_engine.scoring` with the engine's parameters,
so a value on a chart equals ``MemoryEngine.retention`` at the same ``now``.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

import pandas as pd

from memory_engine.dashboard.chart_labels import value_label
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.tables import clip, fmt_time
from memory_engine.history.service import TraceComparison
from memory_engine.lifecycle.plan import MaintenancePlan
from memory_engine.models import Event, Memory, MemoryType, ensure_utc
from memory_engine.reads.spreadsheet import spreadsheet_csv
from memory_engine.scoring import RetentionParams, decay_curve, rank_by_retention, retention_of

#: Days on the x axis of the decay curves.
CURVE_DAYS: tuple[float, ...] = tuple(float(d) for d in range(0, 181, 3))
#: Most memories the Retention page scores for its charts.
MAX_SCORED = 5_000
#: Most events the Audit page loads.
MAX_EVENTS = 2_000


def retention_frame(
    memories: Iterable[Memory], now: datetime, params: RetentionParams, lang: str
) -> pd.DataFrame:
    """One row per memory, lowest retention first: id, content, type, importance, accesses,
    last access, retention (full precision)."""
    rows = [
        {
            t("col.id", lang): str(m.id),
            t("col.content", lang): clip(m.content),
            t("col.type", lang): m.memory_type.value,
            t("col.importance", lang): m.importance,
            t("col.accesses", lang): m.access_count,
            t("col.last_access", lang): fmt_time(m.last_accessed_at),
            t("col.retention", lang): value,
        }
        for m, value in rank_by_retention(memories, now, params)
    ]
    cols = ("col.id", "col.content", "col.type", "col.importance", "col.accesses")
    columns = [t(c, lang) for c in (*cols, "col.last_access", "col.retention")]
    return pd.DataFrame(rows, columns=columns)


def memory_curve_frame(
    memory: Memory, now: datetime, params: RetentionParams, lang: str
) -> pd.DataFrame:
    """Retention of one memory if untouched for each of :data:`CURVE_DAYS` days from ``now``."""
    values = decay_curve(memory, now, params, CURVE_DAYS)
    return pd.DataFrame(
        {t("retention.days_ahead", lang): list(CURVE_DAYS), t("col.retention", lang): values}
    )


def type_curves_frame(
    memories: Sequence[Memory], params: RetentionParams, lang: str
) -> pd.DataFrame:
    """Per memory type: retention at age 0..180 days of a memory with the type's mean
    importance, confidence and access count (long format: days, type, retention)."""
    rows: list[dict[str, Any]] = []
    for mtype in MemoryType:
        group = [m for m in memories if m.memory_type is mtype]
        if not group:
            continue
        n = len(group)
        importance = sum(m.importance for m in group) / n
        confidence = sum(m.confidence for m in group) / n
        accesses = round(sum(m.access_count for m in group) / n)
        for d in CURVE_DAYS:
            rows.append(
                {
                    t("retention.days_ahead", lang): d,
                    t("col.type", lang): f"{value_label('type', mtype.value, lang)} ({n})",
                    t("col.retention", lang): retention_of(
                        importance=importance,
                        confidence=confidence,
                        access_count=accesses,
                        age=d,
                        params=params,
                    ),
                }
            )
    cols = [t(c, lang) for c in ("retention.days_ahead", "col.type", "col.retention")]
    return pd.DataFrame(rows, columns=cols)


def plan_frame(plan: MaintenancePlan, action: str, lang: str) -> pd.DataFrame:
    """The planned changes of one action: id, content, retention, rule (the event reason)."""
    rows = [
        {
            t("col.id", lang): str(c.memory_id),
            t("col.content", lang): clip(c.content),
            t("col.retention", lang): c.retention,
            t("col.rule", lang): c.reason,
        }
        for c in plan.of(action)  # type: ignore[arg-type]
    ]
    cols = [t(c, lang) for c in ("col.id", "col.content", "col.retention", "col.rule")]
    return pd.DataFrame(rows, columns=cols)


# ----------------------------------------------------------------------------- audit
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


#: Columns of the Audit CSV export: the event, then its PII summary (``pii_view.add_event_pii``;
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
            t("col.type", lang): m.memory_type.value,
            t("col.status", lang): m.status.value,
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
