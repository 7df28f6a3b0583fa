"""``gc.freeze`` after the first search: once per process, only when asked for (the MCP server
and the dashboard ask for it; the library and the CLI leave it off)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

CODE = """
import gc, json
from memory_engine import MemoryEngine, Scope, Settings
engine = MemoryEngine(Settings(store="qdrant", qdrant_path=":memory:", trace_retention=0))
before = gc.get_freeze_count()
engine.search(Scope.of("t1"), "peanut allergy", legs=("keyword",))
first = gc.get_freeze_count()
engine.search(Scope.of("t1"), "花生过敏", legs=("keyword",))
print(json.dumps({"before": before, "first": first, "second": gc.get_freeze_count()}))
"""


def _run(env_extra: dict[str, str], tmp_path: Path) -> dict[str, int]:
    env = {**os.environ, "MEMORY_DATA_DIR": str(tmp_path), **env_extra}
    env.pop("MEMORY_DATABASE_URL", None)
    if not env_extra:
        env.pop("MEMORY_GC_FREEZE", None)
    proc = subprocess.run(
        [sys.executable, "-c", CODE],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=ROOT,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("setting", ["", "0", "1"])
def test_first_search_freezes_once_when_on(setting: str, tmp_path: Path) -> None:
    counts = _run({"MEMORY_GC_FREEZE": setting} if setting else {}, tmp_path)
    assert counts["before"] == 0
    if setting != "1":  # unset in a library process: off, like an explicit 0
        assert counts["first"] == counts["second"] == 0
    else:
        # the engine's modules, pydantic schemas and the store are frozen by the first search;
        # the second search freezes nothing more
        assert counts["first"] > 50_000
        assert counts["second"] == counts["first"]


def test_server_settings_turn_it_on_only_when_unset() -> None:
    from memory_engine import Settings
    from memory_engine.retrieval.gcfreeze import server_settings

    assert server_settings(Settings(_env_file=None)).gc_freeze is True  # type: ignore[call-arg]
    off = Settings(_env_file=None, gc_freeze=False)  # type: ignore[call-arg]
    assert server_settings(off).gc_freeze is False
    assert server_settings(off) is off
