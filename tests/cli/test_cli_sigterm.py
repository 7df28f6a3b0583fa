"""SIGTERM stops ``memory-engine`` through normal interpreter exit, so atexit handlers (pgserver
stops the embedded PostgreSQL in one) run; the default action left an orphan postgres."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
SCRIPT = """
import atexit, sys
from pathlib import Path
marker = Path(sys.argv[1])
atexit.register(lambda: marker.write_text("ran"))
sys.argv = ["memory-engine", *sys.argv[2:]]
from memory_engine.cli.app import main
main()
"""


@pytest.mark.parametrize(
    ("args", "status"),
    [
        (["mcp", "--transport", "http", "--port", "0", "--tenant", "sigterm"], 143),
        # stdio keeps the default action (SystemExit would hang on the stdin reader thread)
        (["mcp", "--transport", "stdio", "--tenant", "sigterm"], -signal.SIGTERM),
    ],
)
def test_sigterm_ends_the_process(tmp_path: Path, args: list[str], status: int) -> None:
    marker = tmp_path / "atexit"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    # The engine (and its store) is built lazily on the first tool call: no database needed.
    env.update(PYTHONPATH=str(REPO), MEMORY_DATABASE_URL="postgresql://x@127.0.0.1:1/none")
    err = tmp_path / "stderr"
    with err.open("wb") as err_out:
        proc = subprocess.Popen(
            [sys.executable, "-c", SCRIPT, str(marker), *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=err_out,
            env=env,
            cwd=tmp_path,
        )
    try:
        deadline = time.monotonic() + 60
        ready = "listening on" if "http" in args else None
        while ready and ready not in err.read_text() and time.monotonic() < deadline:
            time.sleep(0.2)
        time.sleep(1.0 if ready else 3.0)  # stdio: let the server start reading stdin
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=30) == status, err.read_text()
    finally:
        if proc.poll() is None:
            proc.kill()
    if status > 0:  # unwound normally: atexit handlers (pgserver's stop) ran
        assert marker.read_text() == "ran", err.read_text()
