"""Engine records -> pandas DataFrames for display.

Conventions: every date-time is text in UTC with the zone label, in one format everywhere
(``2024-05-08 13:56 UTC``, :func:`fmt_time`; also inside history and diff cells); missing
scores are NaN and missing ranks are <NA> (nullable ``Int64``), so those columns stay numeric
and sortable, and the pages show them as empty cells (``st.dataframe(placeholder="")``);
column labels come from :mod:`memory_engine.dashboard.i18n`, so every frame takes ``lang``. Every
frame that may grow is cut with :func:`bounded`, which says whether it cut anything.
"""

from __future__ import annotations

import json
import re
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import pandas as pd

from memory_engine.dashboard.i18n import drop_label, stage_label, t
from memory_engine.models import Event, Memory, Page, Trace, TraceCandidate
from memory_engine.retrieval.pipeline import delta_rank

#: Longest text shown in a table cell (the detail view shows the full text).
CELL_CHARS = 200
#: Fields of an event snapshot that change on every edit and say nothing by themselves.
NOISY_FIELDS = frozenset({"updated_at", "version", "content_hash", "embedding", "last_accessed_at"})
#: The one display format of a date-time (always UTC, always labelled).
TIME_FORMAT = "%Y-%m-%d %H:%M UTC"
#: Text that is an ISO-8601 date-time (e.g. a time inside an event snapshot).
ISO_DATETIME = re.compile(r"^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")
#: Stages of ``Trace.timings_ms`` in pipeline order (stages not listed follow, as stored).
STAGE_ORDER = (
    "expand",
    "terms",
    "embed_query",
    "dense",
    "keyword",
    "fuse",
    "session",
    "rerank",
    "weight",
    "dedupe",
    "select",
    "total",
)


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
    """``text`` cut to ``limit`` characters with an ellipsis."""
    text = text or ""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _value_text(value: Any, limit: int = 80) -> str:
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


