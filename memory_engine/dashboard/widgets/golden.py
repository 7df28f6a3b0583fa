"""Query Replay: golden sets. Save the shown query with expected memory ids as a case, run a set
with the current configuration (recall@k and MRR per run, stored), export and import as JSON.

Roles: saving and importing a set changes it, so it needs the editor role (``Action.EDIT``, the
check the Conflicts page and the Write Inspector use); a viewer sees a notice instead of those
controls and may still run and export a set.

Storage and scoring live in ``memory_engine.retrieval.golden``; files under
``<data_dir>/golden/``.
"""

from __future__ import annotations

import streamlit as st

from memory_engine import (
    GoldenCase,
    GoldenStore,
    MemoryEngine,
    Scope,
    Trace,
    parse_golden,
    returned_ids,
    run_golden,
)
from memory_engine.config.layout import GOLDEN_DIR
from memory_engine.dashboard import signin
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import cells
from memory_engine.dashboard.frames.retrieval import runs_frame
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.signin import Action

IMPORTED = "mi_gold_imported"  # file id of the last imported upload


def store_for(engine: MemoryEngine, scope: Scope) -> GoldenStore:
    """The tenant's golden sets under the engine's data folder."""
    return GoldenStore(engine.settings.storage.data_dir / GOLDEN_DIR, scope)


def render(engine: MemoryEngine, scope: Scope, trace: Trace | None, lang: str) -> None:
    """The golden-set section (saving a case needs a trace on the page)."""
    st.markdown(f"**{t('gold.header', lang)}**")
    store = store_for(engine, scope)
    may_edit = signin.allowed(Action.EDIT, scope.tenant_id)
    if not may_edit:  # a notice instead of the save form and the uploader
        st.info(t("gold.editor_only", lang))
        signin.denied(lang, Action.EDIT, scope.tenant_id)
    if trace is not None and may_edit:
        content = {c.memory_id: c.content for c in trace.candidates}
        options = [c.memory_id for c in trace.candidates][:200]
        with st.form("mi_gold_save"):
            name = st.text_input(t("gold.set_name", lang), value="default", key="mi_gold_name")
            expected = st.multiselect(
                t("gold.expected", lang),
                options,
                default=returned_ids(trace)[:1],
                format_func=lambda m: f"{cells.short_id(m)} · {cells.clip(content[m], 60)}",
                key="mi_gold_expected",
                placeholder=t("common.choose_many", lang),
            )
            k = int(trace.config.get("k", 5))
            save = st.form_submit_button(t("gold.save", lang))
        if save:
            with guard(lang, stop=False) as g:
                golden = store.add_case(
                    name.strip(), GoldenCase(query=trace.query, expected=expected, k=k)
                )
            if not g.failed:
                st.success(t("gold.saved", lang, name=golden.name, n=len(golden.cases)))
    if may_edit:
        _import(store, lang)
    names = store.names()
    if not names:
        st.caption(t("gold.none", lang))
    else:
        picked = st.selectbox(
            t("gold.pick", lang),
            names,
            key="mi_gold_pick",
            placeholder=t("common.choose_one", lang),
        )
        with guard(lang, stop=False) as g:
            golden = store.load(picked)
        if g.failed:
            return
        st.caption(t("gold.cases", lang, n=len(golden.cases)))
        if st.button(t("gold.run", lang), key="mi_gold_run"):
            with guard(lang, stop=False) as g:
                run = run_golden(engine, scope, golden)
                golden = golden.model_copy(update={"runs": [*golden.runs, run]})
                store.save(golden)
            if not g.failed:
                st.success(
                    t("gold.result", lang, recall=100 * run.mean_recall, mrr=100 * run.mean_mrr)
                )
        if golden.runs:
            st.dataframe(runs_frame(golden.runs, lang), hide_index=True, key="mi_gold_runs")
        st.download_button(
            t("gold.export", lang),
            golden.model_dump_json(indent=1),
            file_name=f"{golden.name}.json",
            mime="application/json",
            key="mi_gold_export",
        )


def _import(store: GoldenStore, lang: str) -> None:
    """The import uploader. A file stays in the uploader across reruns, so each upload is
    imported once (by its file id): a later rerun, e.g. running the set, must not overwrite
    the set with the file again. Runs before the list of sets, which then shows it."""
    uploaded = st.file_uploader(t("gold.import", lang), type=["json"], key="mi_gold_import")
    if uploaded is None or st.session_state.get(IMPORTED) == uploaded.file_id:
        return
    with guard(lang, stop=False) as g:
        imported = parse_golden(uploaded.getvalue().decode("utf-8", errors="replace"))
        store.save(imported)
    st.session_state[IMPORTED] = uploaded.file_id  # a failed file is not retried either
    if not g.failed:
        st.success(t("gold.imported", lang, name=imported.name, n=len(imported.cases)))
