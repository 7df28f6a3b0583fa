"""Audit: the event log with facets and counts (content as stored, times in the viewer's time
zone), CSV/JSON export with before/after values, the fields one event changed (a diff) or the
deletion receipt of a purge, the as-of browser, the timeline of one memory and its verified
erasure (preview of every copy, typed confirmation, receipt), and a past search then versus now.

URL parameters of this page (besides ``tenant``, ``lang``, ``memory``): ``action``, ``actor``,
``day`` (comma-separated facet values), ``pii=1``, ``event`` (the selected event id), ``fields=1``
(every field of the event, not only the changed ones), ``asof`` / ``asof_time`` (the as-of
moment, UTC), ``cmp`` (the stored search compared then versus now) and ``tz`` (an IANA zone
overriding the browser's).
"""

from __future__ import annotations

from datetime import UTC, datetime, time, timedelta

import plotly.express as px
import streamlit as st

from memory_engine import MemoryNotFoundError, MemoryStatus
from memory_engine.dashboard import signin, state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import audit as view
from memory_engine.dashboard.frames import receipts
from memory_engine.dashboard.frames.cells import bounded, short_id
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.frames.pii import add_event_pii, only_pii
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.url_state import (
    FLAG,
    UUID_TEXT,
    UrlParam,
    UrlState,
    day,
    time_of_day,
)
from memory_engine.dashboard.widgets import pii
from memory_engine.dashboard.widgets.exports import export_buttons

page = open_page("audit.title")
scope = page.require_tenant(show=False)
lang, engine, tenant = page.lang, page.engine, scope.tenant_id
FLASH = "mi_audit_flash"

# ---- view state in the URL (facets, PII filter, selected event): seeded into the widgets on
# the first run of a session, written back after each run, so a reload or a shared link shows
# the same view. ``tz`` (IANA name) overrides the browser's time zone.
URL_FACETS = {"action": "mi_audit_action", "actor": "mi_audit_actor", "day": "mi_audit_day"}
QP_EVENT, QP_PII, QP_TZ = "event", "pii", "tz"


def url_list(name: str) -> list[str]:
    """A comma-separated URL parameter as a list (empty when absent)."""
    raw = state.get_param(name)
    return [v for v in raw.split(",") if v] if raw else []


def seed(key: str, value: object) -> None:
    """Give widget ``key`` its value from the URL on the first run only."""
    if key not in st.session_state:
        st.session_state[key] = value


now = datetime.now(UTC)
ASOF_TIME = time(23, 59, 59)
view_url = UrlState(
    (
        UrlParam("fields", "mi_audit_all_fields", FLAG),
        UrlParam("asof", "mi_audit_asof_day", day(now.date())),
        UrlParam("asof_time", "mi_audit_asof_time", time_of_day(ASOF_TIME)),
        UrlParam("cmp", "mi_audit_trace", UUID_TEXT),
    )
)
view_url.restore()
tz_name = state.get_param(QP_TZ) or st.context.timezone or "UTC"
tz = view.zone(tz_name)
tz_label = getattr(tz, "key", "UTC")

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
st.caption(t("audit.timezone", lang, tz=tz_label))
rows = add_event_pii(view.event_rows(events, tz), events, lang)
facets = st.columns(3)
picked: dict[str, list[str]] = {}
for col, key, label in (
    (facets[0], "action", "audit.facet_action"),
    (facets[1], "actor", "audit.facet_actor"),
    (facets[2], "day", "audit.facet_day_local"),
):
    counts = view.facet_counts(rows, key)
    seed(URL_FACETS[key], [v for v in url_list(key) if v in counts])
    picked[key] = col.multiselect(
        t(label, lang, tz=tz_label),
        list(counts),
        format_func=lambda v, c=counts, k=key: (
            f"{value_label('action', v, lang) if k == 'action' else v} ({c[v]})"
        ),
        placeholder=t("audit.choose", lang),
        key=URL_FACETS[key],
    )
    state.set_param(key, ",".join(picked[key]) or None)
