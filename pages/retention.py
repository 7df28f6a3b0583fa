"""Retention: decay curves, the retention distribution, what-if sliders, what the next
maintenance would do (with the lists) and a button that runs it with a progress bar.

URL parameters (besides ``tenant``, ``lang``): the what-if settings ``preset``, ``half``
(half-life, days), ``weight`` (access weight), ``floor``, ``bottom`` (fraction), ``purge``
(days), each absent while at its default, and ``memory`` (the memory whose curve is shown)."""

from __future__ import annotations

from datetime import UTC, datetime
from itertools import islice

import plotly.express as px
import streamlit as st

from memory_engine import MemoryStatus
from memory_engine.dashboard import signin
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import retention as view
from memory_engine.dashboard.frames.cells import bounded, fmt_time, short_id
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.url_state import UUID_TEXT, UrlParam, UrlState, number, one_of

page = open_page("retention.title")
scope = page.require_tenant(show=False)
lang, engine, tenant = page.lang, page.engine, scope.tenant_id
now = datetime.now(UTC)
st.session_state["mi_ret_now"] = now  # the clock of every number on this run (tests read it)
st.caption(t("retention.caption", lang, now=fmt_time(now)))

# ---- what-if parameters (defaults: the engine's settings)
base = engine.retention_params()
base_policy = engine.maintenance_policy(base)
PRESETS = ["decay", "weighted"]
# the what-if settings in the URL (a reload or a shared link shows the same what-if); the
# preset first, since the half-life and floor defaults (and their widgets) depend on it
preset_url = UrlState(
    (UrlParam("preset", "mi_ret_preset", one_of(PRESETS, base.preset)),),
    resets=("half", "floor"),  # another preset starts from its own defaults
)
preset_url.restore()
preset = str(st.session_state["mi_ret_preset"])
same = preset == base.preset
what_if = UrlState(
    (
        UrlParam(
            "half",
            f"mi_ret_half_{preset}",
            number(
                1.0,
                365.0,
                float(base.half_life_days if same else view.PRESET_HALF_LIFE_DAYS[preset]),
            ),
        ),
        UrlParam("weight", "mi_ret_weight", number(0.0, 1.0, float(base.access_weight))),
        UrlParam(
            "floor",
            f"mi_ret_floor_{preset}",
            number(
                0.0, 1.0, float(base_policy.floor if same else view.PRESET_ARCHIVE_FLOOR[preset])
            ),
        ),
        UrlParam("bottom", "mi_ret_bottom", number(0.0, 1.0, float(base_policy.bottom_fraction))),
        UrlParam("purge", "mi_ret_purge", number(0.0, 365.0, float(base_policy.purge_after_days))),
        UrlParam("memory", "mi_ret_memory", UUID_TEXT),
    )
)
what_if.restore()
with st.expander(t("retention.whatif", lang), expanded=True):
    c1, c2, c3 = st.columns(3)
    c1.selectbox(
        t("retention.preset", lang),
        PRESETS,
        format_func=lambda p: t(f"retention.preset_{p}", lang),
        placeholder=t("common.choose_one", lang),
        **preset_url.bind("preset"),
    )
    half_life = c1.slider(
        t("retention.half_life", lang), 1.0, 365.0, step=1.0, **what_if.bind("half")
    )
    weight = c2.slider(
        t("retention.access_weight", lang),
        0.0,
        1.0,
        step=0.01,
        disabled=preset != "decay",
        **what_if.bind("weight"),
    )
    floor = c2.slider(t("retention.floor", lang), 0.0, 1.0, step=0.01, **what_if.bind("floor"))
    bottom = c3.slider(t("retention.bottom", lang), 0.0, 1.0, step=0.05, **what_if.bind("bottom"))
    purge_days = c3.slider(
        t("retention.purge_days", lang), 0.0, 365.0, step=1.0, **what_if.bind("purge")
    )
params = engine.retention_params(preset=preset, half_life_days=half_life, access_weight=weight)
policy = engine.maintenance_policy(
    params, floor=floor, bottom_fraction=bottom, purge_after_days=purge_days
)

# ---- the next maintenance
with guard(lang):
    plan = engine.plan_maintenance(scope, now=now, policy=policy)
    active = list(islice(engine.iter_memories(scope, (MemoryStatus.ACTIVE,)), view.MAX_SCORED + 1))
