"""Real-browser passes over every page: in 中文 no English interface text is visible (the
general rule of :mod:`tests.dashboard.untranslated` on the page's visible text); the README's
page screenshots exist, in English and in 中文 (``UPDATE_SCREENSHOTS=1`` makes them again into
``docs/screenshots/<page>.png`` and ``docs/screenshots/zh/<page>.png``; the 中文 ones need a CJK
font visible to fontconfig, e.g. ``eval "$(scripts/cjk-font.sh)"``); and the first search of a
fresh server answers, its time recorded (the timing itself is the bench's:
``bench/dashboard_first_search.py``).

Runs ``streamlit run app.py`` against the test database (fixtures of test_browser.py) in
headless Debian Chromium; skipped without /usr/bin/chromium.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bench.dashboard_first_search import time_search
from memory_engine import MemoryEngine
from tests.dashboard.browser import browser_page, needs_chromium
from tests.dashboard.test_app_chinese_ui import PAGES, seed_chinese_tenant
from tests.dashboard.untranslated import english_runs

pytestmark = needs_chromium

SCREENSHOTS = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
#: The 中文 screenshots (same file names).
SCREENSHOTS_ZH = SCREENSHOTS / "zh"
#: URL path of each page (app.py: the page file's name).
URL_PATHS = [p.removesuffix(".py") for p in PAGES]


#: Text Streamlit draws itself that no page can set: the file uploader's "Upload" and
#: "200MB per file", the date picker's "yyyy/mm/dd"; and the last part of a dotted module
#: name shown as code ("memory_engine.scoring").
STREAMLIT_CHROME = ("Upload", "per file", "dd", "mm", "yyyy", "scoring")


def _settled(page: Any) -> None:
    """Wait until the page's script run has ended (no running icon) and the title is shown."""
    page.locator("h1").first.wait_for(state="visible", timeout=60_000)
    deadline = time.monotonic() + 60
    while page.get_by_test_id("stStatusWidgetRunningIcon").count() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(0.5)  # late elements (charts, tables) draw


#: The visible text of the sidebar and the main area, without Material icons (drawn from
#: ligature names such as "database": not words a reader sees).
_TEXT_JS = """() => ['stSidebar', 'stMain'].map(id => {
    const root = document.querySelector(`[data-testid="${id}"]`);
    if (!root) return '';
    const copy = root.cloneNode(true);
    copy.querySelectorAll('[data-testid="stIconMaterial"], .material-symbols-rounded')
        .forEach(icon => icon.remove());
    document.body.appendChild(copy);
    const text = copy.innerText;
    copy.remove();
    return text;
}).join('\\n')"""


def _drawn(page: Any) -> None:
    """For a screenshot: wait until no placeholder skeleton is left (tables, charts drawn)."""
    deadline = time.monotonic() + 30
    while page.get_by_test_id("stSkeleton").count() and time.monotonic() < deadline:
        time.sleep(0.2)
    time.sleep(1.5)  # a data grid paints its canvas after its skeleton goes


def _visible_text(page: Any) -> str:
    return str(page.evaluate(_TEXT_JS))


def cjk_font() -> str | None:
    """The family of a Chinese font fontconfig offers (honouring ``FONTCONFIG_FILE``, which
    the browser inherits), or None: without one, 中文 screenshots would show empty boxes."""
    if shutil.which("fc-list") is None:
        return None
    found = subprocess.run(
        ["fc-list", ":lang=zh", "family"], capture_output=True, text=True, check=False
    ).stdout.strip()
    return found.splitlines()[0] if found else None


def test_every_page_in_chinese_in_the_browser(
    dashboard_server: str,  # noqa: F811
    dash_engine: MemoryEngine,
    record_property: Callable[[str, object], None],
) -> None:

    seeded = seed_chinese_tenant(dash_engine, extract=False)
    problems: dict[str, list[str]] = {}
    update = os.environ.get("UPDATE_SCREENSHOTS") == "1"
    if update and cjk_font() is None:
        pytest.fail(
            'the 中文 screenshots need a CJK font: run `eval "$(scripts/cjk-font.sh)"` '
            "(sets FONTCONFIG_FILE), then UPDATE_SCREENSHOTS=1 again"
        )
    with browser_page(width=1440, height=1000) as page:
        for path in URL_PATHS:
            page.goto(f"{dashboard_server}/{path}?tenant={seeded.tenant}&lang=zh")
            _settled(page)
            found = english_runs(_visible_text(page), (*seeded.data, *STREAMLIT_CHROME))
            if found:
                problems[path] = sorted(set(found))
            if update:  # the screenshots: Query Replay with the seeded search open
                shown = f"&trace={seeded.trace_id}" if path == "query_replay" else ""
                for lang, folder in (("zh", SCREENSHOTS_ZH), ("en", SCREENSHOTS)):
                    page.goto(
                        f"{dashboard_server}/{path}?tenant={seeded.tenant}&lang={lang}{shown}"
                    )
                    _settled(page)
                    _drawn(page)
                    folder.mkdir(parents=True, exist_ok=True)
                    page.screenshot(path=str(folder / f"{path}.png"))
    assert not problems, problems
    missing = [
        str(folder.relative_to(SCREENSHOTS.parent) / f"{p}.png")
        for folder in (SCREENSHOTS, SCREENSHOTS_ZH)
        for p in URL_PATHS
        if not (folder / f"{p}.png").exists()
    ]
    assert not missing, f"run with UPDATE_SCREENSHOTS=1 to make: {missing}"
    record_property("pages_checked", len(URL_PATHS))


def test_first_search_of_a_fresh_server_answers(
    dashboard_server: str,  # noqa: F811
    dash_engine: MemoryEngine,
    record_property: Callable[[str, object], None],
) -> None:
    """The server has just started (its warm-up runs in the background): the first search, run
    as soon as the page is ready, answers with the seeded memory; its time is recorded."""

    seeded = seed_chinese_tenant(dash_engine, extract=False)
    with browser_page(width=1440, height=1000) as page:
        figures = time_search(page, dashboard_server, seeded.tenant, "用户喜欢喝什么", "zh")
        # table cells are drawn on a canvas: the DOM cell is attached but hidden
        page.get_by_text("用户早上喜欢喝红茶").first.wait_for(state="attached")
    record_property("first_search_s", figures["search_s"])
    record_property("page_ready_s", figures["page_ready_s"])
    print(json.dumps({"test": "dashboard_first_search", **figures}))
