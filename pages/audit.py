"""Audit: the event log with facets and counts, CSV/JSON export, before/after of one event,
the as-of browser (the store at a chosen time) and the timeline of one memory."""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import plotly.express as px
import streamlit as st

from memory_engine import MemoryNotFoundError, MemoryStatus
from memory_engine.dashboard import state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import audit as view
from memory_engine.dashboard.frames.cells import bounded, fmt_time
from memory_engine.dashboard.frames.labels import date_axis, value_label
from memory_engine.dashboard.frames.pii import add_event_pii, only_pii
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.widgets import pii

page = open_page("audit.title")
scope = page.require_tenant(show=False)
lang, engine, tenant = page.lang, page.engine, scope.tenant_id

# ---- event log (the latest MAX_EVENTS, newest first)
st.subheader(t("audit.events_header", lang))
st.button(t("audit.refresh", lang), key="mi_audit_refresh")  # a rerun reloads the tail
events = []
total = 0
cursor = None
with guard(lang):
    while len(events) < view.MAX_EVENTS:
        chunk = engine.events(scope, limit=min(500, view.MAX_EVENTS - len(events)), cursor=cursor)
        events.extend(chunk.items)
        total = chunk.total or len(events)
        cursor = chunk.next_cursor
        if not cursor:
            break
st.caption(t("audit.loaded", lang, shown=len(events), total=total))
rows = add_event_pii(view.event_rows(events), events, lang)
facets = st.columns(3)
picked: dict[str, list[str]] = {}
for col, key, label in (
    (facets[0], "action", "audit.facet_action"),
    (facets[1], "actor", "audit.facet_actor"),
    (facets[2], "day", "audit.facet_day"),
):
    counts = view.facet_counts(rows, key)
    picked[key] = col.multiselect(
        t(label, lang),
        list(counts),
        format_func=lambda v, c=counts, k=key: (
            f"{value_label('action', v, lang) if k == 'action' else v} ({c[v]})"
        ),
        key=f"mi_audit_{key}",
        placeholder=t("common.choose_many", lang),
    )
shown = view.filter_rows(rows, actions=picked["action"], actors=picked["actor"], days=picked["day"])
if pii.pii_facet(rows, lang, key="mi_audit_pii"):
    shown = only_pii(shown)
st.caption(t("audit.filtered", lang, n=len(shown)))
st.dataframe(view.events_table(shown[:500], lang), hide_index=True, key="mi_audit_events")
if len(shown) > 500:
    st.caption(t("common.truncated", lang, shown=500, total=len(shown)))
ex = st.columns(2)
ex[0].download_button(
    t("audit.export_csv", lang),
    view.export_bytes(shown, "csv"),
    file_name=f"audit-{tenant}.csv",
    mime="text/csv",
    key="mi_audit_csv",
)
ex[1].download_button(
    t("audit.export_json", lang),
    view.export_bytes(shown, "json"),
    file_name=f"audit-{tenant}.json",
    mime="application/json",
    key="mi_audit_json",
)

# ---- before / after of one event
st.subheader(t("audit.diff_header", lang))
by_id = {e.id: e for e in events if e.id is not None}
event_id = st.selectbox(
    t("audit.pick_event", lang),
    [r["id"] for r in shown if r["id"] is not None][:500],
    format_func=lambda i: (
        f"#{i} · {value_label('action', by_id[i].action.value, lang)} · {fmt_time(by_id[i].at)}"
    ),
    index=None,
    key="mi_audit_event",
    placeholder=t("common.choose_one", lang),
)
if event_id is not None:
    event = by_id[event_id]
    if event.before is None and event.after is None:
        st.caption(t("audit.no_diff", lang))
    else:
        st.dataframe(view.diff_frame(event, lang), hide_index=True, key="mi_audit_diff")
    if event.details:
        st.json(event.details)

