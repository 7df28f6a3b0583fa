"""Conflicts: the write judge's supersede / supplement decisions as a review queue; accept or
reject each with a reason (recorded as a memory event and in the write journal); then the
stale-fact report: recent searches where a superseded or older memory outranked the current one
(both scores, one click to each memory's history).

URL parameters (besides ``tenant``, ``lang``): ``conflict`` (the decision under review, as
``<write id>:<old memory id>``) and ``decision`` (``accept`` / ``reject``)."""

from __future__ import annotations

import streamlit as st

from memory_engine.dashboard import signin
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.writes import conflict_labels, conflicts_frame
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.url_state import UrlParam, UrlState, one_of
from memory_engine.dashboard.widgets import waterfall as waterfall_view

LIMIT = 50

page = open_page("conflicts.title", caption_key="conflicts.intro")
scope = page.require_tenant()
lang, engine, tenant = page.lang, page.engine, scope.tenant_id

with guard(lang):
    queue = engine.list_conflicts(scope, limit=LIMIT)
items = queue["items"]
if not items:
    st.info(t("conflicts.empty", lang))
    waterfall_view.render_stale_report(engine, scope, lang)
    st.stop()
frame = conflicts_frame(items, lang)
st.dataframe(frame, hide_index=True)
if queue["truncated"]:
    st.caption(t("conflicts.truncated", lang, n=LIMIT))

labels = conflict_labels(items)
keys = [f"{c['write_id']}:{c['old_id']}" for c in items]  # one decision: its write, its old id
view = UrlState(
    (
        UrlParam("conflict", "mi_c_pick", one_of(keys, keys[0])),
        UrlParam("decision", "mi_c_decision", one_of(["accept", "reject"], "accept")),
    )
)
view.restore()
pick_key = st.selectbox(
    t("conflicts.pick", lang),
    keys,
    format_func=lambda k: labels[keys.index(k)],
    placeholder=t("common.choose_one", lang),
    **view.bind("conflict"),
)
pick = keys.index(pick_key) if pick_key in keys else 0
st.radio(
    t("conflicts.decision", lang),
    ["accept", "reject"],
    format_func=lambda d: t(f"conflicts.{d}", lang),
    horizontal=True,
    **view.bind("decision"),
)
decision = str(st.session_state["mi_c_decision"])
with st.form("mi_conflict"):
    reason = st.text_input(t("conflicts.reason", lang), key="mi_c_reason")
    may_review = signin.allowed(Action.EDIT, tenant)  # a review changes the memory
    if not may_review:
        signin.denied(lang, Action.EDIT, tenant)
    saved = st.form_submit_button(
        t("conflicts.save", lang), type="primary", disabled=not may_review
    )
if saved and may_review:
    if not reason.strip():
        st.error(t("conflicts.need_reason", lang))
    else:
        chosen = items[int(pick)]
        with guard(lang, stop=False) as g:
            engine.review_conflict(
                scope,
                chosen["write_id"],
                chosen["old_id"],
                decision=decision,
                reason=reason,
                actor=signin.actor(),
            )
        if g.error is None:
            st.success(t("conflicts.saved", lang, decision=t(f"conflicts.{decision}", lang)))

waterfall_view.render_stale_report(engine, scope, lang)
