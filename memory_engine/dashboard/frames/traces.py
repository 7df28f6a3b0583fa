"""Frames of a search trace (Query Replay): every candidate with each score and rank, timings
per stage, past searches, and the cross-tenant alarm text.

Missing scores are NaN and missing ranks are <NA> (nullable ``Int64``), so those columns stay
numeric and sortable; the pages show them as empty cells (``st.dataframe(placeholder="")``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from memory_engine import delta_rank
from memory_engine.dashboard.frames.cells import clip, fmt_time
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import drop_label, stage_label, t
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
                t("col.type", lang): value_label("type", c.memory_type.value, lang),
                t("col.source", lang): value_label("source", c.source.value, lang),
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


def alarm_text(trace: Trace, lang: str) -> str | None:
    """The alarm message of ``trace`` in ``lang``, or None when it has no alarm."""
    if not trace.tenant_alarms:
        return None
    dropped = sum(int(a.get("dropped", 0)) for a in trace.tenant_alarms)
    stages = ", ".join(str(a.get("stage", "?")) for a in trace.tenant_alarms)
    return t("alarm.detail", lang, dropped=dropped, stages=stages)
