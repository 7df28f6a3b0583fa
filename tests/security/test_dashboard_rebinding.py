"""DNS rebinding against the dashboard in local mode (``MEMORY_DASHBOARD_AUTH=none``, as
``make run`` starts it): a real ``streamlit run app.py`` subprocess on 127.0.0.1 and headless
Chromium told that ``evil.example`` resolves to 127.0.0.1 (``--host-resolver-rules``), so the
page and its websocket carry ``Host: evil.example:PORT`` and a matching Origin, exactly as after
a rebinding. The page opened at evil.example shows the refusal and no tenant data; the same
server opened at 127.0.0.1 shows the local-mode dashboard."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from memory_engine import MemoryEngine, Scope
from tests.dashboard.browser import CHROMIUM, CHROMIUM_ARGS, needs_chromium, streamlit_server
from tests.dashboard.conftest import (  # noqa: F401
    dash_engine,
    dashboard_database_url,
    dashboard_env,
    make_tenant,
)

pytestmark = needs_chromium


def test_a_rebinding_page_sees_nothing_in_local_mode(
    dashboard_env: dict[str, str],  # noqa: F811
    make_tenant: Callable[..., str],  # noqa: F811
    dash_engine: MemoryEngine,  # noqa: F811
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect, sync_playwright

    tenant = make_tenant()
    assert dash_engine.list(Scope.of(tenant)).items
    env = {**dashboard_env, "MEMORY_DASHBOARD_AUTH": "none"}
    with streamlit_server(env, tmp_path) as url, sync_playwright() as pw:
        port = url.rsplit(":", 1)[1]
        args = [*CHROMIUM_ARGS, "--host-resolver-rules=MAP evil.example 127.0.0.1"]
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=args)
        try:
            page = browser.new_page()
            page.set_default_timeout(60_000)
            page.goto(f"http://evil.example:{port}/?tenant={tenant}")
            expect(page.get_by_text("Refused: local mode")).to_be_visible(timeout=60_000)
            body = page.inner_text("body")
            assert tenant not in body.replace(f"?tenant={tenant}", "")
            assert "Local mode: no sign-in" not in body
            assert page.get_by_test_id("stSidebarNav").count() == 0
            page.screenshot(path=str(tmp_path / "rebinding.png"), full_page=True)

            own = browser.new_page()
            own.set_default_timeout(60_000)
            own.goto(f"http://127.0.0.1:{port}/?tenant={tenant}")
            expect(own.get_by_text("Local mode: no sign-in")).to_be_visible(timeout=60_000)
            assert "Refused: local mode" not in own.inner_text("body")
        finally:
            browser.close()
