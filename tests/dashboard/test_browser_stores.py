"""Real-browser test of the store selector: with PostgreSQL and a Qdrant local folder both
configured, pick Qdrant in the sidebar, switch to Overview, see the parity check, and the
choice stays in the URL (``streamlit run app.py`` subprocess + Playwright/Chromium)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memory_engine import MemoryEngine
from memory_engine.config import Settings
from memory_engine.stores.qdrant.store import QdrantStore
from memory_engine.stores.transfer import copy_stores
from tests.dashboard.browser import browser_page, needs_chromium, streamlit_server

pytestmark = needs_chromium


def test_pick_qdrant_in_the_sidebar_and_see_parity(
    dashboard_env: dict[str, str],
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant()
    folder = str(tmp_path / "qdrant")
    # seed the Qdrant folder before the server opens it (local mode is single-process)
    with QdrantStore(Settings(_env_file=None, store="qdrant", qdrant_path=folder)) as qd:  # type: ignore[call-arg]
        assert copy_stores(dash_engine.store, qd, tenants=[tenant])["ok"]

    env = {**dashboard_env, "MEMORY_QDRANT_PATH": folder}
    with streamlit_server(env, tmp_path) as url:
        with browser_page(width=1400, height=1000) as page:
            page.goto(f"{url}/?tenant={tenant}")
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar.get_by_text("Store: postgres")).to_be_visible()
            sidebar.get_by_text("Qdrant", exact=True).click()
            expect(page).to_have_url(re.compile(r"store=qdrant"))
            expect(sidebar.get_by_text("Store: qdrant")).to_be_visible()
            sidebar.get_by_role("link", name="Memories").click()
            expect(page.get_by_role("heading", name="Memories")).to_be_visible()
            expect(page).to_have_url(re.compile(r"/memories\?.*store=qdrant"))
            sidebar.get_by_role("link", name="Overview").click()
            expect(page.get_by_text("Parity: both stores hold the same 4")).to_be_visible()
            expect(sidebar.get_by_text("Store: qdrant")).to_be_visible()
            page.screenshot(path=str(tmp_path / "browser_stores.png"), full_page=True)
