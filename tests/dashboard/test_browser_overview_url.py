"""Real browser: the Overview opened by its own URL (``/overview``), on a fresh server and on a
warm one, renders with the tenant and no "Page not found" notice; ``/`` lands on ``/overview``
with the query string kept."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memory_engine import MemoryEngine
from tests.dashboard.browser import chromium, needs_chromium, streamlit_server

pytestmark = needs_chromium


def test_overview_url_shows_no_page_not_found(
    dashboard_env: dict[str, str],
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant()
    with streamlit_server(dashboard_env, tmp_path) as url, chromium() as browser:
        # the first request of a fresh server, a later one, then the root URL
        for visit, path in (("fresh", "/overview"), ("warm", "/overview"), ("root", "/")):
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(f"{url}{path}?tenant={tenant}&lang=en")
            expect(page.get_by_role("heading", name="Overview")).to_be_visible()
            expect(page.get_by_text(f"Tenant {tenant}")).to_be_visible()
            expect(page).to_have_url(re.compile(rf"/overview\?.*tenant={tenant}"))
            page.wait_for_timeout(1500)  # the notice would come with the first script run
            page.screenshot(path=str(tmp_path / f"overview_{visit}.png"), full_page=True)
            assert page.get_by_text("Page not found").count() == 0, visit
            assert page.get_by_test_id("stDialog").count() == 0, visit
            assert page.get_by_test_id("stToast").count() == 0, visit
            # the sidebar marks Overview as the current page
            current = page.get_by_test_id("stSidebarNav").locator("a[aria-current='page']")
            expect(current).to_have_text(re.compile("Overview"))
            page.close()