def counts_frame(counts: Mapping[str, int], lang: str, *, label: str = "col.value") -> pd.DataFrame:
    """``{name: count}`` -> rows ``(name, count)``, largest count first (ties by name)."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return pd.DataFrame(
        {t(label, lang): [k for k, _ in items], t("col.count", lang): [v for _, v in items]}
    )


def writes_frame(writes_per_day: Sequence[tuple[str, int]], lang: str) -> pd.DataFrame:
    """``[(YYYY-MM-DD, count)]`` (UTC days) -> rows ``(day, count)`` oldest first."""
    return pd.DataFrame(
        {
            t("col.day", lang): [d for d, _ in writes_per_day],
            t("col.count", lang): [int(c) for _, c in writes_per_day],
        }
    )


def memories_frame(memories: Iterable[Memory], lang: str) -> pd.DataFrame:
    """One row per memory; ``id`` (full UUID text) is the stable key column."""
    rows = [
        {
            t("col.id", lang): str(m.id),
            t("col.content", lang): clip(m.content),
            t("col.type", lang): m.memory_type.value,
            t("col.status", lang): m.status.value,
            t("col.source", lang): m.source.value,
            t("col.importance", lang): m.importance,
            t("col.tags", lang): ", ".join(m.tags),
            t("col.created", lang): fmt_time(m.created_at),
            t("col.observed", lang): fmt_time(m.observed_at),
            t("col.version", lang): m.version,
        }
        for m in memories
    ]
    columns = [
        t(c, lang)
        for c in (
            "col.id",
            "col.content",
            "col.type",
            "col.status",
            "col.source",
            "col.importance",
            "col.tags",
            "col.created",
            "col.observed",
            "col.version",
        )
    ]
    return pd.DataFrame(rows, columns=columns)


def memory_fields_frame(memory: Memory, lang: str) -> pd.DataFrame:
    """Every field of one memory (without the vector) as rows ``(field, value)``; times in UTC."""
    data = memory.model_dump(exclude={"embedding"})
    rows = []
    for name, value in data.items():
        if isinstance(value, datetime):
            text = fmt_time(value)
        elif isinstance(value, (list, tuple)):
            text = ", ".join(str(v) for v in value)
        elif isinstance(value, dict):
            text = json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)
        elif value is None:
            text = ""
        else:
            text = str(getattr(value, "value", value))
        rows.append({t("col.field", lang): name, t("col.value", lang): text})
    return pd.DataFrame(rows)


def change_summary(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> str:
    """``field: old → new; …`` for the fields that differ between two event snapshots."""
    if not before and not after:
        return ""
    if not before:
        return f"+ {_value_text((after or {}).get('content'), 120)}"
    if not after:
        return f"− {_value_text(before.get('content'), 120)}"
    parts = []
    for key in sorted(set(before) | set(after)):
        if key in NOISY_FIELDS:
            continue
        old, new = before.get(key), after.get(key)
        if old != new:
            parts.append(f"{key}: {_value_text(old)} → {_value_text(new)}")
    return "; ".join(parts)


def events_frame(events: Iterable[Event], lang: str) -> pd.DataFrame:
    """Audit events as rows ``(time, action, actor, reason, before → after)``."""
    rows = [
        {
            t("col.time", lang): fmt_time(e.at),
            t("col.action", lang): e.action.value,
            t("col.actor", lang): e.actor,
            t("col.reason", lang): e.reason or "",
            t("col.change", lang): change_summary(e.before, e.after),
        }
        for e in events
    ]
    columns = [
        t(c, lang) for c in ("col.time", "col.action", "col.actor", "col.reason", "col.change")
    ]
    return pd.DataFrame(rows, columns=columns)


def preview_frame(preview: Mapping[str, Any], lang: str) -> pd.DataFrame:
    """``MemoryEngine.preview_update`` result -> rows ``(field, before, after)``."""
    rows = [
        {
            t("col.field", lang): name,
            t("col.before", lang): _value_text(getattr(old, "value", old), 400),
            t("col.after", lang): _value_text(getattr(new, "value", new), 400),
        }
        for name, (old, new) in preview.get("fields", {}).items()
    ]
    columns = [t(c, lang) for c in ("col.field", "col.before", "col.after")]
    return pd.DataFrame(rows, columns=columns)


CANDIDATE_COLUMNS = (
    "col.id",
    "col.content",
    "col.type",
    "col.source",
    "col.time",
    "col.cosine",
    "col.bm25",
    "col.rrf",
    "col.dense_rank",
    "col.keyword_rank",
    "col.fused_rank",
    "col.final_rank",
    "col.delta_rank",
    "col.drop",
)
NOT_FUSED = "not_fused"


def all_candidates(trace: Trace) -> list[TraceCandidate]:
    """Every candidate of a trace: ``trace.candidates`` (returned, then dropped) followed by any
    leg candidate missing from them (marked ``not_fused``; normally there is none)."""
    seen = {c.memory_id for c in trace.candidates}
    extra: list[TraceCandidate] = []
    for leg_candidates in trace.legs.values():
        for c in leg_candidates:
            if c.memory_id not in seen:
                seen.add(c.memory_id)
                extra.append(c.model_copy(update={"dropped": c.dropped or NOT_FUSED}))
    return [*trace.candidates, *extra]


def candidates_frame(trace: Trace, lang: str) -> pd.DataFrame:
    """Every candidate of ``trace`` with each score and rank (higher score is better; rank 1 is
    best; Δrank = best single-leg rank − final rank, positive when fusion moved it up)."""

    def rank(c: TraceCandidate, name: str) -> int | None:
        return c.ranks.get(name)

    rows = []
    for c in all_candidates(trace):
        rows.append(
            {
                t("col.id", lang): str(c.memory_id),
                t("col.content", lang): clip(c.content),
                t("col.type", lang): c.memory_type.value,
                t("col.source", lang): c.source.value,
                t("col.time", lang): fmt_time(c.observed_at or c.created_at),
                t("col.cosine", lang): c.scores.get("cosine"),
                t("col.bm25", lang): c.scores.get("bm25"),
                t("col.rrf", lang): c.scores.get("rrf"),
                t("col.dense_rank", lang): rank(c, "dense"),
                t("col.keyword_rank", lang): rank(c, "keyword"),
                t("col.fused_rank", lang): rank(c, "fused"),
                t("col.final_rank", lang): rank(c, "final"),
                t("col.delta_rank", lang): delta_rank(c),
                t("col.drop", lang): drop_label(c.dropped, lang),
            }
        )
    frame = pd.DataFrame(rows, columns=[t(c, lang) for c in CANDIDATE_COLUMNS])
    for key in ("col.cosine", "col.bm25", "col.rrf"):
        frame[t(key, lang)] = frame[t(key, lang)].astype("float64")
    for key in (
        "col.dense_rank",
        "col.keyword_rank",
        "col.fused_rank",
        "col.final_rank",
        "col.delta_rank",
    ):
        frame[t(key, lang)] = frame[t(key, lang)].astype("Int64")
    return frame


def ordered_stages(timings: Mapping[str, float]) -> list[str]:
    """Stage names of ``timings`` in pipeline order (``STAGE_ORDER``), unknown stages after in
    their stored order (a trace re-read from JSONB has its keys in JSONB order)."""
    known = [s for s in STAGE_ORDER if s in timings]
    return known + [s for s in timings if s not in STAGE_ORDER]


def timings_frame(trace: Trace, lang: str) -> pd.DataFrame:
    """Per-stage timings of a trace as rows ``(stage, ms)``, in pipeline order, stage names
    translated."""
    stages = ordered_stages(trace.timings_ms)
    return pd.DataFrame(
        {
            t("replay.stage", lang): [stage_label(s, lang) for s in stages],
            t("replay.ms", lang): [float(trace.timings_ms[s]) for s in stages],
        }
    )


def traces_frame(items: Iterable[Mapping[str, Any]], lang: str) -> pd.DataFrame:
    """``list_traces`` items (``{id, query, created_at, returned}``) as rows."""
    rows = [
        {
            t("col.id", lang): str(item.get("id", "")),
            t("col.time", lang): fmt_time(item.get("created_at")),
            t("col.query", lang): clip(str(item.get("query", "")), 120),
            t("col.returned", lang): item.get("returned"),
        }
        for item in items
    ]
    columns = [t(c, lang) for c in ("col.id", "col.time", "col.query", "col.returned")]
    return pd.DataFrame(rows, columns=columns)
