"""``memory-engine ingest --mode extract``: a conversation through the offline pipeline."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine, Scope

REPO = Path(__file__).resolve().parents[2]


def test_cli_ingest_extract(
    pg_settings_factory: Callable[..., Any], tmp_path: Path, tenant: str
) -> None:
    settings = pg_settings_factory(write_queue_path=tmp_path / "journal.sqlite3")
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATABASE_URL": settings.storage.database_url.get_secret_value(),
        "MEMORY_WRITE_QUEUE_PATH": str(tmp_path / "journal.sqlite3"),
        "PYTHONPATH": str(REPO),
    }
    turns = [
        {"role": "user", "content": "你好", "timestamp": "2023-05-22T09:00:00Z"},
        {"role": "user", "content": "以后周四汇报", "timestamp": "2023-05-22T09:01:00Z"},
        {"role": "assistant", "content": "好的，我记住了：以后周四汇报。"},
        {"role": "user", "content": "改成周五汇报", "timestamp": "2023-05-24T09:00:00Z"},
        {
            "role": "user",
            "content": "I went to Lisbon last week",
            "timestamp": "2023-05-24T10:00:00Z",
        },
    ]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    cmd = [
        sys.executable,
        "-m",
        "memory_engine.cli",
        "ingest",
        str(chat),
        "--tenant",
        tenant,
        "--format",
        "openai",
        "--mode",
        "extract",
        "--json",
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300)
    assert run.returncode == 0, run.stderr
    summary = json.loads(run.stdout)[tenant]
    assert summary == {"turns": 5, "created": 3, "duplicates": 0, "errors": 0, "not_remembered": 2}
    bad = subprocess.run(
        [*cmd[:-3], "--mode", "magic"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert bad.returncode != 0 and "--mode must be raw or extract" in bad.stderr
    with MemoryEngine(settings) as engine:
        mems = {m.content: m for m in engine.list(Scope.of(tenant), limit=50).items}
        assert mems["用户以后周四汇报"].status == "superseded"
        assert mems["用户的汇报改为周五"].status == "active"
        lisbon = mems["The user went to Lisbon in the week of 2023-05-15"]
        assert (
            lisbon.valid_from is not None and lisbon.valid_from.date().isoformat() == "2023-05-15"
        )
