"""Frames of a search trace (Query Replay): every candidate of a trace (the candidates table and
the score waterfall are in :mod:`.waterfall`), timings per stage, past searches, and the
cross-tenant alarm text.

Missing scores are NaN and missing ranks are <NA> (nullable ``Int64``), so those columns stay
numeric and sortable; the pages show them as empty cells (``st.dataframe(placeholder="")``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from memory_engine.dashboard.frames.cells import clip, fmt_time
from memory_engine.dashboard.i18n import stage_label, t
from memory_engine.models import Trace, TraceCandidate

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


def alarm_text(trace: Trace, lang: str) -> str | None:
    """The alarm message of ``trace`` in ``lang``, or None when it has no alarm."""
    if not trace.tenant_alarms:
        return None
    dropped = sum(int(a.get("dropped", 0)) for a in trace.tenant_alarms)
    stages = ", ".join(str(a.get("stage", "?")) for a in trace.tenant_alarms)
    return t("alarm.detail", lang, dropped=dropped, stages=stages)
