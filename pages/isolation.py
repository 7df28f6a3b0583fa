"""Isolation: run the cross-tenant isolation check on the chosen store (admin only) and show
probes and leaks per path, with the report as JSON (``memory_engine.isolation.check``; the
CLI, MCP and dashboard paths through the probers their frontends supply).

URL parameter (besides ``lang``): ``tenants`` (how many test tenants the check creates); the
check itself runs only on the button."""

from __future__ import annotations

import json

import streamlit as st

from memory_engine.cli.isolation_probe import CliProber
from memory_engine.dashboard import signin
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames.isolation import calls_frame, leaks_frame, per_path_frame
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.isolation_probe import DashboardProber
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.url_state import UrlParam, UrlState, number
from memory_engine.isolation.check import run_isolation_check
from memory_engine.mcp_server.isolation_probe import McpProber

page = open_page("isolation.title", caption_key="isolation.caption")
lang, engine = page.lang, page.engine
if signin.denied(lang, Action.ADMIN):  # cross-tenant: an admin granted every tenant ('*')
    st.stop()

view = UrlState((UrlParam("tenants", "mi_iso_tenants", number(2, 6, 3, whole=True)),))
view.restore()
tenants = st.slider(t("isolation.tenants", lang), 2, 6, **view.bind("tenants"))
if st.button(t("isolation.run", lang), type="primary", key="mi_iso_run"):
    pairs = tenants * (tenants - 1)
    bar = st.progress(0.0, text=t("isolation.running", lang, done=0, total=pairs))

    def tick(done: int, total: int) -> None:
        bar.progress(done / total, text=t("isolation.running", lang, done=done, total=total))

    with guard(lang):
        probers = [CliProber(engine), McpProber(engine), DashboardProber(engine)]
        report = run_isolation_check(engine, tenants=tenants, on_progress=tick, probers=probers)
    st.session_state["mi_iso_report"] = report.to_dict()

data = st.session_state.get("mi_iso_report")
if data:
    if data["ok"]:
        st.success(t("isolation.ok", lang, probes=data["probes"], seconds=data["duration_s"]))
    else:
        st.error(t("isolation.leaks", lang, leaks=data["leaks"], errors=len(data["errors"])))
    st.subheader(t("isolation.paths_header", lang))
    st.caption(t("isolation.paths_caption", lang))
    st.dataframe(
        per_path_frame(data, lang),
        hide_index=True,
        key="mi_iso_per_path",
    )
    st.subheader(t("isolation.calls_header", lang))
    paths = calls_frame(data, lang)
    st.dataframe(paths, hide_index=True, key="mi_iso_paths")
    if data["leak_details"]:
        st.dataframe(leaks_frame(data), hide_index=True, key="mi_iso_leaks")
    for message in data["errors"][:20]:
        st.warning(message)
    st.download_button(
        t("isolation.download", lang),
        json.dumps(data, ensure_ascii=False, indent=1).encode("utf-8"),
        file_name=f"isolation-{data['run_id']}.json",
        mime="application/json",
        key="mi_iso_download",
    )
