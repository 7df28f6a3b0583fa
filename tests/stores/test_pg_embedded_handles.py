"""pgserver's handle list: processes that exited without its atexit handler are dropped, so the
last live process stops the embedded PostgreSQL again (no orphan server)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from memory_engine.stores.postgres.embedded import forget_dead_handles


def _dead_pid() -> int:
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_dead_pids_are_dropped_live_ones_kept(tmp_path: Path) -> None:
    handles = tmp_path / ".handle_pids.json"
    dead = _dead_pid()
    handles.write_text(json.dumps([dead, os.getpid()]))
    assert forget_dead_handles(tmp_path) == [dead]
    assert json.loads(handles.read_text()) == [os.getpid()]
    assert forget_dead_handles(tmp_path) == []  # nothing left to drop


def test_missing_or_unreadable_list_is_left_alone(tmp_path: Path) -> None:
    assert forget_dead_handles(tmp_path) == []
    (tmp_path / ".handle_pids.json").write_text("not json")
    assert forget_dead_handles(tmp_path) == []
    assert (tmp_path / ".handle_pids.json").read_text() == "not json"
