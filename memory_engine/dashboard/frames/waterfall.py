"""Frames of the score waterfall, the block accounting and the stale-fact warnings (Query
Replay, Conflicts), from the engine's pure views (``waterfall``, ``block_accounting``,
``stale_facts``). Column labels come from the catalog, so every header is in the UI language;
missing scores are NaN and missing ranks <NA> (nullable ``Int64``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import pandas as pd

from memory_engine import (
    BlockAccounting,
    CandidateWaterfall,
    StaleFact,
    Trace,
    Waterfall,
    WaterfallStep,
    score_label,
)
from memory_engine.dashboard.frames.cells import clip, fmt_time, short_id
from memory_engine.dashboard.i18n import drop_label, label, t
from memory_engine.dashboard.markdown import md

__all__ = [
    "accounting_lines_frame",
    "movement_text",
    "near_misses_frame",
    "scores_frame",
    "stage_totals_frame",
    "stale_report_frame",
    "stale_text",
    "step_label",
    "steps_frame",
    "waterfall_frame",
]


def step_label(step: WaterfallStep, lang: str) -> str:
    """A stage of the waterfall in ``lang``: ``leg dense``, ``fusion (zscore)`` ..."""
    return t(f"wf.stage.{step.stage}", lang, name=step.name)


def movement_text(c: CandidateWaterfall, lang: str) -> str:
    """Rank movement from fusion to the returned list: ``↑39 (fused #42 → #3)``."""
    if c.fused_rank is None:
        return ""
    if c.final_rank is None:
        return t("wf.move.dropped", lang, fused=c.fused_rank)
    moved = c.fused_rank - c.final_rank
    if moved > 0:
        return t("wf.move.up", lang, n=moved, fused=c.fused_rank, final=c.final_rank)
    if moved < 0:
        return t("wf.move.down", lang, n=-moved, fused=c.fused_rank, final=c.final_rank)
    return t("wf.move.same", lang, fused=c.fused_rank)


def _moved_by(c: CandidateWaterfall, lang: str) -> str:
    return label(f"wf.by.{c.moved_by}", lang, c.moved_by) if c.moved_by else ""


def waterfall_frame(
    wf: Waterfall, lang: str, extra: Iterable[Mapping[str, Any]] = ()
) -> pd.DataFrame:
    """The default candidates table: final rank, full content, the deciding score, the rank
    movement and the stage that moved it, the drop reason, the id. ``extra``: rows of
    candidates outside the fused pool (``{"id", "content", "dropped"}``)."""
    rows = [
        {
            t("col.final_rank", lang): c.final_rank,
            t("col.content", lang): c.content,
            t("wf.col.deciding", lang): c.final_score,
            t("wf.col.movement", lang): movement_text(c, lang),
            t("wf.col.moved_by", lang): _moved_by(c, lang),
            t("col.drop", lang): drop_label(c.dropped, lang),
            t("col.id", lang): str(c.memory_id),
        }
        for c in wf.candidates
    ]
    rows += [
        {
            t("col.content", lang): e["content"],
            t("col.drop", lang): drop_label(e["dropped"], lang),
            t("col.id", lang): str(e["id"]),
        }
        for e in extra
    ]
    keys: tuple[str, ...] = ("col.final_rank", "col.content", "wf.col.deciding")
    keys += ("wf.col.movement", "wf.col.moved_by", "col.drop", "col.id")
    frame = pd.DataFrame(rows, columns=[t(k, lang) for k in keys])
    frame[t("col.final_rank", lang)] = frame[t("col.final_rank", lang)].astype("Int64")
    frame[t("wf.col.deciding", lang)] = frame[t("wf.col.deciding", lang)].astype("float64")
    return frame.fillna({t("wf.col.movement", lang): "", t("wf.col.moved_by", lang): ""})


def scores_frame(trace: Trace, wf: Waterfall, lang: str) -> pd.DataFrame:
    """Every score and rank of every candidate, one column group per stage in pipeline order
    (one group per leg, by the leg's name; the fused column named after the fusion used)."""
    by_id = {c.memory_id: c for c in trace.candidates}
    rows = []
    for c in wf.candidates:
        tc = by_id.get(c.memory_id)
        row: dict[str, Any] = {
            t("col.id", lang): str(c.memory_id),
            t("col.content", lang): c.content,
            t("col.type", lang): label(
                f"value.type.{tc.memory_type.value}", lang, tc.memory_type.value
            )
            if tc
            else "",
            t("col.time", lang): fmt_time(tc.observed_at or tc.created_at) if tc else "",
        }
        for step in c.steps:
            row.update(_step_columns(step, wf, lang))
        row[t("col.final_rank", lang)] = c.final_rank
        row[t("wf.col.movement", lang)] = movement_text(c, lang)
        row[t("col.drop", lang)] = drop_label(c.dropped, lang)
        rows.append(row)
    frame = pd.DataFrame(rows)
    for col in frame.columns:
        if col.endswith(("rank", "排名")) or col in (t("wf.col.weighted_rank", lang),):
            frame[col] = frame[col].astype("Int64")
    return frame


def _step_columns(step: WaterfallStep, wf: Waterfall, lang: str) -> dict[str, Any]:
    if step.stage == "leg":
        score = step.score or ""
        out: dict[str, Any] = {t("wf.col.leg_score", lang, leg=step.name, score=score): step.value}
        if wf.fusion != "rrf":
            out[t("wf.col.leg_norm", lang, leg=step.name)] = step.normalised
        out[t("wf.col.leg_rank", lang, leg=step.name)] = step.rank
        return out
    if step.stage == "fuse":
        return {
            t("wf.col.fused", lang, fusion=step.name): step.value,
            t("col.fused_rank", lang): step.rank,
        }
    if step.stage == "session":
        return {
            t("wf.col.session", lang): step.value,
            t("wf.col.lift", lang): step.contribution,
            t("wf.col.session_rank", lang): step.rank,
        }
    if step.stage == "rerank":
        return {t("wf.col.rerank", lang): step.value, t("wf.col.rerank_rank", lang): step.rank}
    if step.stage == "type_weight":
        return {t("wf.col.type_weight", lang): step.value}
    if step.stage == "retention":
        return {t("wf.col.retention", lang): step.value, t("wf.col.weighted_rank", lang): step.rank}
    if step.stage == "threshold":
        return {t("wf.col.rrf", lang): step.value}
    return {t("wf.col.deciding", lang): step.value}


def _note(step: WaterfallStep, lang: str) -> str:
    if step.stage == "leg" and step.rank is None:
        return t("wf.note.not_returned", lang)
    if step.stage == "session" and step.source is not None and (step.contribution or 0) > 0:
        return t(
            "wf.note.lift", lang, lift=f"{step.contribution:.4f}", source=short_id(step.source)
        )
    if step.stage == "threshold":
        if step.passed is False:
            return t("wf.note.cut", lang, reason=drop_label(step.reason, lang))
        if step.value is not None and step.limit is not None:
            return t("wf.note.passed", lang, value=f"{step.value:.5f}", limit=step.limit)
    if step.stage == "final" and step.reason:
        return t("wf.note.cut", lang, reason=drop_label(step.reason, lang))
    return ""


def steps_frame(c: CandidateWaterfall, lang: str) -> pd.DataFrame:
    """One candidate's waterfall: one row per stage in pipeline order."""
    rows = [
        {
            t("wf.col.stage", lang): step_label(s, lang),
            t("wf.col.score", lang): score_label(s.score) if s.score else "",
            t("wf.col.value", lang): s.value,
            t("wf.col.normalised", lang): s.normalised,
            t("wf.col.weight", lang): s.weight,
            t("wf.col.contribution", lang): s.contribution,
            t("wf.col.rank", lang): s.rank,
            t("wf.col.note", lang): _note(s, lang),
        }
        for s in c.steps
    ]
    frame = pd.DataFrame(rows)
    frame[t("wf.col.rank", lang)] = frame[t("wf.col.rank", lang)].astype("Int64")
    for key in ("wf.col.value", "wf.col.normalised", "wf.col.weight", "wf.col.contribution"):
        frame[t(key, lang)] = frame[t(key, lang)].astype("float64")
    return frame


# ----------------------------------------------------------------------------- block


def accounting_lines_frame(acc: BlockAccounting, lang: str) -> pd.DataFrame:
    """The block's memories: line number, content, tokens."""
    return pd.DataFrame(
        {
            t("col.final_rank", lang): [line.rank for line in acc.lines],
            t("col.content", lang): [line.content for line in acc.lines],
            t("wf.acc.tokens", lang): [line.tokens for line in acc.lines],
        }
    )


def _need_text(rule: str, needs: Mapping[str, float], lang: str) -> str:
    if rule == "dedupe":
        return t("wf.need.dedupe", lang)
    if not needs:
        return t("wf.need.other", lang)
    parts = []
    for name, value in needs.items():
        shown = f"{value:.5f}".rstrip("0") if isinstance(value, float) else str(value)
        parts.append(label(f"wf.need.{name}", lang, name).format(value=shown))
    return "; ".join(parts)


def _rule_text(rule: str, reason: str, lang: str) -> str:
    """The rule that cut a near miss; the drop reason beside it when the rule alone does not
    say which check it was (a threshold, another rule)."""
    if rule in ("threshold", "other", "status"):
        return f"{t(f'wf.rule.{rule}', lang)} ({drop_label(reason, lang)})"
    return t(f"wf.rule.{rule}", lang)


def near_misses_frame(acc: BlockAccounting, lang: str) -> pd.DataFrame:
    """The candidates that just missed: content, the rule that cut each, its deciding score,
    what its line costs and what would include it."""
    rows = [
        {
            t("col.content", lang): m.content,
            t("wf.acc.rule", lang): _rule_text(m.rule, m.reason, lang),
            t("wf.col.deciding", lang): m.final_score,
            t("wf.acc.tokens", lang): m.tokens,
            t("wf.acc.needs", lang): _need_text(m.rule, m.needs, lang),
            t("col.id", lang): str(m.memory_id),
        }
        for m in acc.near_misses
    ]
    keys = ("col.content", "wf.acc.rule", "wf.col.deciding", "wf.acc.tokens")
    frame = pd.DataFrame(rows, columns=[t(k, lang) for k in (*keys, "wf.acc.needs", "col.id")])
    frame[t("wf.col.deciding", lang)] = frame[t("wf.col.deciding", lang)].astype("float64")
    return frame


def stage_totals_frame(acc: BlockAccounting, lang: str) -> pd.DataFrame:
    """Per stage: candidates left, the tokens of their content, the time spent (ms)."""
    return pd.DataFrame(
        {
            t("wf.col.stage", lang): [
                label(f"wf.accstage.{s.stage}", lang, s.stage) for s in acc.stages
            ],
            t("wf.acc.candidates", lang): [s.candidates for s in acc.stages],
            t("wf.acc.tokens", lang): [s.tokens for s in acc.stages],
            t("wf.acc.ms", lang): pd.array([s.ms for s in acc.stages], dtype="Float64"),
        }
    )


# ----------------------------------------------------------------------------- stale facts


def _score(value: float | None) -> str:
    return "—" if value is None else f"{value:.4f}"


def stale_text(fact: StaleFact, lang: str) -> str:
    """One stale-fact warning in ``lang`` (markdown; contents are shown separately)."""
    if fact.current_rank is not None:
        where = t("stale.where_rank", lang, rank=fact.current_rank)
    elif fact.current_dropped:
        where = t("stale.where_dropped", lang, reason=drop_label(fact.current_dropped, lang))
    else:
        where = t("stale.where_absent", lang)
    fields = {
        "older_rank": fact.older_rank,
        "older_score": _score(fact.older_score),
        "current_score": _score(fact.current_score),
        "current_where": where,
    }
    if fact.kind == "same_entity":
        return t("stale.same_entity", lang, entity=md(fact.entity or ""), **fields)
    return t("stale.superseded", lang, **fields)


def stale_report_frame(
    items: Iterable[tuple[Mapping[str, Any], StaleFact]], lang: str
) -> pd.DataFrame:
    """The tenant report: one row per (trace summary, stale fact) pair."""
    rows = []
    for trace, fact in items:
        kind = (
            t("stale.kind.same_entity", lang, entity=fact.entity or "")
            if fact.kind == "same_entity"
            else t("stale.kind.superseded", lang)
        )
        rows.append(
            {
                t("stale.col.when", lang): fmt_time(trace.get("created_at")),
                t("stale.col.query", lang): clip(str(trace.get("query", "")), 120),
                t("stale.col.kind", lang): kind,
                t("stale.col.older", lang): fact.older_content,
                t("stale.col.older_score", lang): fact.older_score,
                t("stale.col.current", lang): fact.current_content,
                t("stale.col.current_score", lang): fact.current_score,
            }
        )
    keys: tuple[str, ...] = ("stale.col.when", "stale.col.query", "stale.col.kind")
    keys += ("stale.col.older",)
    keys += ("stale.col.older_score", "stale.col.current", "stale.col.current_score")
    frame = pd.DataFrame(rows, columns=[t(k, lang) for k in keys])
    for key in ("stale.col.older_score", "stale.col.current_score"):
        frame[t(key, lang)] = frame[t(key, lang)].astype("float64")
    return frame
