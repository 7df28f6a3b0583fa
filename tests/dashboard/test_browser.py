"""One real-browser test of the critical flow: pick a tenant, switch page, edit a memory with a
reason, save, and read the edit back through the engine.

Runs ``streamlit run app.py`` as a subprocess against the test database and drives it with
Playwright (headless Debian Chromium at /usr/bin/chromium; never ``playwright install``).
Skipped when Chromium is not installed.
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine, Scope
from tests.dashboard.browser import browser_page, needs_chromium, pick_option

pytestmark = needs_chromium


def test_edit_memory_in_browser_persists(
    dashboard_server: str,
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant()
    scope = Scope.of(tenant)
    target = next(
        m for m in dash_engine.list(scope).items if m.content == "Ann is allergic to peanuts"
    )
    new_content = "Ann is allergic to peanuts and cashews"

    with browser_page(width=1400, height=1000) as page:
        page.goto(dashboard_server)
        sidebar = page.get_by_test_id("stSidebar")

        # pick the tenant in the sidebar selector (filtered: the option list is virtualised)
        pick_option(
            page,
            sidebar.get_by_test_id("stSelectbox").first,
            tenant,
            tenant,
            chosen=lambda: expect(page).to_have_url(
                re.compile(rf"tenant={re.escape(tenant)}"), timeout=20_000
            ),
        )
        expect(page.get_by_text(f"Tenant {tenant}")).to_be_visible()

        # switch page through the sidebar navigation: the tenant stays selected
        sidebar.get_by_role("link", name="Memories").click()
        expect(page.get_by_role("heading", name="Memories")).to_be_visible()
        expect(page).to_have_url(re.compile(rf"/memories\?.*tenant={re.escape(tenant)}"))

        # choose the memory, edit its content, give a reason, save
        chooser = page.get_by_test_id("stSelectbox").filter(has_text="Memory to inspect")
        expect(chooser).to_be_visible()
        pick_option(
            page,
            chooser,
            "Ann is allergic",
            "Ann is allergic to peanuts",
            chosen=lambda: expect(page).to_have_url(
                re.compile(f"memory={target.id}"), timeout=20_000
            ),
        )
        expect(page).to_have_url(re.compile(f"memory={target.id}"))
        form = page.get_by_test_id("stForm")
        form.get_by_label("Content").fill(new_content)
        form.get_by_label("Reason (required)").fill("browser edit")
        form.get_by_role("button", name="Save").click()
        expect(page.get_by_text("Saved version 2.")).to_be_visible()
        # the history shows the edit; a reload shows the same memory with its new content
        edit_reason = page.locator("td[role=gridcell]", has_text="browser edit")
        expect(edit_reason.first).to_be_attached()
        page.reload()
        expect(page.get_by_role("heading", name=f"Memory {str(target.id)[:8]}")).to_be_visible()
        expect(page.get_by_test_id("stForm").get_by_label("Content")).to_have_value(new_content)
        expect(edit_reason.first).to_be_attached()
        page.screenshot(path=str(tmp_path / "browser_edit.png"), full_page=True)

    saved = dash_engine.get(scope, target.id)
    assert saved.content == new_content
    assert saved.version == 2
    last = dash_engine.history(scope, target.id).items[-1]
    assert (last.action.value, last.actor, last.reason) == (
        "update",
        "dashboard:local",
        "browser edit",
    )


def _click_table_row(page: Any, table: Any, row: int) -> None:
    """Click the selection checkbox of ``row`` (0-based) of an ``st.dataframe`` (a canvas grid:
    35 px header, 35 px rows, checkboxes in the first 36 px)."""
    box = table.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + 18, box["y"] + 35 + 35 * row + 17)


def test_shared_link_on_fresh_server_and_row_selection_per_page(
    dashboard_server: str,
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    """A page URL as the first request of a fresh server still runs app.py (sidebar, tenant);
    a row chosen on page 1 does not stay checked on page 2, and a click there opens that row."""
    from playwright.sync_api import expect

    tenant = make_tenant(extra=26)  # 30 rows: pages of 25 + 5
    scope = Scope.of(tenant)
    page1 = dash_engine.list(scope, limit=25)
    page2 = dash_engine.list(scope, limit=25, cursor=page1.next_cursor)
    ids1, ids2 = [str(m.id) for m in page1.items], [str(m.id) for m in page2.items]

    with browser_page(width=1400, height=1100) as page:
        page.goto(f"{dashboard_server}/memories?tenant={tenant}")  # first request
        sidebar = page.get_by_test_id("stSidebar")
        expect(sidebar.get_by_text("Language")).to_be_visible()
        expect(sidebar.get_by_role("link", name="Query Replay")).to_be_visible()
        expect(page.get_by_text("Rows 1–25 of 30")).to_be_visible()

        _click_table_row(page, page.get_by_test_id("stDataFrame").first, 1)
        expect(page).to_have_url(re.compile(f"memory={ids1[1]}"))
        page.get_by_role("button", name="Next →").click()
        expect(page.get_by_text("Rows 26–30 of 30")).to_be_visible()
        time.sleep(1)  # let the grid draw its rows
        # row 1 of page 2 is not checked: one click checks it and opens that memory
        _click_table_row(page, page.get_by_test_id("stDataFrame").first, 1)
        expect(page).to_have_url(re.compile(f"memory={ids2[1]}"))
        expect(page.get_by_text(f"Memory {ids2[1][:8]}")).to_be_visible()
        page.screenshot(path=str(tmp_path / "page2_selection.png"), full_page=True)
