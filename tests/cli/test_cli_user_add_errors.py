"""``memory-engine user add`` with a secrets file it cannot use (real CLI, subprocess): one
``error:`` line and exit status 2, the file left as it was. A malformed secrets.toml printed
a rich traceback of tomllib (exit 1); a folder in its place too."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def _add(secrets: Path) -> subprocess.CompletedProcess[str]:
    cli = [sys.executable, "-m", "memory_engine.cli", "user", "add", "zed", "--role", "admin"]
    return subprocess.run(
        [*cli, "--tenant", "*", "--secrets", str(secrets), "--password-stdin"],
        input="long-enough-password\n",
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        cwd=secrets.parent,
        timeout=120,
    )


@pytest.mark.parametrize("kind", ["malformed", "folder"])
def test_unusable_secrets_file_is_one_error_line(tmp_path: Path, kind: str) -> None:
    secrets = tmp_path / "secrets.toml"
    if kind == "malformed":
        secrets.write_text("[memory_auth\nbroken = ", encoding="utf-8")
    else:
        secrets.mkdir()
    run = _add(secrets)
    assert run.returncode == 2, run.stderr
    assert "Traceback" not in run.stderr and run.stderr.startswith("error:"), run.stderr
    assert str(secrets.name) in run.stderr
    if kind == "malformed":
        assert secrets.read_text(encoding="utf-8") == "[memory_auth\nbroken = "
