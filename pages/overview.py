"""Overview: memories per tenant (audited admin path) and the selected tenant's counts."""

from __future__ import annotations

import plotly.express as px
import streamlit as st

from memory_engine.dashboard import signin, state, store_compare, tables
from memory_engine.dashboard.chart_labels import translated
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.i18n import t
from memory_engine.models import Scope

MAX_TENANT_BARS = 50
STATS_DAYS = 90

state.ensure_router()  # a shared link on a fresh server: route through app.py
lang = state.current_lang()
tenant = state.current_tenant()
engine = state.get_engine()

st.title(t("overview.title", lang))

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
    frame, cut = tables.bounded(
        tables.counts_frame(counts, lang, label="col.tenant"), MAX_TENANT_BARS
    )
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

# ---- the selected tenant
if tenant is None:
    st.info(t("common.no_tenant", lang))
    st.stop()

st.subheader(t("overview.tenant_header", lang, tenant=tenant))
store_compare.overview_section(Scope.of(tenant), lang)  # both stores configured: parity
with guard(lang):
    stats = engine.stats(Scope.of(tenant), days=STATS_DAYS)
if stats.total == 0:
    st.info(t("common.empty_tenant", lang, tenant=tenant))
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
        frame = translated(tables.counts_frame(counts_of, lang), t("col.value", lang), kind, lang)
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
writes = tables.writes_frame(stats.writes_per_day, lang)
if writes.empty:
    st.caption(t("overview.no_writes", lang))
else:
    fig = px.bar(writes, x=t("col.day", lang), y=t("col.count", lang), height=260)
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10})
    st.plotly_chart(fig, key="mi_writes_chart")
