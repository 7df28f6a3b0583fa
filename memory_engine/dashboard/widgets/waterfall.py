"""Query Replay (and the Conflicts page's stale-fact report): the candidates with the score that decides their order and how far each
moved, one candidate's whole score waterfall (table and chart), the memory block accounting
with its near misses, and the stale-fact warnings with one-click links to each memory's history.

Data from the engine's pure views (``waterfall``, ``block_accounting``, ``stale_facts``);
frames and texts from :mod:`..frames.waterfall`.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Any

import plotly.graph_objects as go
import streamlit as st
from plotly.subplots import make_subplots

from memory_engine import (
    CandidateWaterfall,
    MemoryEngine,
    Scope,
    Trace,
    Waterfall,
    block_accounting,
    stale_facts,
)
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import waterfall as frames
from memory_engine.dashboard.frames.cells import bounded, clip, short_id
from memory_engine.dashboard.frames.traces import NOT_FUSED, all_candidates
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.url_state import FLAG, UUID_TEXT, UrlParam, UrlState

W_ALL = "mi_wf_all"
W_PICK = "mi_wf_pick"
#: This widget's view state in the URL: ``all=1`` (every score and rank shown) and ``cand``
#: (the candidate whose waterfall is open).
URL_PARAMS = (UrlParam("all", W_ALL, FLAG), UrlParam("cand", W_PICK, UUID_TEXT))
MAX_ROWS = 500
MAX_PICK = 200
MEMORIES_PAGE = "pages/memories.py"
REPLAY_PAGE = "pages/query_replay.py"


def _bind(url: UrlState | None, name: str, key: str) -> dict[str, Any]:
    return url.bind(name) if url is not None else {"key": key}


def render_candidates(trace: Trace, wf: Waterfall, lang: str, url: UrlState | None = None) -> None:
    """The candidates table (deciding score and movement by default; every score and rank on
    request) and the details panel of one candidate.

    Args:
        url: the page's URL state holding :data:`URL_PARAMS` (restored before this call), so
            the toggle and the picked candidate survive a reload; None keeps them in the
            session only.
    """
    base = "session" if "session" in trace.stages else "fused"
    if any(s.startswith("rerank:") for s in trace.stages):
        base = "rerank"
    st.caption(t("replay.order_caption", lang, base=t(f"wf.base.{base}", lang), fusion=wf.fusion))
    show_all = st.toggle(t("replay.show_all", lang), **_bind(url, "all", W_ALL))
    if show_all:
        frame = frames.scores_frame(trace, wf, lang)
    else:
        extra = [
            {"id": c.memory_id, "content": c.content, "dropped": c.dropped}
            for c in all_candidates(trace)
            if c.dropped == NOT_FUSED
        ]
        frame = frames.waterfall_frame(wf, lang, extra)
    shown, cut = bounded(frame, MAX_ROWS)
    st.dataframe(
        shown,
        hide_index=True,
        key="mi_candidates",
        column_config={
            t("col.content", lang): st.column_config.TextColumn(width="large"),
            t("col.id", lang): st.column_config.TextColumn(width="small"),
            t("wf.col.deciding", lang): st.column_config.NumberColumn(format="%.4f"),
        },
        placeholder="",
    )
    if cut:
        st.caption(t("common.truncated", lang, shown=MAX_ROWS, total=len(frame)))
    render_details(wf, lang, url)


def _chart(c: CandidateWaterfall, lang: str) -> go.Figure:
    steps = [s for s in c.steps if s.value is not None or s.rank is not None]
    names = [frames.step_label(s, lang) for s in steps]
    fig = make_subplots(rows=2, cols=1, shared_xaxes=True, vertical_spacing=0.08)
    fig.add_trace(
        go.Bar(
            x=names,
            y=[s.value for s in steps],
            text=[f"{s.value:.3f}" if s.value is not None else "" for s in steps],
            name=t("wf.chart.score", lang),
        ),
        row=1,
        col=1,
    )
    ranked = [(n, s.rank) for n, s in zip(names, steps, strict=True) if s.rank is not None]
    fig.add_trace(
        go.Scatter(
            x=[n for n, _ in ranked],
            y=[r for _, r in ranked],
            mode="lines+markers+text",
            text=[f"#{r}" for _, r in ranked],
            textposition="top center",
            name=t("wf.chart.rank", lang),
        ),
        row=2,
        col=1,
    )
    fig.update_yaxes(title_text=t("wf.chart.score", lang), row=1, col=1)
    fig.update_yaxes(title_text=t("wf.chart.rank", lang), autorange="reversed", row=2, col=1)
    fig.update_layout(height=460, margin={"l": 10, "r": 10, "t": 10, "b": 10}, showlegend=False)
    return fig


def render_details(wf: Waterfall, lang: str, url: UrlState | None = None) -> None:
    """Pick a candidate (default: the first returned) and show its content in full, every
    stage of its score as a table and as a chart (``url``: see :func:`render_candidates`)."""
    if not wf.candidates:
        return
    options = {
        str(c.memory_id): (f"#{c.final_rank} · " if c.final_rank else "— · ") + clip(c.content, 70)
        for c in wf.candidates[:MAX_PICK]
    }
    st.markdown(f"**{t('replay.details', lang)}**")
    if st.session_state.get(W_PICK) not in options:  # none picked, or not of this trace
        if url is not None and st.session_state.get(W_PICK) is not None:
            url.set("cand", None)
        st.session_state[W_PICK] = next(iter(options))
    picked = st.selectbox(
        t("replay.pick_candidate", lang),
        list(options),
        format_func=options.__getitem__,
        placeholder=t("common.choose_one", lang),
        **_bind(url, "cand", W_PICK),
    )
    chosen = next((c for c in wf.candidates if str(c.memory_id) == picked), wf.candidates[0])
    st.markdown(f"{t('replay.full_content', lang)}: {md(chosen.content)}")
    st.markdown(
        f"**{t('replay.waterfall', lang)}** · {frames.movement_text(chosen, lang)}"
        f" · {t('wf.col.deciding', lang)} "
        + ("—" if chosen.final_score is None else f"{chosen.final_score:.4f}")
    )
    st.dataframe(
        frames.steps_frame(chosen, lang),
        hide_index=True,
        key="mi_wf_steps",
        placeholder="",
        column_config={
            t(k, lang): st.column_config.NumberColumn(format="%.4f")
            for k in ("wf.col.value", "wf.col.normalised", "wf.col.weight", "wf.col.contribution")
        },
    )
    st.plotly_chart(_chart(chosen, lang), key="mi_wf_chart")


def render_accounting(trace: Trace, lang: str) -> None:
    """The block's memories with tokens, the near misses with the rule that cut each and what
    would include it, and the totals per stage."""
    acc = block_accounting(trace)
    st.markdown(f"**{t('replay.accounting', lang)}**")
    budget = acc.token_budget or t("replay.unlimited", lang)
    st.caption(
        t(
            "replay.acc_summary",
            lang,
            lines=len(acc.lines),
            used=acc.used_tokens,
            budget=budget,
            k=acc.k if acc.k is not None else "—",
        )
    )
    st.markdown(t("replay.acc_lines", lang))
    st.dataframe(
        frames.accounting_lines_frame(acc, lang),
        hide_index=True,
        key="mi_acc_lines",
        column_config={t("col.content", lang): st.column_config.TextColumn(width="large")},
    )
    st.markdown(t("replay.near_misses", lang))
    if acc.near_misses:
        counts = Counter(m.rule for m in acc.near_misses)
        rules = ", ".join(f"{t(f'wf.rule.{rule}', lang)} × {n}" for rule, n in counts.items())
        st.caption(t("replay.miss_summary", lang, n=len(acc.near_misses), rules=rules))
        st.dataframe(
            frames.near_misses_frame(acc, lang),
            hide_index=True,
            key="mi_acc_misses",
            placeholder="",
            column_config={
                t("col.content", lang): st.column_config.TextColumn(width="large"),
                t("wf.col.deciding", lang): st.column_config.NumberColumn(format="%.4f"),
            },
        )
    else:
        st.caption(t("replay.no_near_misses", lang))
    st.markdown(t("replay.stage_totals", lang))
    st.dataframe(
        frames.stage_totals_frame(acc, lang), hide_index=True, key="mi_acc_stages", placeholder=""
    )


def render_stale(trace: Trace, lang: str, tenant: str) -> None:
    """A warning per returned memory that outranks the memory replacing it, both contents and
    scores, and a link to each one's history (Memories page, ``?memory=``)."""
    facts = stale_facts(trace)
    if not facts:
        return
    st.markdown(f"**{t('replay.stale_header', lang)}**")
    for fact in facts:
        with st.container(border=True):
            st.warning(frames.stale_text(fact, lang))
            st.markdown(t("stale.older", lang, content=md(fact.older_content)))
            if fact.current_content:
                st.markdown(t("stale.current", lang, content=md(fact.current_content)))
            c1, c2 = st.columns(2)
            with c1:
                history_link(t("stale.older_history", lang), tenant, lang, str(fact.older_id))
            with c2:
                history_link(t("stale.current_history", lang), tenant, lang, str(fact.current_id))


