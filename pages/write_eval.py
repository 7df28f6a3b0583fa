"""Write Evaluation: run the labelled write-path set for two configurations (the offline rules,
the configured OpenAI-compatible LLM, or two models) and compare the metrics side by side.
Each run uses a throwaway database; nothing of the store on screen is written.

URL parameters (besides ``lang``), written when the form is run: ``split``, ``limit``,
``provider_a`` / ``provider_b`` and ``model_a`` / ``model_b``. A link or a reload shows the same
configurations; the run itself (minutes, on a throwaway database) starts only on the button."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from memory_engine.dashboard import signin
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.write_eval import category_frame, failing_frame, metrics_frame
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.url_state import TEXT, UrlParam, UrlState, number, one_of
from memory_engine.dashboard.write_eval import (
    EvalConfiguration,
    run_configuration,
    shipped_cases,
    uploaded_cases,
)

REPORTS = "mi_we_reports"
SIDES = ("A", "B")
PROVIDERS = {"rules": "weval.provider_rules", "openai_compat": "weval.provider_openai"}


def ticker(side: str, bar: Any) -> Callable[[int, int], None]:
    """Progress callback of one side's run: case n of total on ``bar``."""

    def tick(n: int, total: int) -> None:
        bar.progress(n / total, text=t("weval.running", lang, side=side, n=n, total=total))

    return tick


page = open_page("weval.title", caption_key="weval.intro")
lang, engine = page.lang, page.engine
may_run = signin.allowed(Action.MAINTAIN)
llm_configured = bool(engine.settings.llm.base_url and engine.settings.llm.model)

SPLITS = ["dev", "heldout", "all"]
view = UrlState(
    (
        UrlParam("split", "mi_we_split", one_of(SPLITS, SPLITS[0])),
        UrlParam("limit", "mi_we_limit", number(0, 1000, 0, whole=True)),
        *(
            UrlParam(
                f"provider_{side.lower()}",
                f"mi_we_provider_{side}",
                one_of(PROVIDERS, "openai_compat" if side == "B" and llm_configured else "rules"),
            )
            for side in SIDES
        ),
        *(UrlParam(f"model_{side.lower()}", f"mi_we_model_{side}", TEXT) for side in SIDES),
    )
)
view.restore(when_changed=True)  # the form's submit is not overwritten by the older URL
with st.form("mi_we"):
    c = st.columns(3)
    split = c[0].selectbox(
        t("weval.split", lang),
        SPLITS,
        format_func=lambda s: t(f"weval.split_{s}", lang),
        key="mi_we_split",
        placeholder=t("common.choose_one", lang),
    )
    limit = c[1].number_input(t("weval.limit", lang), 0, 1000, step=1, key="mi_we_limit")
    upload = c[2].file_uploader(t("weval.upload", lang), type=["jsonl"], key="mi_we_upload")
    configs = {}
    for col, side in zip(st.columns(2), SIDES, strict=True):
        col.markdown(f"**{t('weval.config', lang, side=side)}**")
        provider = col.selectbox(
            t("weval.provider", lang),
            list(PROVIDERS),
            format_func=lambda p: t(PROVIDERS[p], lang),
            key=f"mi_we_provider_{side}",
            placeholder=t("common.choose_one", lang),
        )
        model = col.text_input(t("weval.model", lang), key=f"mi_we_model_{side}")
        configs[side] = EvalConfiguration(provider=provider, model=model.strip() or None)
    submitted = st.form_submit_button(t("weval.run", lang), type="primary", disabled=not may_run)
if not may_run:
    st.caption(t("weval.not_allowed", lang))

if submitted:
    view.write()  # the link now holds these configurations
if submitted and may_run:
    with guard(lang):
        cases = uploaded_cases(upload.getvalue()) if upload else shipped_cases(split)
    if limit:
        cases = cases[: int(limit)]
    if not cases:
        st.warning(t("weval.no_cases", lang))
    else:
        reports = {}
        for side in SIDES:
            bar = st.progress(0.0, text=t("weval.running", lang, side=side, n=0, total=len(cases)))
            with guard(lang):
                reports[side] = run_configuration(
                    engine.settings, configs[side], cases, progress=ticker(side, bar)
                )
            bar.empty()
        st.session_state[REPORTS] = reports

reports = st.session_state.get(REPORTS)
if reports:
    a, b = reports["A"], reports["B"]
    for side in SIDES:
        r = reports[side]
        st.caption(
            t(
                "weval.ran",
                lang,
                side=side,
                provider=r["provider"],
                model=r["model"],
                embedder=r["embedder"],
                cases=r["cases"],
                seconds=r["seconds"],
            )
        )
    st.subheader(t("weval.metrics", lang))
    st.dataframe(metrics_frame(a, b, lang), hide_index=True)
    if a.get("entity_linking_accuracy") is None and b.get("entity_linking_accuracy") is None:
        st.caption(t("weval.entity_note", lang))
    st.subheader(t("weval.by_category", lang))
    st.dataframe(category_frame(a, b, lang), hide_index=True)
    for side in SIDES:
        with st.expander(t("weval.failing", lang, side=side)):
            frame = failing_frame(reports[side], lang)
            if frame.empty:
                st.caption(t("weval.none_failing", lang))
            else:
                st.dataframe(frame, hide_index=True)
