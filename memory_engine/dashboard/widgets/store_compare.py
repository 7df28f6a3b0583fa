"""PostgreSQL vs Qdrant on the pages: one query on both stores (Query Replay) and per-store
counts with a parity verdict (Overview). Definitions and frames: :mod:`..frames.stores`.
"""

from __future__ import annotations

from typing import Final

import streamlit as st

from memory_engine import MemoryEngine, Scope, SearchOptions, SearchResult, Settings, Trace
from memory_engine.dashboard import stores
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.stores import (
    PARITY_ID_LIMIT,
    compare_frame,
    overlap_at_k,
    parity,
    parity_frame,
    rank_correlations,
)
from memory_engine.dashboard.i18n import t

SS_RESULT: Final = "mi_cmp_result"


def _engines() -> dict[str, MemoryEngine] | None:
    choices = stores.configured_stores(Settings())
    if len(choices) < 2:
        return None
    return {name: stores.engine_for(name) for name in choices}


def _fmt(value: float | None, lang: str) -> str:
    return t("stores.undefined", lang) if value is None else f"{value:.3f}"


def replay_section(scope: Scope, trace: Trace, lang: str) -> None:
    """Query Replay: run ``trace``'s query with its configuration on both stores (no trace
    saved) and show overlap@k, rank correlations and per-candidate score differences. Shows
    nothing when only one store is configured."""
    engines = _engines()
    if engines is None:
        return
    st.markdown(f"**{t('stores.compare_header', lang)}**")
    st.caption(t("stores.compare_caption", lang))
    key = f"{SS_RESULT}_{trace.id}"
    if st.button(t("stores.compare_run", lang), key="mi_cmp_run"):
        options = SearchOptions.from_trace_config(trace.config)
        results: dict[str, SearchResult] = {}
        with guard(lang, stop=False) as g, st.spinner(t("common.searching", lang)):
            for name, engine in engines.items():
                results[name] = engine.search(scope, trace.query, options=options, save_trace=False)
        if not g.failed:
            st.session_state[key] = (options.k, results)
    saved = st.session_state.get(key)
    if saved is None:
        return
    k, results = saved
    (res_a, res_b) = list(results.values())[:2]
    ids_a = [c.memory.id for c in res_a.memories]
    ids_b = [c.memory.id for c in res_b.memories]
    rho, tau, common = rank_correlations(ids_a, ids_b)
    cols = st.columns(4)
    cols[0].metric(t("stores.overlap", lang, k=k), _fmt(overlap_at_k(ids_a, ids_b, k), lang))
    cols[1].metric(
        t("stores.spearman", lang), _fmt(rho, lang), help=t("stores.correlation_help", lang)
    )
    cols[2].metric(
        t("stores.kendall", lang), _fmt(tau, lang), help=t("stores.correlation_help", lang)
    )
    cols[3].metric(t("stores.common", lang), common)
    st.dataframe(compare_frame(results, lang), hide_index=True, key="mi_cmp_table", placeholder="")


def overview_section(scope: Scope, lang: str) -> None:
    """Overview: memory records, status counts and events of the tenant in each store, and a
    parity verdict. Shows nothing when only one store is configured."""
    engines = _engines()
    if engines is None:
        return
    st.markdown(f"**{t('stores.parity_header', lang, tenant=scope.tenant_id)}**")
    with guard(lang, stop=False) as g:
        result = parity(engines, scope)
    if g.failed:
        return
    st.dataframe(parity_frame(result, lang), hide_index=True, key="mi_parity_table")
    if result["ok"]:
        records = next(iter(result["counts"].values()))["records"]
        st.success(t("stores.parity_ok", lang, records=records))
        if not result["ids_compared"]:
            st.caption(t("stores.parity_counts_only", lang, limit=PARITY_ID_LIMIT))
        return
    what = []
    if not result["counts_equal"]:
        what.append(t("stores.diff_counts", lang))
    if result["only_one"]:
        what.append(t("stores.diff_ids", lang, n=result["only_one"]))
    st.warning(t("stores.parity_differs", lang, what=", ".join(what)))