def history_link(text: str, tenant: str, lang: str, memory_id: str) -> None:
    """One click to a memory's history (Memories page with ``?memory=<id>``)."""
    st.page_link(
        MEMORIES_PAGE,
        label=f"{text} ({short_id(memory_id)})",
        query_params={"tenant": tenant, "lang": lang, "memory": memory_id},
        icon=":material/history:",
    )


#: Recent searches the stale-fact report reads.
REPORT_TRACES = 30
#: Stale facts the report links to (the table lists them all).
REPORT_LINKS = 10


def render_stale_report(engine: MemoryEngine, scope: Scope, lang: str) -> None:
    """The tenant report: stale facts in the last ``REPORT_TRACES`` stored searches, both
    scores side by side, a link to the search (Query Replay) and to each memory's history."""
    st.divider()
    st.subheader(t("stale.report_header", lang))
    st.caption(t("stale.report_intro", lang, n=REPORT_TRACES))
    with guard(lang, stop=False) as g:
        recent = engine.list_traces(scope, limit=REPORT_TRACES).items
        found = []
        for item in recent:
            trace = engine.get_trace(scope, uuid.UUID(str(item["id"])))
            found += [(item, fact) for fact in stale_facts(trace)]
    if g.failed:
        return
    if not found:
        st.info(t("stale.report_empty", lang))
        return
    st.dataframe(
        frames.stale_report_frame(found, lang),
        hide_index=True,
        key="mi_stale_report",
        placeholder="",
        column_config={
            t(k, lang): st.column_config.NumberColumn(format="%.4f")
            for k in ("stale.col.older_score", "stale.col.current_score")
        },
    )
    for item, fact in found[:REPORT_LINKS]:
        with st.container(border=True):
            st.markdown(frames.stale_text(fact, lang))
            c1, c2, c3 = st.columns(3)
            with c1:
                st.page_link(
                    REPLAY_PAGE,
                    label=f"{t('stale.open_trace', lang)} ({short_id(item['id'])})",
                    query_params={
                        "tenant": scope.tenant_id,
                        "lang": lang,
                        "trace": str(item["id"]),
                    },
                    icon=":material/manage_search:",
                )
            with c2:
                history_link(
                    t("stale.older_history", lang), scope.tenant_id, lang, str(fact.older_id)
                )
            with c3:
                history_link(
                    t("stale.current_history", lang), scope.tenant_id, lang, str(fact.current_id)
                )