counts = plan.counts()
st.info(t("retention.next", lang, **counts))
st.caption(t("retention.scanned", lang, active=plan.scanned_active, archived=plan.scanned_archived))
if plan.awaiting_review:  # quarantined memories are never purged before a human looks
    st.warning(t("retention.awaiting_review", lang, n=plan.awaiting_review))
for action, key in (
    ("archive", "retention.list_archive"),
    ("purge", "retention.list_purge"),
    ("expire", "retention.list_expire"),
):
    if counts[action]:
        with st.expander(t(key, lang, n=counts[action])):
            frame, cut = bounded(view.plan_frame(plan, action, lang), 500)
            st.dataframe(frame, hide_index=True, key=f"mi_ret_plan_{action}")
            if cut:
                st.caption(t("common.truncated", lang, shown=500, total=counts[action]))

if not active:
    st.info(t("retention.empty", lang))
else:
    if len(active) > view.MAX_SCORED:
        active = active[: view.MAX_SCORED]
        st.caption(t("retention.cut", lang, shown=view.MAX_SCORED, total=plan.scanned_active))
    frame = view.retention_frame(active, now, params, lang)
    col_ret = t("col.retention", lang)

    st.subheader(t("retention.distribution", lang))
    fig = px.histogram(frame, x=col_ret, nbins=40, height=260)
    fig.update_traces(
        hovertemplate=f"{col_ret}=%{{x}}<br>{t('chart.memories', lang)}=%{{y}}<extra></extra>"
    )
    fig.add_vline(x=floor, line_dash="dash", line_color="#dc2626")
    fig.update_layout(
        margin={"l": 10, "r": 10, "t": 10, "b": 10}, yaxis_title=t("chart.memories", lang)
    )
    st.plotly_chart(fig, key="mi_ret_hist")

    st.subheader(t("retention.curves_type", lang))
    curves = view.type_curves_frame(active, params, lang)
    fig = px.line(
        curves,
        x=t("retention.days_ahead", lang),
        y=col_ret,
        color=t("col.type", lang),
        height=280,
    )
    fig.add_hline(y=floor, line_dash="dash", line_color="#dc2626")
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
    st.plotly_chart(fig, key="mi_ret_types")

    st.subheader(t("retention.curve_memory", lang))
    ids = list(frame[t("col.id", lang)])
    contents = dict(zip(ids, frame[t("col.content", lang)], strict=True))
    if st.session_state.get("mi_ret_memory") not in ids:  # none in the URL, or no longer active
        st.session_state["mi_ret_memory"] = ids[0]
    picked = st.selectbox(
        t("retention.pick_memory", lang),
        ids,
        format_func=lambda i: f"{short_id(i)} · {contents[i][:80]}",
        placeholder=t("common.choose_one", lang),
        **what_if.bind("memory"),
    )
    if picked:
        memory = next(m for m in active if str(m.id) == picked)
        value = float(frame.loc[frame[t("col.id", lang)] == picked, col_ret].iloc[0])
        st.metric(t("retention.value_now", lang), f"{value:.4f}")
        curve = view.memory_curve_frame(memory, now, params, lang)
        fig = px.line(curve, x=t("retention.days_ahead", lang), y=col_ret, height=240)
        fig.add_hline(y=floor, line_dash="dash", line_color="#dc2626")
        fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
        st.plotly_chart(fig, key="mi_ret_curve")

    st.subheader(t("retention.table", lang))
    shown, cut = bounded(frame, 500)
    st.dataframe(shown, hide_index=True, key="mi_ret_table")
    if cut:
        st.caption(t("common.truncated", lang, shown=500, total=len(frame)))

# ---- run it (what is shown above is what runs)
st.subheader(t("retention.run_header", lang))
confirm = st.checkbox(t("retention.run_confirm", lang, tenant=tenant), key="mi_ret_confirm")
may_run = signin.allowed(Action.MAINTAIN, tenant)
if not may_run:
    signin.denied(lang, Action.MAINTAIN, tenant)
if st.button(t("retention.run", lang), disabled=not (confirm and may_run), key="mi_ret_run"):
    bar = st.progress(0.0, text=t("retention.running", lang, done=0, total=len(plan.changes)))

    def tick(done: int, total: int) -> None:
        bar.progress(
            done / max(total, 1), text=t("retention.running", lang, done=done, total=total)
        )

    with guard(lang):
        report = engine.maintain(scope, policy=policy, actor=signin.actor(), progress=tick)
    bar.progress(1.0)
    st.success(t("retention.done", lang, skipped=len(report.skipped), **report.applied))