shown = view.filter_rows(rows, actions=picked["action"], actors=picked["actor"], days=picked["day"])
seed("mi_audit_pii", state.get_param(QP_PII) == "1")
if pii.pii_facet(rows, lang, key="mi_audit_pii"):
    shown = only_pii(shown)
state.set_param(QP_PII, "1" if st.session_state.get("mi_audit_pii") else None)
st.caption(t("audit.filtered", lang, n=len(shown)))
time_col = t("audit.col_at_local", lang)
st.dataframe(
    view.table_frame(shown[:500], lang),
    hide_index=True,
    key="mi_audit_events",
    column_config={
        time_col: st.column_config.TextColumn(
            time_col, help=t("audit.time_help", lang, tz=tz_label)
        )
    },
)
if len(shown) > 500:
    st.caption(t("common.truncated", lang, shown=500, total=len(shown)))
export_buttons(
    lambda fmt: view.export_bytes(shown, fmt),
    stem=f"audit-{tenant}",
    labels={"csv": t("audit.export_csv", lang), "json": t("audit.export_json", lang)},
    key="mi_audit",
)

# ---- one event: the fields it changed (a diff), or the deletion receipt of a purge proof
st.subheader(t("audit.diff_header", lang))
by_id = {e.id: e for e in events if e.id is not None}
choices = [r["id"] for r in shown if r["id"] is not None][:500]
url_event = state.get_param(QP_EVENT)
wanted = view.event_id(url_event)
if wanted is not None and wanted not in choices and wanted in by_id:
    choices.insert(0, wanted)  # a linked event outside the current filters stays selectable
if wanted is not None and wanted not in by_id:
    st.caption(t("audit.event_missing", lang, id=wanted))
pending = st.session_state.pop("mi_audit_pending_event", None)  # the receipt of a purge just run
if pending is not None and pending in by_id:
    if pending not in choices:
        choices.insert(0, pending)
    st.session_state["mi_audit_event"] = pending
if st.session_state.get("mi_audit_event") not in choices:
    st.session_state.pop("mi_audit_event", None)
seed("mi_audit_event", wanted if wanted in choices else None)
event_id = st.selectbox(
    t("audit.pick_event", lang),
    choices,
    format_func=lambda i: (
        f"#{i} · {value_label('action', by_id[i].action.value, lang)} · "
        f"{view.local_time(by_id[i].at, tz)}"
    ),
    index=None,
    placeholder=t("audit.choose_one", lang),
    key="mi_audit_event",
)
state.set_param(QP_EVENT, str(event_id) if event_id is not None else None)
if event_id is not None:
    event = by_id[event_id]
    st.caption(
        t(
            "audit.event_summary",
            lang,
            id=event.id,
            action=value_label("action", event.action.value, lang),
            actor=event.actor,
            local=view.local_time(event.at, tz),
            utc=event.at.astimezone(UTC).isoformat(),
        )
    )
    if receipts.is_receipt(event.details):
        details = event.details or {}
        checks = details.get("checks", [])
        failed = sum(1 for c in checks if not c.get("ok"))
        st.markdown(f"**{t('audit.receipt_header', lang)}**")
        summary_key = (
            "audit.receipt_summary_ok" if details.get("ok") else "audit.receipt_summary_failed"
        )
        (st.success if details.get("ok") else st.error)(
            t(
                summary_key,
                lang,
                memory=short_id(str(event.memory_id)),
                when=view.local_time(details.get("at"), tz),
                n=len(checks),
                failed=failed,
            )
        )
        st.dataframe(receipts.receipt_frame(details, lang), hide_index=True, key="mi_audit_receipt")
        export_buttons(
            lambda fmt: receipts.receipt_export(details, fmt),
            stem=f"receipt-{event.memory_id}",
            labels={"csv": t("audit.receipt_csv", lang), "json": t("audit.receipt_json", lang)},
            key="mi_audit_receipt",
        )
    elif event.before is None and event.after is None:
        if event.action.value == "purge_proof":
            st.caption(t("audit.receipt_legacy", lang))
        st.caption(t("audit.no_diff", lang))
    else:
        changed = view.changed_fields(event)
        every = sorted(set(event.before or {}) | set(event.after or {}))
        all_fields = st.toggle(t("audit.show_all_fields", lang), **view_url.bind("fields"))
        if changed:
            st.caption(
                t("audit.changed_only", lang, n=len(changed), hidden=len(every) - len(changed))
            )
        else:
            st.caption(t("audit.no_change", lang))
        st.dataframe(
            view.diff_frame(event, lang, all_fields=all_fields),
            hide_index=True,
            key="mi_audit_diff",
        )
        old_text, new_text = (event.before or {}).get("content"), (event.after or {}).get("content")
        if isinstance(old_text, str) and isinstance(new_text, str) and old_text != new_text:
            marks = {"=": "{}", "-": ":red-background[~~{}~~]", "+": ":green-background[{}]"}
            st.markdown(
                f"**{t('audit.content_diff', lang)}** "
                + "".join(
                    marks[op].format(md(part)) if part.strip() else part
                    for op, part in view.text_diff(old_text, new_text)
                )
            )
    if event.details and not receipts.is_receipt(event.details):
        with st.expander(t("audit.event_details", lang)):
            st.json(event.details)

