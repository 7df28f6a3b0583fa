"""Query Replay: run a traced search with chosen legs/threshold/budget; see every candidate with
the score that decides its order and how far it moved, one candidate's whole score waterfall,
stale-fact warnings, the memory block accounting (lines, near misses, totals per stage), the
exact memory block, timings and warnings; open or re-run past searches.

URL parameters (besides ``tenant``, ``lang``): ``trace`` (the search shown; its query and
settings fill the form), ``all=1`` (every score and rank), ``cand`` (the candidate whose
waterfall is open) and ``why`` (the candidate of "why not X?")."""

from __future__ import annotations

import json

import plotly.express as px
import streamlit as st

from memory_engine import Trace, waterfall
from memory_engine.dashboard import reads, signin, state, url_state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import traces as frames
from memory_engine.dashboard.frames.cells import fmt_time, list_caption, short_id
from memory_engine.dashboard.i18n import t, warning_text
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.page import empty_tenant_hint, open_page
from memory_engine.dashboard.url_state import UrlState
from memory_engine.dashboard.widgets import (
    alarm,
    config_compare,
    golden,
    relevance,
    store_compare,
    why_not,
)
from memory_engine.dashboard.widgets import waterfall as waterfall_view

PAST_TRACES = 20
W_TRACE = "mi_w_trace"

page = open_page("replay.title")
lang, engine = page.lang, page.engine
url_trace, bad_id = state.url_id(state.QP_TRACE)
if bad_id is not None:
    st.warning(
        t("common.invalid_id", lang, param=t("common.param_trace", lang), value=md(bad_id[:80]))
    )
scope = page.require_tenant()
tenant = scope.tenant_id
# the trace view's own state (the widgets' parameters; ``trace`` itself is the state module's)
view = UrlState((*waterfall_view.URL_PARAMS, *why_not.URL_PARAMS))
view.restore()

with guard(lang):
    defaults = engine.search_options()
    tenant_total = engine.list(scope, limit=1).total
if not tenant_total:
    st.info(empty_tenant_hint(tenant, lang))

# ---- the search form (one search per submit); a ?trace= link fills it with that search
FORM_FILLED = "mi_q_filled"  # the trace whose query and settings the form holds
form_defaults = {
    "mi_q_query": "",
    "mi_q_k": defaults.k,
    "mi_q_min_score": defaults.min_score,
    "mi_q_budget": defaults.token_budget,
    "mi_q_dense": "dense" in defaults.legs,
    "mi_q_keyword": "keyword" in defaults.legs,
}
url_loaded: Trace | None = None
if url_trace is not None:
    with guard(lang, stop=False) as g:
        url_loaded = engine.get_trace(scope, url_trace)
    if g.failed:
        state.set_param(state.QP_TRACE, None)
if url_loaded is not None and st.session_state.get(FORM_FILLED) != str(url_loaded.id):
    filled = url_state.search_settings(url_loaded.query, url_loaded.config)
    filled["budget"] = filled.pop("token_budget")
    st.session_state.update(
        {f"mi_q_{name}": value for name, value in filled.items() if value is not None}
    )
    st.session_state[FORM_FILLED] = str(url_loaded.id)
for key, value in form_defaults.items():
    st.session_state.setdefault(key, value)
with st.form("mi_search"):
    query = st.text_input(t("replay.query", lang), key="mi_q_query")
    c = st.columns(4)
    k = c[0].number_input(
        t("replay.k", lang),
        1,
        engine.settings.limits.search_max_k,
        step=1,
        key="mi_q_k",
    )
    min_score = c[1].number_input(
        t("replay.min_score", lang),
        0.0,
        step=0.001,
        format="%.4f",
        help=t("replay.min_score_help", lang),
        key="mi_q_min_score",
    )
    budget = c[2].number_input(t("replay.token_budget", lang), 0, step=100, key="mi_q_budget")
    with c[3]:
        dense = st.checkbox(t("replay.dense", lang), key="mi_q_dense")
        keyword = st.checkbox(t("replay.keyword", lang), key="mi_q_keyword")
    submitted = st.form_submit_button(t("replay.run", lang), type="primary")

trace: Trace | None = None
if submitted:
    legs = [name for name, on in (("dense", dense), ("keyword", keyword)) if on]
    if not query.strip():
        st.error(t("replay.need_query", lang))
    elif not legs:
        st.error(t("replay.need_leg", lang))
    else:
        with guard(lang, stop=False) as g, st.spinner(t("common.searching", lang)):
            result = reads.search(
                engine,
                signin.current_account(),
                tenant,
                query,
                k=int(k),
                legs=legs,
                min_score=float(min_score),
                token_budget=int(budget),
            )
        if not g.failed:
            trace = result.trace
            state.set_param(state.QP_TRACE, str(trace.id))
            st.session_state[FORM_FILLED] = str(trace.id)  # the form already holds it
