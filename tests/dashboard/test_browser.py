"""One real-browser test of the critical flow: pick a tenant, switch page, edit a memory with a
reason, save, and read the edit back through the engine.

Runs ``streamlit run app.py`` as a subprocess against the test database and drives it with
Playwright (headless Debian Chromium at /usr/bin/chromium; never ``playwright install``).
Skipped when Chromium is not installed.
"""

from __future__ import annotations

import contextlib
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from tests.dashboard.conftest import ROOT

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
STREAMLIT = os.path.join(ROOT, ".venv", "bin", "streamlit")
if not os.path.exists(STREAMLIT):
    STREAMLIT = os.path.join(os.path.dirname(sys.executable), "streamlit")

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs /usr/bin/chromium")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _wait_healthy(url: str, proc: subprocess.Popen[bytes], log: Path, timeout: float = 90) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(
                f"streamlit exited with {proc.returncode}:\n{log.read_text()[-3000:]}"
            )
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as resp:
                if resp.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise TimeoutError(f"streamlit not healthy after {timeout}s:\n{log.read_text()[-3000:]}")


@contextlib.contextmanager
def streamlit_server(
    env: dict[str, str], tmp_path: Path, extra_args: tuple[str, ...] = ()
) -> Iterator[str]:
    """``streamlit run app.py`` on a free port with ``env`` added; yields its URL."""
    port = _free_port()
    log = tmp_path / f"streamlit-{port}.log"
    full_env = {**os.environ, **env, "PYTHONPATH": ROOT}
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                STREAMLIT,
                "run",
                "app.py",
                "--server.headless",
                "true",
                "--server.port",
                str(port),
                "--server.address",
                "127.0.0.1",
                "--browser.gatherUsageStats",
                "false",
                "--server.fileWatcherType",
                "none",
                *extra_args,
            ],
            cwd=ROOT,
            env=full_env,
            stdout=out,
            stderr=subprocess.STDOUT,
        )
        try:
            url = f"http://127.0.0.1:{port}"
            _wait_healthy(url, proc, log)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=5)


@pytest.fixture
def dashboard_server(dashboard_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    """URL of ``streamlit run app.py`` on a free port, using the test database."""
    with streamlit_server(dashboard_env, tmp_path) as url:
        yield url


def test_edit_memory_in_browser_persists(
    dashboard_server: str,
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)  # the first save loads the embedding model in the server
    tenant = make_tenant()
    scope = Scope.of(tenant)
    target = next(
        m for m in dash_engine.list(scope).items if m.content == "Ann is allergic to peanuts"
    )
    new_content = "Ann is allergic to peanuts and cashews"

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(60_000)
            page.goto(dashboard_server)
            sidebar = page.get_by_test_id("stSidebar")

            # pick the tenant in the sidebar selector
            sidebar.get_by_test_id("stSelectbox").first.click()
            page.keyboard.type(tenant)  # filter: the option list is virtualised (not all rendered)
            page.get_by_role("option", name=re.compile(re.escape(tenant))).click()
            expect(page).to_have_url(re.compile(rf"tenant={re.escape(tenant)}"))
            expect(page.get_by_text(f"Tenant {tenant}")).to_be_visible()

            # switch page through the sidebar navigation: the tenant stays selected
            sidebar.get_by_role("link", name="Memories").click()
            expect(page.get_by_role("heading", name="Memories")).to_be_visible()
            expect(page).to_have_url(re.compile(rf"/memories\?.*tenant={re.escape(tenant)}"))

            # choose the memory, edit its content, give a reason, save
            chooser = page.get_by_test_id("stSelectbox").filter(has_text="Memory to inspect")
            expect(chooser).to_be_visible()
            option = page.get_by_role("option", name=re.compile("Ann is allergic to peanuts"))
            page.wait_for_function(  # the page's own run has ended
                "() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')"
            )
            for _attempt in range(3):  # a late rerun of the page can close an opened list
                chooser.get_by_role("combobox").click()  # the text input itself
                page.keyboard.press("Control+A")  # an earlier attempt's text is replaced
                page.keyboard.type("Ann is allergic")  # filter: the option list is virtualised
                try:
                    option.wait_for(state="visible", timeout=15_000)
                    option.click(timeout=15_000)
                    break
                except PlaywrightTimeout:
                    page.keyboard.press("Escape")  # nothing chosen yet: only closes the list
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
        finally:
            browser.close()

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
    from playwright.sync_api import expect, sync_playwright

    expect.set_options(timeout=60_000)
    tenant = make_tenant(extra=26)  # 30 rows: pages of 25 + 5
    scope = Scope.of(tenant)
    page1 = dash_engine.list(scope, limit=25)
    page2 = dash_engine.list(scope, limit=25, cursor=page1.next_cursor)
    ids1, ids2 = [str(m.id) for m in page1.items], [str(m.id) for m in page2.items]

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1400, "height": 1100})
            page.set_default_timeout(60_000)
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
        finally:
            browser.close()
