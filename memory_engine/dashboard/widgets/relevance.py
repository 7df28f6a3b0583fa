"""Query Replay: relevance labels for the returned memories -> P@k, MRR and nDCG@k.

Labels live in the page session only (they are a quick judgement of one query); the metric
functions are ``memory_engine.retrieval.explain``'s.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from memory_engine import Trace, returned_ids
from memory_engine.dashboard.frames import cells
from memory_engine.dashboard.frames.retrieval import metrics
from memory_engine.dashboard.i18n import t


def render(trace: Trace, lang: str) -> None:
    """A ✓ column over the returned memories, and the metrics of the labels."""
    ids = returned_ids(trace)
    if not ids:
        return
    st.markdown(f"**{t('rel.header', lang)}**")
    content = {c.memory_id: c.content for c in trace.candidates}
    frame = pd.DataFrame(
        {
            t("col.final_rank", lang): list(range(1, len(ids) + 1)),
            t("col.id", lang): [str(i) for i in ids],
            t("col.content", lang): [cells.clip(content.get(i, "")) for i in ids],
            t("rel.relevant", lang): [False] * len(ids),
        }
    )
    edited = st.data_editor(
        frame,
        hide_index=True,
        key=f"mi_rel_{trace.id}",
        disabled=[c for c in frame.columns if c != t("rel.relevant", lang)],
    )
    relevant = {
        row[t("col.id", lang)] for _, row in edited.iterrows() if row[t("rel.relevant", lang)]
    }
    k = len(ids)
    m = metrics([str(i) for i in ids], relevant, k)
    st.caption(t("rel.metrics", lang, k=k, n=len(relevant), **m))