# ---- as-of browser
st.subheader(t("audit.asof_header", lang))
c1, c2 = st.columns(2)
asof_day = c1.date_input(t("audit.asof_date", lang), **view_url.bind("asof"))
at_time = c2.time_input(
    t("audit.asof_time", lang), step=timedelta(minutes=1), **view_url.bind("asof_time")
)
when = datetime.combine(asof_day, at_time, tzinfo=UTC)
with guard(lang):
    snapshot = engine.state_as_of(scope, when)
active = sum(1 for m in snapshot if m.status is MemoryStatus.ACTIVE)
st.caption(
    t("audit.asof_count", lang, n=len(snapshot), when=view.local_time(when, tz), active=active)
)
frame, cut = bounded(view.state_frame(snapshot, lang, tz), 500)
st.dataframe(frame, hide_index=True, key="mi_audit_asof")
if cut:
    st.caption(t("common.truncated", lang, shown=500, total=len(snapshot)))

# ---- timeline of one memory (URL ``memory``, or typed), and its verified erasure
st.subheader(t("audit.timeline_header", lang))
url_memory, bad = state.url_id(state.QP_MEMORY)
typed = st.text_input(
    t("audit.timeline_id", lang), value=str(url_memory) if url_memory else "", key="mi_audit_mid"
)
memory_id = state.parse_uuid(typed.strip()) if typed.strip() else None
if typed.strip() and memory_id is None:
    st.warning(t("audit.timeline_bad_id", lang, value=typed.strip()[:80]))
