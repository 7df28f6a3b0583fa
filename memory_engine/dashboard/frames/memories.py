"""Frames of the Memories page: the table of one page of memories, the fields of one memory,
its history (events with a before -> after summary) and the diff preview of an edit.

Column labels come from :mod:`memory_engine.dashboard.i18n`, so every frame takes ``lang``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

import pandas as pd

from memory_engine.dashboard.frames.cells import clip, fmt_time, value_text
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import t
from memory_engine.escaping import show_invisible
from memory_engine.models import Event, Memory

#: Fields of an event snapshot that change on every edit and say nothing by themselves.
NOISY_FIELDS = frozenset({"updated_at", "version", "content_hash", "embedding", "last_accessed_at"})


def memories_frame(memories: Iterable[Memory], lang: str) -> pd.DataFrame:
    """One row per memory; ``id`` (full UUID text) is the stable key column."""
    rows = [
        {
            t("col.id", lang): str(m.id),
            t("col.content", lang): clip(m.content),
            t("col.type", lang): value_label("type", m.memory_type.value, lang),
            t("col.status", lang): value_label("status", m.status.value, lang),
            t("col.source", lang): value_label("source", m.source.value, lang),
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


#: Fields of a memory holding a stored enum value, and the kind of its label (``value.*``).
_ENUM_FIELDS = {"memory_type": "type", "status": "status", "source": "source"}


def memory_fields_frame(memory: Memory, lang: str) -> pd.DataFrame:
    """Every field of one memory (without the vector) as rows ``(field, value)``; times in UTC;
    invisible formatting characters shown as ``\\uXXXX`` (``escaping.show_invisible``)."""
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
        elif name in _ENUM_FIELDS:
            text = value_label(_ENUM_FIELDS[name], str(getattr(value, "value", value)), lang)
        else:
            text = str(getattr(value, "value", value))
        rows.append({t("col.field", lang): name, t("col.value", lang): show_invisible(text)})
    return pd.DataFrame(rows)


def change_summary(before: Mapping[str, Any] | None, after: Mapping[str, Any] | None) -> str:
    """``field: old → new; …`` for the fields that differ between two event snapshots."""
    if not before and not after:
        return ""
    if not before:
        return f"+ {value_text((after or {}).get('content'), 120)}"
    if not after:
        return f"− {value_text(before.get('content'), 120)}"
    parts = []
    for key in sorted(set(before) | set(after)):
        if key in NOISY_FIELDS:
            continue
        old, new = before.get(key), after.get(key)
        if old != new:
            parts.append(f"{key}: {value_text(old)} → {value_text(new)}")
    return "; ".join(parts)


def events_frame(events: Iterable[Event], lang: str) -> pd.DataFrame:
    """Audit events as rows ``(time, action, actor, reason, before → after)``."""
    rows = [
        {
            t("col.time", lang): fmt_time(e.at),
            t("col.action", lang): value_label("action", e.action.value, lang),
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
            t("col.before", lang): value_text(getattr(old, "value", old), 400),
            t("col.after", lang): value_text(getattr(new, "value", new), 400),
        }
        for name, (old, new) in preview.get("fields", {}).items()
    ]
    columns = [t(c, lang) for c in ("col.field", "col.before", "col.after")]
    return pd.DataFrame(rows, columns=columns)
