"""Real-browser sign-in: a viewer signs in with a password from secrets.toml, sees only the
granted tenant, cannot save an edit, and signs out."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memory_engine import MemoryEngine, Scope
from memory_engine.security.auth import Role, add_user
from tests.dashboard.browser import browser_page, needs_chromium, streamlit_server

pytestmark = needs_chromium


def test_viewer_signs_in_in_the_browser(
    dashboard_env: dict[str, str],
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant, other = make_tenant(), make_tenant()
    secrets = tmp_path / "secrets.toml"
    add_user(secrets, "vera", "viewer-password", Role.VIEWER, [tenant])
    mid = dash_engine.list(Scope.of(tenant), limit=1).items[0].id
    env = {**dashboard_env, "MEMORY_DASHBOARD_AUTH": "password"}
    with streamlit_server(env, tmp_path, ("--secrets.files", str(secrets))) as url:
        with browser_page(width=1400, height=1000) as page:
            page.goto(f"{url}/memories?tenant={tenant}&memory={mid}")
            expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
            # no page content and no navigation before sign-in
            expect(page.get_by_role("link", name="Memories")).to_have_count(0)
            page.get_by_role("textbox", name="Name").fill("vera")
            page.get_by_role("textbox", name="Password").fill("wrong-password")
            page.get_by_role("button", name="Sign in").click()
            expect(page.get_by_text("wrong name or password")).to_be_visible()
            page.get_by_role("textbox", name="Password").fill("viewer-password")
            page.get_by_role("button", name="Sign in").click()
            sidebar = page.get_by_test_id("stSidebar")
            expect(sidebar.get_by_text("Signed in as")).to_be_visible()
            sidebar.get_by_role("link", name="Memories").click()
            expect(page).to_have_url(re.compile(rf"tenant={re.escape(tenant)}"))
            expect(page.get_by_role("button", name="Save")).to_be_disabled()
            page.goto(f"{url}/?tenant={other}")
            page.get_by_role("textbox", name="Name").fill("vera")
            page.get_by_role("textbox", name="Password").fill("viewer-password")
            page.get_by_role("button", name="Sign in").click()
            expect(page.get_by_text(f"You have no access to tenant {other}")).to_be_visible()
            page.screenshot(path=str(tmp_path / "browser_auth.png"), full_page=True)
            page.get_by_test_id("stSidebar").get_by_role("button", name="Sign out").click()
            expect(page.get_by_role("heading", name="Sign in")).to_be_visible()
