"""Query Replay: "Why not X?": where one memory left the search, beside the last returned one.

``render(trace, lang)`` draws the section; the verdict comes from
``memory_engine.retrieval.explain.why_not`` (pure, tested on its own).
"""

from __future__ import annotations

import uuid

import pandas as pd
import streamlit as st

from memory_engine.models import Trace
from memory_engine.retrieval.explain import WhyNot, why_not
from memory_engine.retrieval.scores import score_label
from memory_engine.ui import tables
from memory_engine.ui.i18n import t

W_ID = "mi_why_id"
W_PICK = "mi_why_pick"
MAX_PICK = 200


def scores_frame(result: WhyNot, lang: str) -> pd.DataFrame:
    """One row per score name: the memory's value and the last returned candidate's."""
    last = result.last_kept.scores if result.last_kept else {}
    names = list(dict.fromkeys([*result.scores, *last]))
    return pd.DataFrame(
        {
            t("why.score", lang): [score_label(n) for n in names],
            t("why.this", lang): [result.scores.get(n) for n in names],
            t("why.last_kept", lang): [last.get(n) for n in names],
        }
    )


def render(trace: Trace, lang: str) -> None:
    """The "why not X?" section of one trace."""
    st.markdown(f"**{t('why.header', lang)}**")
    options = {
        str(c.memory_id): f"{tables.short_id(c.memory_id)} · {tables.clip(c.content, 60)}"
        for c in trace.candidates[:MAX_PICK]
    }
    c1, c2 = st.columns(2)
    typed = c1.text_input(t("why.input", lang), key=W_ID).strip()
    picked = c2.selectbox(
        t("why.pick", lang),
        list(options),
        index=None,
        format_func=options.__getitem__,
        key=W_PICK,
    )
    raw = typed or picked
    if not raw:
        return
    try:
        memory_id = uuid.UUID(raw)
    except ValueError:
        st.warning(t("why.bad_id", lang, value=raw[:80]))
        return
    result = why_not(trace, memory_id)
    st.markdown(
        t("why.verdict", lang, verdict=t(f"why.v.{result.verdict}", lang), stage=result.stage)
    )
    st.caption(result.explanation)
    if result.legs:
        st.caption(t("why.legs", lang, legs=", ".join(f"{k} #{v}" for k, v in result.legs.items())))
    if result.scores or result.last_kept:
        st.dataframe(scores_frame(result, lang), hide_index=True, key="mi_why_scores")
