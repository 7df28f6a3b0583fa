"""Real-browser plumbing shared by the browser tests: Debian Chromium through Playwright (never
``playwright install``) and ``streamlit run app.py`` on a free port.

Tests that use it are skipped when Chromium is not installed (``needs_chromium``).
"""

from __future__ import annotations

import contextlib
import os
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = str(Path(__file__).resolve().parents[2])

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

needs_chromium = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs /usr/bin/chromium")


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


@contextlib.contextmanager
def chromium() -> Iterator[Any]:
    """A headless Chromium browser (a Playwright ``Browser``), closed on exit."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


@contextlib.contextmanager
def browser_page(
    *, width: int = 1400, height: int = 1000, timeout_ms: int = 60_000, **context: Any
) -> Iterator[Any]:
    """A Playwright ``Page`` of ``width`` x ``height`` CSS pixels in a new headless Chromium.

    ``timeout_ms`` (milliseconds) is the page's default timeout and the ``expect`` timeout: the
    first action of a fresh server can load an embedding model. ``context`` goes to
    ``Browser.new_context`` (e.g. ``timezone_id``, ``accept_downloads``).
    """
    from playwright.sync_api import expect

    expect.set_options(timeout=timeout_ms)
    with chromium() as browser:
        page = browser.new_context(
            viewport={"width": width, "height": height}, **context
        ).new_page()
        page.set_default_timeout(timeout_ms)
        yield page


IDLE_JS = "() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')"


def pick_option(
    page: Any,
    widget: Any,
    typed: str,
    option: str,
    *,
    multi: bool = False,
    chosen: Callable[[], None] | None = None,
    attempts: int = 4,
) -> None:
    """Choose ``option`` in a select widget as a user does: click its text input, type
    ``typed`` to filter the (virtualised) list, click the option whose name contains
    ``option``.

    A rerun of the page that lands while the list is open closes it, and a click during a rerun
    can be lost, so each attempt waits for the page's run to end first, and the pick is checked
    with ``chosen`` (e.g. an ``expect(...)`` of the URL; it raises ``AssertionError`` when the
    choice did not take) before it counts. A multiselect's list stays open and is closed with
    Escape afterwards (never a selectbox's: Escape would clear its choice, as for a user).

    Raises:
        AssertionError: no attempt of ``attempts`` made the choice (the last error is chained).
    """
    import re

    from playwright.sync_api import TimeoutError as PlaywrightTimeout

    choice = page.get_by_role("option", name=re.compile(re.escape(option))).first
    failure: Exception | None = None
    for _attempt in range(attempts):
        page.wait_for_function(IDLE_JS)  # the page's own run has ended
        # the text input itself: a click on the widget's middle can land on a chosen tag
        widget.get_by_role("combobox").click()
        page.keyboard.press("Control+A")  # an earlier attempt's text is replaced
        page.keyboard.type(typed)
        try:
            choice.wait_for(state="visible", timeout=15_000)
            choice.click(timeout=15_000)
            if chosen is not None:
                chosen()
        except (PlaywrightTimeout, AssertionError) as exc:
            failure = exc
            if not multi:
                page.keyboard.press("Escape")  # nothing chosen: only closes the list
            continue
        if multi:
            page.keyboard.press("Escape")
        return
    raise AssertionError(f"could not choose {option!r} in {attempts} attempts") from failure