if memory_id is not None:
    state.set_param(state.QP_MEMORY, str(memory_id))
    with guard(lang):
        history = engine.history(scope, memory_id).items
    timeline = view.timeline_frame(history, lang, tz)
    time_axis = t("audit.col_time", lang)
    fig = px.scatter(
        timeline,
        x=time_axis,
        y=t("col.action", lang),
        color=t("col.action", lang),
        hover_data=[t("col.actor", lang), t("col.reason", lang)],
        height=260,
    )
    span = view.timeline_range(history)
    latest = next((s for e in reversed(history) for s in (e.after, e.before) if s), None)
    if latest and (latest.get("valid_from") or latest.get("valid_until")):
        start = view.snapshot_time(latest.get("valid_from")) or (span[0] if span else now)
        end = view.snapshot_time(latest.get("valid_until")) or now
        fig.add_vrect(
            x0=start.astimezone(tz).replace(tzinfo=None),
            x1=end.astimezone(tz).replace(tzinfo=None),
            fillcolor="#16a34a",
            opacity=0.12,
            annotation_text=t("audit.validity", lang),
        )
    if span:  # the axis spans this memory's events, not its validity window
        fig.update_xaxes(range=[x.astimezone(tz).replace(tzinfo=None) for x in span])
    fig.update_layout(margin={"l": 10, "r": 10, "t": 10, "b": 10}, showlegend=False)
    fig.update_xaxes(title_text=f"{time_axis} ({tz_label})")
    st.plotly_chart(fig, key="mi_audit_timeline")
    st.dataframe(timeline, hide_index=True, key="mi_audit_timeline_table")
    try:
        live = engine.get(scope, memory_id)
    except MemoryNotFoundError:
        live = None  # purged: the timeline above ends with the purge and its proof
    if live is not None:
        last = view.local_time(live.last_accessed_at, tz) or "—"
        st.caption(t("audit.accesses", lang, count=live.access_count, last=last))

    # ---- verified erasure: what will be erased (counted), typed confirmation, the receipt
    st.markdown(f"**{t('audit.erase_header', lang)}**")
    flash = st.session_state.pop(FLASH, None)
    if flash:
        (st.success if flash[0] == "ok" else st.error)(flash[1])
    if live is None:
        st.caption(t("audit.erase_gone", lang))
    else:
        st.caption(t("audit.erase_intro", lang))
        with guard(lang, stop=False):
            preview = engine.purge_preview(scope, memory_id)
            st.dataframe(
                receipts.preview_frame(preview, lang), hide_index=True, key="mi_audit_preview"
            )
            st.caption(t("audit.erase_total", lang, total=preview.total))
        can_purge = signin.allowed(Action.PURGE, tenant)
        if not can_purge:
            st.caption(t("audit.erase_need_admin", lang))
        code = str(memory_id)[:8]
        reason = st.text_input(t("audit.erase_reason", lang), key="mi_audit_erase_reason")
        typed_code = st.text_input(
            t("audit.erase_confirm", lang, code=code), key="mi_audit_erase_code"
        )
        ready = can_purge and bool(reason.strip()) and typed_code.strip() == code
        if st.button(
            t("audit.erase_button", lang),
            type="primary",
            disabled=not ready,
            key="mi_audit_erase",
        ):
            with guard(lang, stop=False) as g:
                proof = engine.purge_verified(
                    scope, memory_id, reason=reason.strip(), actor=signin.actor()
                )
            if not g.failed:
                after = engine.history(scope, memory_id).items
                proof_event = next(
                    (e for e in reversed(after) if e.action.value == "purge_proof"), None
                )
                if proof_event is not None and proof_event.id is not None:
                    st.session_state["mi_audit_pending_event"] = proof_event.id
                    state.set_param(QP_EVENT, str(proof_event.id))
                failed = ", ".join(receipts.check_label(n, lang) for n in proof.failed)
                st.session_state[FLASH] = (
                    ("ok", t("audit.erase_done_ok", lang))
                    if proof.ok
                    else ("failed", t("audit.erase_done_failed", lang, failed=failed))
                )
                for k in ("mi_audit_erase_reason", "mi_audit_erase_code"):
                    st.session_state.pop(k, None)
                st.rerun()

# ---- a stored search re-run as of its time versus now (entered / left / moved)
st.subheader(t("audit.compare_header", lang))
with guard(lang):
    traces = engine.list_traces(scope, limit=50).items
if not traces:
    st.caption(t("audit.no_traces", lang))
else:
    labels = {
        str(x["id"]): f"{view.local_time(x['created_at'], tz)} · {x['query'][:80]}" for x in traces
    }
    if st.session_state.get("mi_audit_trace") not in labels:  # none, or not among the latest
        st.session_state["mi_audit_trace"] = None
    trace_id = st.selectbox(
        t("audit.pick_trace", lang),
        list(labels),
        format_func=labels.__getitem__,
        index=None,
        placeholder=t("audit.choose_one", lang),
        **view_url.bind("cmp"),
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