# ---- as-of browser
st.subheader(t("audit.asof_header", lang))
now = datetime.now(UTC)
c1, c2 = st.columns(2)
day = c1.date_input(t("audit.asof_date", lang), value=now.date(), key="mi_audit_asof_day")
at_time = c2.time_input(
    t("audit.asof_time", lang),
    value=time(23, 59, 59),
    step=timedelta(minutes=1),
    key="mi_audit_asof_time",
)
when = datetime.combine(day, at_time, tzinfo=UTC)
with guard(lang):
    snapshot = engine.state_as_of(scope, when)
active = sum(1 for m in snapshot if m.status is MemoryStatus.ACTIVE)
st.caption(t("audit.asof_count", lang, n=len(snapshot), when=fmt_time(when), active=active))
frame, cut = bounded(view.state_frame(snapshot, lang), 500)
st.dataframe(frame, hide_index=True, key="mi_audit_asof")
if cut:
    st.caption(t("common.truncated", lang, shown=500, total=len(snapshot)))

# ---- timeline of one memory (URL ``memory``, or typed)
st.subheader(t("audit.timeline_header", lang))
url_memory, bad = state.url_id(state.QP_MEMORY)
typed = st.text_input(
    t("audit.timeline_id", lang), value=str(url_memory) if url_memory else "", key="mi_audit_mid"
)
memory_id = state.parse_uuid(typed.strip()) if typed.strip() else None
if typed.strip() and memory_id is None:
    st.warning(t("audit.timeline_bad_id", lang, value=typed.strip()[:80]))
if memory_id is not None:
    with guard(lang):
        history = engine.history(scope, memory_id).items
    timeline = view.timeline_frame(history, lang)
    fig = px.scatter(
        timeline,
        x=t("col.time", lang),
        y=t("col.action", lang),
        color=t("col.action", lang),
        hover_data=[t("col.actor", lang), t("col.reason", lang)],
        height=260,
    )
    latest = next((s for e in reversed(history) for s in (e.after, e.before) if s), None)
    if latest and (latest.get("valid_from") or latest.get("valid_until")):
        start = view.snapshot_time(latest.get("valid_from")) or timeline[t("col.time", lang)].min()
        end = view.snapshot_time(latest.get("valid_until")) or now
        fig.add_vrect(
            x0=start,
            x1=end,
            fillcolor="#16a34a",
            opacity=0.12,
            annotation_text=t("audit.validity", lang),
        )
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10}, showlegend=False)
    fig.update_xaxes(**date_axis(lang))  # numeric dates in either language
    st.plotly_chart(fig, key="mi_audit_timeline")
    st.dataframe(timeline, hide_index=True, key="mi_audit_timeline_table")
    try:
        live = engine.get(scope, memory_id)
    except MemoryNotFoundError:
        live = None  # purged: the timeline above ends with the purge and its proof
    if live is not None:
        last = fmt_time(live.last_accessed_at) or "—"
        st.caption(t("audit.accesses", lang, count=live.access_count, last=last))

# ---- a stored search re-run as of its time versus now (entered / left / moved)
st.subheader(t("audit.compare_header", lang))
with guard(lang):
    traces = engine.list_traces(scope, limit=50).items
if not traces:
    st.caption(t("audit.no_traces", lang))
else:
    labels = {str(x["id"]): f"{fmt_time(x['created_at'])} · {x['query'][:80]}" for x in traces}
    trace_id = st.selectbox(
        t("audit.pick_trace", lang),
        list(labels),
        format_func=labels.__getitem__,
        index=None,
        key="mi_audit_trace",
        placeholder=t("common.choose_one", lang),
    )
    if trace_id is not None:
        with guard(lang):
            cmp = engine.compare_trace(scope, trace_id)
        st.caption(
            t(
                "audit.compare_summary",
                lang,
                entered=len(cmp.entered),
                left=len(cmp.left),
                moved=len(cmp.moved),
                unchanged=len(cmp.unchanged),
                erased=len(cmp.erased),
            )
        )
        st.dataframe(view.comparison_frame(cmp, lang), hide_index=True, key="mi_audit_compare")
