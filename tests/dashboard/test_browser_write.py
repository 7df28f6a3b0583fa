"""Real-browser flow of the Write Inspector: paste a fact, run the pipeline for real, read the
stored memory back through the engine; a pasted secret is shown redacted with its PII panel and
never appears in the page (Playwright + /usr/bin/chromium, offline rules LLM)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.write.journal import WriteJournal
from tests.dashboard.browser import browser_page, needs_chromium
from tests.dashboard.conftest import new_tenant

SECRET = "sk-proj-BrowserSecret0123456789ab"

pytestmark = needs_chromium


@pytest.fixture
def journal_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The server's write journal, in this test's tmp folder (set before the server starts)."""
    path = tmp_path / "server-journal.sqlite3"
    monkeypatch.setenv("MEMORY_WRITE_QUEUE_PATH", str(path))
    return path


def test_write_inspector_in_browser_stores_fact(
    journal_env: Path,
    dashboard_server: str,  # noqa: F811
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = new_tenant("wbrowser")
    with browser_page(width=1400, height=1000) as page:
        page.goto(f"{dashboard_server}/write_inspector?tenant={tenant}")
        expect(page.get_by_role("heading", name="Write Inspector").first).to_be_visible()
        form = page.get_by_test_id("stForm")
        form.get_by_label("Text to remember").fill("我对花生过敏")
        form.get_by_text("Dry run (change nothing)").click()  # untick: a real write
        form.get_by_role("button", name="Run pipeline").click()
        expect(page.get_by_text("Remembered: matched: allergy")).to_be_visible()
        expect(page).to_have_url(re.compile(r"write=[0-9a-f-]{36}"))
        page.screenshot(path=str(tmp_path / "write_inspector.png"), full_page=True)
        write_id = re.search(r"write=([0-9a-f-]{36})", page.url).group(1)  # type: ignore[union-attr]
        # a secret is redacted before anything else; the page says so and never shows it
        form.get_by_label("Text to remember").fill(f"我的部署密钥是 {SECRET}")
        form.get_by_role("button", name="Run pipeline").click()
        found = "Found: API key or secret (1 in all). Policy: redacted."
        expect(page.get_by_text(found)).to_be_visible()
        form.get_by_label("Text to remember").fill("")  # the user's own keystrokes aside
        code = page.get_by_test_id("stCode").filter(has_text="我的部署密钥是 [SECRET]")
        expect(code.first).to_be_visible()
        assert SECRET not in page.content()
    scope = Scope.of(tenant)
    stored = sorted(m.content for m in dash_engine.list(scope).items)
    assert stored == ["用户对花生过敏", "用户的部署密钥是 [SECRET]"]
    journal = WriteJournal(journal_env)
    try:
        row = journal.get(write_id, scope)
        assert row["status"] == "done" and row["trail"]["rows"]
    finally:
        journal.close()
