"""Real-browser flow of the Context Preview: paste turns, assemble, follow the trace link."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memory_engine import MemoryEngine
from tests.dashboard.browser import browser_page, needs_chromium

pytestmark = needs_chromium


def test_context_preview_in_browser(
    dashboard_server: str,  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant()
    with browser_page(width=1400, height=1400) as page:
        page.goto(f"{dashboard_server}/context_preview?tenant={tenant}")
        expect(page.get_by_role("heading", name="Context Preview")).to_be_visible()
        form = page.get_by_test_id("stForm")
        form.get_by_role("textbox", name="Turns").fill(
            "user: I am cooking for Ann tonight.\nassistant: Lovely, what will you make?"
        )
        form.get_by_role("textbox", name="Current input").fill("Any allergies I should know about?")
        form.get_by_role("button", name="Assemble").click()
        expect(page.get_by_role("heading", name="Sections")).to_be_visible()
        expect(page.get_by_text("#2 · memory block · system")).to_be_visible()
        expect(page.get_by_text("Ann is allergic to peanuts").first).to_be_visible()
        page.screenshot(path=str(tmp_path / "context_preview.png"), full_page=True)
        page.get_by_role("link", name="Open the search trace in Query Replay").click()
        expect(page).to_have_url(re.compile(r"/query_replay\?.*trace="))
        expect(page.get_by_role("heading", name="Query Replay")).to_be_visible()
        expect(page.get_by_text("Any allergies I should know about?").first).to_be_visible()
