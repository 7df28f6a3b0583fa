"""Frames of the Retention page, from engine results and the scoring functions.

Every retention number comes from :mod:`memory_engine.scoring` with the engine's parameters,
so a value on a chart equals ``MemoryEngine.retention`` at the same ``now``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

import pandas as pd

from memory_engine import MaintenancePlan
from memory_engine.dashboard.frames.cells import clip, fmt_time
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import t
from memory_engine.models import Memory, MemoryType
from memory_engine.scoring import PRESET_ARCHIVE_FLOOR as PRESET_ARCHIVE_FLOOR
from memory_engine.scoring import PRESET_HALF_LIFE_DAYS as PRESET_HALF_LIFE_DAYS
from memory_engine.scoring import RetentionParams, decay_curve, rank_by_retention, retention_of

#: Days on the x axis of the decay curves.
CURVE_DAYS: tuple[float, ...] = tuple(float(d) for d in range(0, 181, 3))


#: Most memories the Retention page scores for its charts.
MAX_SCORED = 5_000


def retention_frame(
    memories: Iterable[Memory], now: datetime, params: RetentionParams, lang: str
) -> pd.DataFrame:
    """One row per memory, lowest retention first: id, content, type, importance, accesses,
    last access, retention (full precision)."""
    rows = [
        {
            t("col.id", lang): str(m.id),
            t("col.content", lang): clip(m.content),
            t("col.type", lang): value_label("type", m.memory_type.value, lang),
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
