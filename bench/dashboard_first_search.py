"""The dashboard's first search after start, timed in a real browser (issue: no dead time).

Starts like a user: an empty data folder (only ``MEMORY_DATA_DIR`` set), the README's ingest
(``memory-engine ingest ... --format locomo``; one conversation by default, ``--conversation``),
then ``streamlit run app.py`` on a free port, opens Query Replay with the tenant in the URL in
headless Debian Chromium, and as soon as the page is ready (the search button is shown) types a
query and runs it. Prints one JSON object::

    {"bench": "dashboard_first_search", "server_ready_s": ..., "page_ready_s": ...,
     "first_search_s": ..., "second_search_s": ..., "memories": ..., "query": ...}

``first_search_s`` is from "page ready" to the answer shown (the trace header); the issue's
target is under 3 s. ``python -m bench.dashboard_first_search [--locomo PATH] [--conversation
conv-26] [--query ...] [--lang en|zh]``. Needs /usr/bin/chromium and Playwright.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
#: The README's LoCoMo file (``../shared/data/locomo``; also looked up one folder higher, for
#: a git worktree under ``wt/``).
LOCOMO = next(
    (p for p in (ROOT.parent, ROOT.parent.parent)
     if (p / "shared" / "data" / "locomo" / "locomo10.json").exists()),
    ROOT.parent,
) / "shared" / "data" / "locomo" / "locomo10.json"  # fmt: skip
#: The Query Replay labels the bench drives, by UI language (the catalog's replay.* strings).
LABELS = {
    "en": {"query": "Query", "run": "Run search", "answer": "Trace "},
    "zh": {"query": "查询", "run": "执行搜索", "answer": "追踪 "},
}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def dashboard(env: dict[str, str], log: Path, timeout_s: float = 120) -> Iterator[str]:
    """``streamlit run app.py`` on a free local port with ``env``; yields its URL when healthy.

    Raises:
        RuntimeError: the server exited; TimeoutError: not healthy within ``timeout_s``.
    """
    port = _free_port()
    streamlit = Path(sys.executable).with_name("streamlit")
    args = [str(streamlit), "run", "app.py", "--server.headless", "true", "--server.port",
            str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
            "--server.fileWatcherType", "none"]  # fmt: skip
    with log.open("wb") as out:
        proc = subprocess.Popen(args, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)
        url = f"http://127.0.0.1:{port}"
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                if proc.poll() is not None:
                    raise RuntimeError(f"streamlit exited: {log.read_text()[-2000:]}")
                try:
                    with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2):
                        break
                except OSError:
                    if time.monotonic() > deadline:
                        raise TimeoutError(f"streamlit not healthy after {timeout_s} s") from None
                    time.sleep(0.2)
            yield url
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()


def time_search(page: Any, url: str, tenant: str, query: str, lang: str = "en") -> dict[str, float]:
    """Open Query Replay for ``tenant`` and run ``query`` once the page is ready.

    Returns:
        ``{"page_ready_s": seconds from navigation to the search button shown,
        "search_s": seconds from then to the answer (the trace header) shown}``.

    Raises:
        playwright TimeoutError: the page or the answer did not appear (60 s each).
    """
    labels = LABELS[lang]
    start = time.monotonic()
    page.goto(f"{url}/query_replay?tenant={tenant}&lang={lang}")
    button = page.get_by_role("button", name=labels["run"])
    button.wait_for(state="visible", timeout=60_000)
    ready = time.monotonic()
    page.get_by_label(labels["query"], exact=True).fill(query)
    button.click()
    answer = page.get_by_role("heading", name=re.compile("^" + re.escape(labels["answer"])))
    answer.first.wait_for(state="visible", timeout=60_000)
    done = time.monotonic()
    return {"page_ready_s": round(ready - start, 3), "search_s": round(done - ready, 3)}


def _stop_postgres(pgdata: Path) -> None:
    """Stop the embedded PostgreSQL this bench's processes started in ``pgdata`` (its
    ``postmaster.pid``), waiting up to 10 s."""
    pid_file = pgdata / "postmaster.pid"
    if not pid_file.exists():
        return
    pid = int(pid_file.read_text().split()[0])
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, 15)
    deadline = time.monotonic() + 10
    while pid_file.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


def main() -> None:
    """Run the bench (see the module docstring) and print its JSON line."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    ap.add_argument("--locomo", type=Path, default=LOCOMO)
    ap.add_argument("--conversation", default="conv-26")
    ap.add_argument("--query", default="What did Caroline research?")
    ap.add_argument("--lang", choices=sorted(LABELS), default="en")
    args = ap.parse_args()
    from playwright.sync_api import sync_playwright

    root = Path(tempfile.mkdtemp(prefix="memory-engine-bench-dash-"))
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        {
            "MEMORY_DATA_DIR": str(root / "data"),
            "MEMORY_DASHBOARD_AUTH": "none",
            "PYTHONPATH": str(ROOT),
        }  # fmt: skip
    )
    tenant = "bench-first-search"
    try:
        cli = [sys.executable, "-m", "memory_engine.cli", "ingest", str(args.locomo),
               "--tenant", tenant, "--format", "locomo", "--conversation", args.conversation,
               "--json"]  # fmt: skip
        ingest = subprocess.run(cli, env=env, cwd=ROOT, capture_output=True, text=True, check=True)
        memories = sum(
            s["created"] for s in json.loads(ingest.stdout.strip().splitlines()[-1]).values()
        )
        t0 = time.monotonic()
        with dashboard(env, root / "streamlit.log") as url:
            server_ready = time.monotonic() - t0
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
                try:
                    page = browser.new_page(viewport={"width": 1440, "height": 1000})
                    first = time_search(page, url, tenant, args.query, args.lang)
                    second = time_search(page, url, tenant, args.query, args.lang)
                finally:
                    browser.close()
    finally:
        _stop_postgres(root / "data" / "postgres")
        shutil.rmtree(root, ignore_errors=True)
    print(
        json.dumps(
            {
                "bench": "dashboard_first_search",
                "server_ready_s": round(server_ready, 3),
                "page_ready_s": first["page_ready_s"],
                "first_search_s": first["search_s"],
                "second_search_s": second["search_s"],
                "memories": memories,
                "query": args.query,
                "lang": args.lang,
            },
            ensure_ascii=False,
        )
    )


if __name__ == "__main__":
    main()
