"""Real-browser flow of the Retention and Audit pages: see what the next maintenance would do,
run it from the page, then find its events on the Audit page (Playwright + Debian Chromium)."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

from memory_engine import MemoryEngine, Scope
from memory_engine.models import EventAction, Memory, MemoryStatus, utcnow
from memory_engine.stores.base import NewMemory
from memory_engine.text import content_hash, tokenize
from tests.dashboard.browser import browser_page, needs_chromium
from tests.dashboard.conftest import new_tenant

pytestmark = needs_chromium


def _aged(engine: MemoryEngine, tenant: str, text: str, importance: float, days: int) -> str:
    when = utcnow() - timedelta(days=days)
    memory = Memory(
        tenant_id=tenant,
        content=text,
        importance=importance,
        created_at=when,
        updated_at=when,
        content_hash=content_hash(text),
    )
    vec = engine.embedder.embed([text])[0]
    item = NewMemory(memory=memory, embedding=tuple(vec), terms=tuple(tokenize(text)))
    engine.store.insert([item], scope=Scope.of(tenant), actor="test")
    return str(memory.id)


def test_run_maintenance_then_audit_in_browser(
    dashboard_server: str,  # noqa: F811
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = new_tenant("brret")
    low = _aged(dash_engine, tenant, "it rained a little on that tuesday", 0.01, 200)
    _aged(dash_engine, tenant, "Ann's passport expires in 2031", 1.0, 1)
    _aged(dash_engine, tenant, "Ann's favourite tea is sencha", 0.8, 30)

    with browser_page(width=1400, height=1400) as page:
        page.goto(f"{dashboard_server}/retention?tenant={tenant}")
        expect(page.get_by_role("heading", name="Retention and forgetting")).to_be_visible()
        expect(
            page.get_by_text("The next maintenance would archive 1, purge 0 and expire 0.")
        ).to_be_visible()
        page.get_by_text(
            f"I understand this archives and purges (erases) memories of {tenant}."
        ).click()
        page.get_by_role("button", name="Run maintenance now").click()
        expect(
            page.get_by_text(re.compile(r"Done: archived 1, purged 0, expired 0"))
        ).to_be_visible()
        page.screenshot(path=str(tmp_path / "retention_run.png"), full_page=True)

        page.get_by_test_id("stSidebar").get_by_role("link", name="Audit").click()
        expect(page.get_by_role("heading", name="Event log")).to_be_visible()
        expect(page).to_have_url(re.compile(rf"/audit\?.*tenant={re.escape(tenant)}"))
        expect(page.get_by_text("The latest 4 of 4 events (newest first).")).to_be_visible()
        page.screenshot(path=str(tmp_path / "audit.png"), full_page=True)

    s = Scope.of(tenant)
    assert dash_engine.get(s, low).status is MemoryStatus.ARCHIVED
    last = dash_engine.history(s, low).items[-1]
    assert (last.action, last.actor) == (EventAction.ARCHIVE, "dashboard:local")
