"""Query Replay: "Why not X?": where one memory left the search, beside the last returned one.

``render(trace, lang)`` draws the section; the verdict comes from
``memory_engine.retrieval.explain.why_not`` (pure, tested on its own).
"""

from __future__ import annotations

import uuid

import pandas as pd
import streamlit as st

from memory_engine.dashboard import tables
from memory_engine.dashboard.i18n import STRINGS, t
from memory_engine.dashboard.markdown import md
from memory_engine.models import Trace
from memory_engine.retrieval.explain import WhyNot, why_not
from memory_engine.retrieval.scores import score_label

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


def explanation(result: WhyNot, trace: Trace, lang: str) -> str:
    """The verdict's explanation in ``lang`` (``WhyNot.explanation`` is English only), from
    the same fields: ranks, scores, the trace's configuration and the last returned one."""
    config, scores = trace.config, result.scores
    verdict = result.verdict
    if verdict == "not_recalled":
        return t("why.x.not_recalled", lang, depth=config.get("candidates_per_leg", "?"))
    if verdict == "returned":
        return t("why.x.returned", lang, rank=result.ranks.get("final"))
    if verdict == "below_min_score":
        rrf = f"{scores.get('rrf', 0.0):.5f}"
        return t("why.x.below_min_score", lang, rrf=rrf, min_score=config.get("min_score"))
    if verdict == "below_min_cosine":
        return t("why.x.below_min_cosine", lang, cosine=f"{scores.get('cosine', 0.0):.3f}")
    if verdict in ("duplicate_content", "near_duplicate"):
        return t("why.x.duplicate", lang)
    if verdict == "below_top_k":
        text = t("why.x.below_top_k", lang, rank=result.ranks.get("weighted"), k=config.get("k"))
        final = scores.get("final")
        last = result.last_kept.scores.get("final") if result.last_kept else None
        if final is not None and last is not None:
            gap = "" if lang == "zh" else " "  # Chinese sentences are not space-separated
            text += gap + t("why.x.final_vs_last", lang, final=f"{final:.4f}", last=f"{last:.4f}")
        return text
    if verdict == "over_token_budget":
        return t("why.x.over_token_budget", lang, budget=config.get("token_budget"))
    return t("why.x.other", lang, reason=result.explanation)


def stage_name(stage: str, lang: str) -> str:
    """A verdict's stage in ``lang`` (unknown stages as they are)."""
    key = f"why.stage.{stage}"
    return t(key, lang) if key in STRINGS else stage


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