if trace is None:
    trace = url_loaded

# ---- the trace
if trace is None:
    st.caption(t("replay.no_trace", lang))
else:
    st.subheader(t("replay.trace_header", lang, short_id=short_id(trace.id)))
    st.markdown(
        t(
            "replay.trace_meta",
            lang,
            query=md(trace.query),
            created=fmt_time(trace.created_at),
            model=md(trace.embedding_model or "—"),
            terms=md(", ".join(trace.query_terms) or "—"),
        )
    )
    alarm.render_alarm(trace, lang)  # rows of another tenant met (stores.guard)
    for warning in trace.warnings:
        st.warning(warning_text(warning, lang))
    wf = waterfall(trace)
    returned = sum(1 for c in wf.candidates if c.final_rank is not None)
    total = len(frames.all_candidates(trace))
    st.markdown(f"**{t('replay.candidates', lang)}**")
    st.caption(t("replay.returned", lang, returned=returned, dropped=total - returned, total=total))
    waterfall_view.render_stale(trace, lang, tenant)  # an older fact above its correction
    waterfall_view.render_candidates(trace, wf, lang, view)
    waterfall_view.render_accounting(trace, lang)

    left, right = st.columns([3, 2])
    with left:
        st.markdown(f"**{t('replay.block', lang)}**")
        st.code(trace.block, language=None, wrap_lines=True)
    with right:
        st.markdown(f"**{t('replay.timings', lang)}**")
        timings = frames.timings_frame(trace, lang)
        fig = px.bar(
            timings,
            x=t("replay.ms", lang),
            y=t("replay.stage", lang),
            orientation="h",
            height=60 + 28 * max(len(timings), 1),
            text_auto=".1f",
        )
        fig.update_layout(
            margin={"l": 10, "r": 10, "t": 10, "b": 10}, yaxis={"autorange": "reversed"}
        )
        st.plotly_chart(fig, key="mi_timings_chart")
        st.dataframe(timings, hide_index=True, key="mi_timings", placeholder="")
    with st.expander(t("replay.config", lang)):
        st.code(json.dumps(trace.config, indent=1, ensure_ascii=False), language="json")
    store_compare.replay_section(scope, trace, lang)  # both stores configured: side by side
    # retrieval tools: why not X?, compare configurations, relevance labels
    why_not.render(trace, lang, view)
    config_compare.render(engine, scope, trace, lang)
    relevance.render(trace, lang)
    golden.render(engine, scope, trace, lang)

# ---- past searches: open (?trace=) or re-run with the stored configuration
st.divider()
st.subheader(t("replay.past", lang))
with guard(lang):
    past = engine.list_traces(scope, limit=PAST_TRACES)
if not past.items:
    st.caption(t("replay.no_past", lang))
    st.stop()
frame = frames.traces_frame(past.items, lang)
past_ids = [str(item["id"]) for item in past.items]


def on_past_selected() -> None:
    """A click on a past search opens it (?trace=, a new browser history entry)."""
    rows = st.session_state["mi_traces"].selection.rows
    if rows and rows[0] < len(past_ids):
        state.set_param(state.QP_TRACE, past_ids[rows[0]])


shown_id = str(trace.id) if trace is not None else None
st.dataframe(
    frame,
    hide_index=True,
    key="mi_traces",
    placeholder="",
    on_select=on_past_selected,
    selection_mode="single-row",
    selection_default=(
        {"selection": {"rows": [past_ids.index(shown_id)]}} if shown_id in past_ids else None
    ),
)
st.caption(t("replay.past_click", lang))
if past.next_cursor or past.truncated:
    st.caption(list_caption(past, lang))
labels = {
    str(item["id"]): f"{fmt_time(item.get('created_at'))} · {item.get('query', '')}"
    for item in past.items
}
current = str(trace.id) if trace is not None else None


def on_trace_picked() -> None:
    state.set_param(state.QP_TRACE, st.session_state.get(W_TRACE))


if current is not None and current not in labels:
    labels[current] = f"{fmt_time(trace.created_at)} · {trace.query}"  # type: ignore[union-attr]
st.session_state[W_TRACE] = current
picked = st.selectbox(
    t("replay.pick_trace", lang),
    list(labels),
    index=None,
    format_func=labels.__getitem__,
    key=W_TRACE,
    on_change=on_trace_picked,
    placeholder=t("replay.pick_placeholder", lang),
)
if st.button(t("replay.rerun", lang), disabled=picked is None, key="mi_rerun_trace"):
    with guard(lang, stop=False) as g:
        replayed = engine.replay(scope, state.parse_uuid(picked))  # type: ignore[arg-type]
    if not g.failed:
        state.set_param(state.QP_TRACE, str(replayed.trace.id))
        st.rerun()
