"""Overview: memories per tenant (audited admin path) and the selected tenant's counts."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from memory_engine.dashboard import signin, state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.cells import bounded
from memory_engine.dashboard.frames.labels import date_axis, translated
from memory_engine.dashboard.frames.overview import counts_frame, writes_per_day_frame
from memory_engine.dashboard.frames.stores import embedders_frame
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import empty_tenant_hint, open_page
from memory_engine.dashboard.widgets import store_compare

MAX_TENANT_BARS = 50
STATS_DAYS = 90

page = open_page("overview.title")
lang, tenant, engine = page.lang, page.tenant, page.engine

# ---- across tenants (the one audited admin read; cached 30 s)
st.subheader(t("overview.tenants_header", lang))
account = signin.current_account()
cross_tenant = account is not None and account.all_tenants  # else: scoped counts of the grants
st.caption(
    t("overview.tenants_caption" if cross_tenant else "overview.tenants_caption_granted", lang)
)
with guard(lang):
    counts = state.cached_tenant_counts("overview")
if not counts:
    st.info(t("overview.no_tenants", lang))
else:
    frame, cut = bounded(counts_frame(counts, lang, label="col.tenant"), MAX_TENANT_BARS)
    x, y = t("col.tenant", lang), t("col.count", lang)
    frame["selected"] = frame[x] == tenant
    fig = px.bar(
        frame,
        x=x,
        y=y,
        color="selected",
        height=280,
        color_discrete_map={True: "#2563eb", False: "#94a3b8"},
        hover_data={"selected": False},  # the colour says it; no untranslated hover row
    )
    fig.update_layout(showlegend=False, margin={"l": 10, "r": 10, "t": 10, "b": 10})
    st.plotly_chart(fig, key="mi_tenants_chart")
    if cut:
        st.caption(t("common.truncated", lang, shown=MAX_TENANT_BARS, total=len(counts)))

# ---- the store's embedders, one row per dense leg
with st.expander(t("stores.embedders_header", lang)):
    st.caption(t("stores.embedders_caption", lang))
    with guard(lang):
        legs_frame = embedders_frame(engine, lang)
        if legs_frame.empty:
            st.info(t("stores.no_embedder", lang))
        else:
            st.dataframe(legs_frame, hide_index=True, key="mi_embedders")

# ---- the selected tenant
scope = page.require_tenant(show=False)
tenant = scope.tenant_id
st.subheader(t("overview.tenant_header", lang, tenant=tenant))
store_compare.overview_section(scope, lang)  # both stores configured: parity
with guard(lang):
    stats = engine.stats(scope, days=STATS_DAYS)
if stats.total == 0:
    st.info(empty_tenant_hint(tenant, lang))
    st.stop()

top = st.columns([1, 3])
top[0].metric(t("overview.total", lang), stats.total)
if top[1].button(t("nav.memories", lang) + " →", key="mi_open_memories"):
    st.switch_page("pages/memories.py", query_params={"tenant": tenant, "lang": lang})

facet_cols = st.columns(3)
for col, title_key, kind, counts_of in (
    (facet_cols[0], "overview.by_type", "type", stats.by_type),
    (facet_cols[1], "overview.by_status", "status", stats.by_status),
    (facet_cols[2], "overview.by_source", "source", stats.by_source),
):
    with col:
        st.markdown(f"**{t(title_key, lang)}**")
        frame = translated(counts_frame(counts_of, lang), t("col.value", lang), kind, lang)
        fig = px.bar(
            frame,
            x=t("col.count", lang),
            y=t("col.value", lang),
            orientation="h",
            text_auto=True,
            height=70 + 34 * max(len(frame), 1),
        )
        fig.update_layout(
            margin={"l": 10, "r": 10, "t": 10, "b": 10},
            bargap=0.35,
            yaxis={"autorange": "reversed", "title": None},
            xaxis={"title": None},
        )
        st.plotly_chart(fig, key=f"mi_{title_key}")

st.markdown(f"**{t('overview.writes_per_day', lang, days=STATS_DAYS)}**")
writes = writes_per_day_frame(stats.writes_per_day, lang)
if writes.empty:
    st.caption(t("overview.no_writes", lang))
else:
    fig = px.bar(writes, x=t("col.day", lang), y=t("col.count", lang), height=260)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
    fig.update_xaxes(**date_axis(lang))
    st.plotly_chart(fig, key="mi_writes_chart")
