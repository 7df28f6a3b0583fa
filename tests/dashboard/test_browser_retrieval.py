"""Real-browser flow of the Query Replay retrieval tools: open a stored trace by its shared link,
ask "why not X?" for a memory cut at top k, and compare with another fusion method."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from memory_engine import MemoryEngine, Scope
from tests.dashboard.browser import browser_page, needs_chromium

pytestmark = needs_chromium


def test_why_not_and_compare_in_browser(
    dashboard_server: str,  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant(extra=3)
    scope = Scope.of(tenant)
    res = dash_engine.search(scope, "peanut allergy", k=1)
    cut = next(c for c in res.trace.candidates if c.dropped == "below_top_k")

    with browser_page(width=1400, height=1600) as page:
        page.goto(f"{dashboard_server}/query_replay?tenant={tenant}&trace={res.trace.id}")
        expect(page.get_by_text("Why not X?")).to_be_visible()
        box = page.get_by_label("Memory id (paste or pick from the table)")
        box.fill(str(cut.memory_id))
        box.press("Enter")
        expect(page.get_by_text("Cut: out-ranked, below top k")).to_be_visible()
        form = page.get_by_test_id("stForm").filter(has_text="Fusion (B)")
        form.get_by_role("button", name="Compare").click()
        expect(page.get_by_text(re.compile(r"overlap@1: \d+%"))).to_be_visible()
        page.screenshot(path=str(tmp_path / "browser_why_not.png"), full_page=True)
