"""Conflicts: the write judge's supersede / supplement decisions as a review queue; accept or
reject each with a reason (recorded as a memory event and in the write journal)."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from memory_engine.dashboard import signin, state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.i18n import t
from memory_engine.models import Scope
from memory_engine.security.auth import Action

LIMIT = 50

state.ensure_router()
lang = state.current_lang()
tenant = state.current_tenant()
engine = state.get_engine()

st.title(t("conflicts.title", lang))
st.caption(t("conflicts.intro", lang))
if tenant is None:
    st.info(t("common.no_tenant", lang))
    st.stop()
scope = Scope.of(tenant)
st.caption(t("common.current_tenant", lang, tenant=tenant))

with guard(lang):
    queue = engine.list_conflicts(scope, limit=LIMIT)
items = queue["items"]
if not items:
    st.info(t("conflicts.empty", lang))
    st.stop()
frame = pd.DataFrame(
    [
        {
            t("wcol.action", lang): c["action"],
            t("wcol.new", lang): c["new_content"],
            t("wcol.old", lang): c["old_content"],
            t("wcol.old_status", lang): c["old_status"],
            t("wcol.detail", lang): c["reason"],
            t("wcol.review", lang): (c["review"] or {}).get("decision", ""),
            t("wcol.created", lang): str(c["at"])[:19].replace("T", " "),
        }
        for c in items
    ]
)
st.dataframe(frame, hide_index=True)
if queue["truncated"]:
    st.caption(t("conflicts.truncated", lang, n=LIMIT))

labels = [
    f"{i + 1}. {c['old_content'][:40]} → {c['new_content'][:40]}" for i, c in enumerate(items)
]
with st.form("mi_conflict"):
    pick = st.selectbox(
        t("conflicts.pick", lang),
        range(len(items)),
        format_func=labels.__getitem__,
        key="mi_c_pick",
    )
    decision = st.radio(
        t("conflicts.decision", lang),
        ["accept", "reject"],
        format_func=lambda d: t(f"conflicts.{d}", lang),
        key="mi_c_decision",
        horizontal=True,
    )
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
