"""Every step of one write trail on the Write Inspector page (source, guard, LLM calls, facts
with candidates and judge, actions); the tables come from :mod:`..frames.writes`.
"""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.frames.writes import actions_frame, candidates_frame
from memory_engine.dashboard.i18n import label as catalog_label
from memory_engine.dashboard.i18n import reason_text, t
from memory_engine.dashboard.markdown import Md, md


def _call(call: dict[str, Any], lang: str) -> None:
    tokens = int(call.get("prompt_tokens", 0)) + int(call.get("completion_tokens", 0))
    label = t(
        "write.llm_call",
        lang,
        kind=catalog_label(f"write.call.{call.get('kind', '')}", lang, str(call.get("kind", ""))),
        provider=call.get("provider", ""),
        model=call.get("model", ""),
        latency=round(float(call.get("latency_ms", 0.0)), 1),
        tokens=tokens,
        fmt=call.get("response_format", ""),
    )
    with st.expander(label):
        st.caption(t("write.prompt", lang))
        st.code(json.dumps(call.get("prompt", []), ensure_ascii=False, indent=1), language="json")
        st.caption(t("write.raw_output", lang))
        st.code(call.get("raw_output") or "", language="text")
        st.caption(t("write.parsed", lang))
        st.json(call.get("parsed") or {})
        for w in call.get("warnings", []):
            st.warning(t("write.warning", lang, message=Md(w)))


def render_trail(trail: dict[str, Any], lang: str) -> None:
    """Every step of one write: source, guard, LLM calls, facts with candidates and judge,
    actions and resulting rows."""
    st.subheader(t("write.step_source", lang))
    source = trail.get("source") or {}
    st.code(source.get("text", ""), language="text")
    st.caption(
        md(f"{value_label('source', str(source.get('source', '')), lang)} · ")
        + md(f"{source.get('observed_at', '')} · ")
        + t("write.chars", lang, n=source.get("chars", 0))
    )
    st.subheader(t("write.step_guard", lang))
    guard = trail.get("guard") or {}
    notes = guard.get("notes") or []
    if notes:
        for note in notes:
            st.warning(md(str(note)))
    else:
        st.caption(t("write.guard_ok", lang))
    st.subheader(t("write.step_llm", lang))
    for call in trail.get("llm_calls", []):
        _call(call, lang)
    decision = trail.get("decision") or {}
    if decision.get("reason"):
        st.caption(t("write.decision", lang, reason=Md(reason_text(decision["reason"], lang))))
    st.subheader(t("write.step_facts", lang))
    for fact in trail.get("facts", []):
        st.markdown(t("write.fact", lang, content=Md(fact["fact"]["content"])))
        if fact.get("candidates"):
            st.dataframe(candidates_frame(fact["candidates"], lang), hide_index=True)
        judge = fact.get("judge")
        if isinstance(judge, dict) and "kind" in judge:
            _call(judge, lang)
        elif judge:
            st.caption(t("write.judge", lang, detail=Md(judge)))
    st.subheader(t("write.step_actions", lang))
    actions = trail.get("actions") or []
    if actions:
        st.dataframe(actions_frame(actions, lang), hide_index=True)
    else:
        st.caption(t("write.no_actions", lang))
    for w in trail.get("warnings", []):
        st.warning(t("write.warning", lang, message=Md(w)))
