"""Write Inspector: run the extract pipeline on pasted text (dry or for real) and see every
step and the resulting rows; browse past write trails (the trail shown is in the URL:
``?write=<id>``; dry runs labelled as such) with the LLM tokens and cost of each write, the raw
ingests (memories stored one per turn, from the audit events, with their source) and the LLM
usage per day."""

from __future__ import annotations

import streamlit as st

from memory_engine import MemorySource, SensitiveDataError, WriteRequest
from memory_engine.dashboard import signin, state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.frames.pii import with_write_pii
from memory_engine.dashboard.frames.writes import (
    raw_ingests_frame,
    status_label,
    usage_frame,
    usage_line,
    writes_frame,
)
from memory_engine.dashboard.i18n import reason_text, t
from memory_engine.dashboard.page import empty_tenant_hint, open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.widgets import pii
from memory_engine.dashboard.widgets.write_trail import render_trail

QP_WRITE = "write"
PAST_WRITES = 20
#: Audit events read (newest first) to find the raw ingests.
RAW_EVENTS = 1000

page = open_page("write.title", caption_key="write.intro")
scope = page.require_tenant()
lang, engine, tenant = page.lang, page.engine, scope.tenant_id

with st.form("mi_write"):
    text = st.text_area(t("write.text", lang), key="mi_w_text", height=120)
    c = st.columns(2)
    source = c[0].selectbox(
        t("write.source", lang),
        [
            MemorySource.CONVERSATION.value,
            MemorySource.MANUAL.value,
            MemorySource.TOOL_OUTPUT.value,
        ],
        format_func=lambda v: value_label("source", v, lang),
        key="mi_w_source",
        placeholder=t("common.choose_one", lang),
    )
    may_write = signin.allowed(Action.EDIT, tenant)  # a real run stores memories
    dry_run = c[1].checkbox(
        t("write.dry_run", lang), value=True, key="mi_w_dry", disabled=not may_write
    )
    if not may_write:  # a viewer may preview (dry run) but not store
        signin.denied(lang, Action.EDIT, tenant)
    submitted = st.form_submit_button(t("write.run", lang), type="primary")

if submitted:
    dry_run = dry_run or not may_write
    if not text.strip():
        st.error(t("write.need_text", lang))
    else:
        with guard(lang, stop=False), st.spinner(t("write.running", lang)):
            try:
                result = engine.write_extract(
                    scope,
                    WriteRequest(text=text, source=MemorySource(source)),
                    actor=signin.actor(),
                    dry_run=dry_run,
                )
            except SensitiveDataError as exc:  # refused by the PII policy (journalled)
                state.set_param(QP_WRITE, pii.show_refusal(exc, lang))
            else:
                if result.error:
                    st.error(t("write.failed", lang, write_id=result.write_id))
                    st.error(result.error.get("message", ""))
                elif result.remembered:
                    st.success(t("write.remembered", lang, reason=result.reason))
                else:
                    st.info(
                        t("write.not_remembered", lang, reason=reason_text(result.reason, lang))
                    )
                state.set_param(QP_WRITE, result.write_id)

st.divider()
st.subheader(t("write.history", lang))
with guard(lang):
    writes = engine.list_writes(scope, limit=PAST_WRITES)
if not writes.items:
    st.caption(t("write.no_history", lang))
else:
    frame = with_write_pii(writes_frame(writes.items, lang), writes.items, lang)
    st.dataframe(frame, hide_index=True)
    if writes.truncated:
        st.caption(t("write.history_more", lang, n=PAST_WRITES))
    ids = [w["id"] for w in writes.items]
    current = state.get_param(QP_WRITE)
    st.session_state["mi_w_pick"] = current if current in ids else None

    def _picked() -> None:
        state.set_param(QP_WRITE, st.session_state.get("mi_w_pick"))

    st.selectbox(
        t("write.open", lang),
        ids,
        key="mi_w_pick",
        on_change=_picked,
        placeholder=t("common.choose_one", lang),
    )

st.subheader(t("write.raw_header", lang))
with guard(lang):
    events, cursor = [], None
    while len(events) < RAW_EVENTS:
        batch = engine.events(scope, limit=min(200, RAW_EVENTS - len(events)), cursor=cursor)
        events.extend(batch.items)
        cursor = batch.next_cursor
        if not cursor or not batch.items:
            break
raw = raw_ingests_frame(events, lang)
if raw.empty:
    st.caption(t("write.raw_none", lang, n=len(events)))
    if not writes.items and not events:
        st.info(empty_tenant_hint(tenant, lang))
else:
    st.caption(t("write.raw_intro", lang, n=len(events)))
    st.dataframe(raw, hide_index=True, key="mi_w_raw")

with guard(lang):
    usage = engine.write_usage(scope)
if usage:
    st.subheader(t("write.usage", lang))
    st.dataframe(usage_frame(usage, lang), hide_index=True)
    used_tokens = any(d["prompt_tokens"] or d["completion_tokens"] for d in usage)
    if used_tokens and all(d["cost"] is None for d in usage):
        st.caption(t("write.usage_unpriced", lang))

write_id = state.get_param(QP_WRITE)
if write_id:
    with guard(lang):
        row = engine.write_status(scope, write_id)
    st.subheader(t("write.trail_of", lang, write_id=write_id, status=status_label(row, lang)))
    pii.render_write_pii(row, lang)
    spent = usage_line(row, lang)
    if spent:
        st.caption(spent)
    if row.get("trail"):
        render_trail({**row["trail"]}, lang)
    else:
        st.caption(t("write.no_trail", lang, status=status_label(row, lang)))
        if row.get("error"):
            st.error(str(row["error"].get("message", "")))
