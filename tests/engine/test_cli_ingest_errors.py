"""``memory-engine ingest`` exit status when some turns are skipped (real CLI, subprocess):
status 1 with the summary still printed; it used to exit 0 with "1 errors", so scripts and
cron jobs never noticed lost input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]


def test_ingest_with_skipped_turns_exits_1(
    pg_settings_factory: Callable[..., Any], tmp_path: Path, tenant: str
) -> None:
    settings = pg_settings_factory()
    env = {
        **os.environ,
        "MEMORY_DATABASE_URL": settings.database_url.get_secret_value(),
        "MEMORY_MAX_INPUT_CHARS": "400",
        "PYTHONPATH": str(REPO),
    }
    notes = tmp_path / "notes.txt"
    notes.write_text("王伟喜欢喝乌龙茶，不加糖。\n\n" + "长" * 600 + "\n", encoding="utf-8")
    cli = [sys.executable, "-m", "memory_engine.cli", "ingest", str(notes), "--format", "text"]
    run = subprocess.run(
        [*cli, "--tenant", tenant, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 1, run.stderr
    summary = json.loads(run.stdout)[tenant]
    assert (summary["turns"], summary["created"], summary["errors"]) == (2, 1, 1)
    assert "MEMORY_MAX_INPUT_CHARS" in run.stderr and "Traceback" not in run.stderr
