"""Query Replay: run the trace's query under a second configuration (B) and compare the top k
with the trace's (A): overlap@k, entered / left / moved, and a rank-change slope chart.

B is not stored as a trace (``save_trace=False``); A is the trace on the page.
"""

from __future__ import annotations

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from memory_engine import MemoryEngine, Scope, SearchOptions, Trace, compare_traces
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.retrieval import FUSIONS, comparison_frame
from memory_engine.dashboard.i18n import t


def slope_chart(frame: pd.DataFrame, k: int, lang: str) -> go.Figure:
    """Rank in A -> rank in B per memory (missing ranks drawn at k + 1)."""
    fig = go.Figure()
    a_col, b_col = t("cmp.rank_a", lang), t("cmp.rank_b", lang)
    for _, row in frame.iterrows():
        ya = row[a_col] if pd.notna(row[a_col]) else k + 1
        yb = row[b_col] if pd.notna(row[b_col]) else k + 1
        fig.add_trace(
            go.Scatter(x=["A", "B"], y=[ya, yb], mode="lines+markers", name=row[t("col.id", lang)])
        )
    fig.update_layout(
        height=260,
        margin={"l": 10, "r": 10, "t": 10, "b": 10},
        yaxis={"autorange": "reversed", "title": t("chart.rank", lang)},
        showlegend=False,
    )
    return fig


def render(engine: MemoryEngine, scope: Scope, trace: Trace, lang: str) -> None:
    """The comparison section: a form for configuration B, then the comparison."""
    st.markdown(f"**{t('cmp.header', lang)}**")
    base = SearchOptions.from_trace_config(trace.config)
    with st.form("mi_cmp"):
        c = st.columns(4)
        fusion = c[0].selectbox(
            t("cmp.fusion", lang),
            FUSIONS,
            index=FUSIONS.index(base.fusion),
            format_func=lambda f: t(f"cmp.fusion_{f}", lang),
            key="mi_cmp_fusion",
            placeholder=t("common.choose_one", lang),
        )
        session = c[1].number_input(
            t("cmp.session", lang),
            0.0,
            5.0,
            value=float(base.session_weight),
            step=0.1,
            key="mi_cmp_session",
        )
        dense_w = c[2].number_input(
            t("cmp.dense_weight", lang),
            0.0,
            10.0,
            value=float(base.dense_weight),
            step=0.25,
            key="mi_cmp_dense",
        )
        retention_w = c[3].number_input(
            t("cmp.retention_weight", lang),
            0.0,
            1.0,
            value=float(base.retention_weight),
            step=0.1,
            key="mi_cmp_retention",
        )
        submitted = st.form_submit_button(t("cmp.run", lang))
    if not submitted:
        return
    options_b = base.model_copy(
        update={
            "fusion": fusion,
            "session_weight": session,
            "dense_weight": dense_w,
            "retention_weight": retention_w,
        }
    )
    with guard(lang, stop=False) as g, st.spinner(t("common.searching", lang)):
        other = engine.search(scope, trace.query, options=options_b, save_trace=False).trace
    if g.failed:
        return
    k = base.k
    cmp = compare_traces(trace, other, k=k)
    st.markdown(
        t(
            "cmp.summary",
            lang,
            k=k,
            overlap=cmp.overlap,
            entered=len(cmp.entered),
            left=len(cmp.left),
            moved=len(cmp.moved),
        )
    )
    frame = comparison_frame(trace, other, cmp, lang)
    st.dataframe(frame, hide_index=True, key="mi_cmp_table", placeholder="")
    if len(frame):
        st.plotly_chart(slope_chart(frame, k, lang), key="mi_cmp_chart")
