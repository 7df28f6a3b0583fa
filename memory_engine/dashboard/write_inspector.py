"""Rendering of write trails for the Write Inspector page (pure data helpers + Streamlit).

The data helpers (``writes_frame``, ``actions_frame``, ``candidates_frame``) are plain
functions of journal rows and trails, unit-testable without Streamlit.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd
import streamlit as st

from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import Md, md

#: Characters of an input shown in the list of past writes.
INPUT_PREVIEW = 80


def writes_frame(items: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Past writes (journal rows) as a table, newest first."""
    rows = [
        {
            t("wcol.write_id", lang): w["id"],
            t("wcol.created", lang): str(w.get("created_at", ""))[:19].replace("T", " "),
            t("wcol.status", lang): w.get("status", ""),
            t("wcol.mode", lang): w.get("mode", ""),
            t("wcol.input", lang): str((w.get("request") or {}).get("text", ""))[:INPUT_PREVIEW],
            t("wcol.detail", lang): str((w.get("result") or {}).get("reason") or ""),
        }
        for w in items
    ]
    return pd.DataFrame(rows)


def actions_frame(actions: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Actions of a write (create, duplicate, supersede, supplement; planned in a dry run)."""
    return pd.DataFrame(
        [
            {
                t("wcol.action", lang): a.get("action", "")
                + (" (dry run)" if a.get("planned") else ""),
                t("wcol.memory", lang): a.get("memory_id", ""),
                t("wcol.target", lang): a.get("target_id", ""),
                t("wcol.detail", lang): a.get("reason") or a.get("content") or a.get("note") or "",
            }
            for a in actions
        ]
    )


def candidates_frame(candidates: list[dict[str, Any]], lang: str) -> pd.DataFrame:
    """Stored memories shown to the judge for one fact (index = what the judge may name)."""
    return pd.DataFrame(
        [
            {
                t("wcol.index", lang): c["index"],
                t("wcol.candidate", lang): c["content"],
                "cosine ↑": c.get("cosine"),
                "bm25 ↑": c.get("bm25"),
                t("wcol.memory", lang): c["memory_id"],
            }
            for c in candidates
        ]
    )


def _call(call: dict[str, Any], lang: str) -> None:
    tokens = int(call.get("prompt_tokens", 0)) + int(call.get("completion_tokens", 0))
    label = t(
        "write.llm_call",
        lang,
        kind=call.get("kind", ""),
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
        md(f"{source.get('source', '')} · {source.get('observed_at', '')} · ")
        + f"{source.get('chars', 0)} chars"
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
