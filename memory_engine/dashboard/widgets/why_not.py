"""Query Replay: "Why not X?": where one memory left the search, beside the last returned one.

``render(trace, lang)`` draws the section (its text and frames: :mod:`..frames.retrieval`);
the verdict comes from the engine's ``why_not`` (pure, tested on its own).
"""

from __future__ import annotations

import uuid

import streamlit as st

from memory_engine import Trace, why_not
from memory_engine.dashboard.frames import cells
from memory_engine.dashboard.frames.retrieval import explanation, scores_frame, stage_name
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.url_state import UUID_TEXT, UrlParam, UrlState

W_ID = "mi_why_id"


W_PICK = "mi_why_pick"
#: This widget's view state in the URL: ``why`` (the candidate asked about).
URL_PARAMS = (UrlParam("why", W_PICK, UUID_TEXT),)


MAX_PICK = 200


def render(trace: Trace, lang: str, url: UrlState | None = None) -> None:
    """The "why not X?" section of one trace.

    Args:
        url: the page's URL state holding :data:`URL_PARAMS` (restored before this call), so
            the candidate asked about survives a reload; None keeps it in the session only.
    """
    st.markdown(f"**{t('why.header', lang)}**")
    options = {
        str(c.memory_id): f"{cells.short_id(c.memory_id)} · {cells.clip(c.content, 60)}"
        for c in trace.candidates[:MAX_PICK]
    }
    c1, c2 = st.columns(2)
    typed = c1.text_input(t("why.input", lang), key=W_ID).strip()
    if st.session_state.get(W_PICK) not in options and st.session_state.get(W_PICK) is not None:
        st.session_state[W_PICK] = None  # an id of another trace
        if url is not None:
            url.set("why", None)
    bound = url.bind("why") if url is not None else {"key": W_PICK}
    picked = c2.selectbox(
        t("why.pick", lang),
        list(options),
        index=None,
        format_func=options.__getitem__,
        placeholder=t("common.choose_one", lang),
        **bound,
    )
    raw = typed or picked
    if not raw:
        return
    try:
        memory_id = uuid.UUID(raw)
    except ValueError:
        st.warning(t("why.bad_id", lang, value=md(raw[:80])))
        return
    result = why_not(trace, memory_id)
    verdict = t(f"why.v.{result.verdict}", lang)
    st.markdown(t("why.verdict", lang, verdict=verdict, stage=stage_name(result.stage, lang)))
    st.caption(explanation(result, trace, lang))
    if result.legs:
        st.caption(t("why.legs", lang, legs=", ".join(f"{k} #{v}" for k, v in result.legs.items())))
    if result.scores or result.last_kept:
        st.dataframe(scores_frame(result, lang), hide_index=True, key="mi_why_scores")
