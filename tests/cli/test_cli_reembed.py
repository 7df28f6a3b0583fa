"""``memory-engine reembed`` as a user runs it: a store written with one embedder, the setting
changed, the command killed (SIGKILL) in the middle, run again; searches answer throughout.

PostgreSQL: the test watches the staged vectors from its own connection and kills the command
once some are written; a search from this process during the run answers with the old
vectors. Qdrant local mode: the folder belongs to the running command, so the kill comes after
a fixed delay (wherever the run is then, the re-run must finish it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psycopg
import pytest

from memory_engine.config import Settings
from memory_engine.engine import MemoryEngine
from memory_engine.errors import EmbeddingMismatchError
from memory_engine.models import Scope
from memory_engine.stores.base import STAGING_LEG
from memory_engine.stores.postgres.migrate import MIGRATION_LOCK_KEY
from memory_engine.write.raw import WriteRequest

REPO = Path(__file__).resolve().parents[2]
N = 300


def _env(tmp_path: Path, store: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(PYTHONPATH=str(REPO), MEMORY_DATA_DIR=str(tmp_path / "data"), MEMORY_STORE=store)
    if store == "qdrant":
        env["MEMORY_QDRANT_PATH"] = str(tmp_path / "qdrant")
    env.update(extra)
    return env


def _engine(env: dict[str, str]) -> MemoryEngine:
    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        return MemoryEngine(Settings())
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", *args],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.mark.parametrize("store", ["postgres", "qdrant"])
def test_reembed_survives_a_kill_and_switches_the_store(tmp_path: Path, store: str) -> None:
    old = _env(tmp_path, store, MEMORY_EMBEDDER_MULTILINGUAL="none")
    engine = _engine(old)
    tenants = ["zh-chat", "en-notes"]
    for t in tenants:
        texts = [f"第{i}条记忆：我喜欢第{i}种茶。" if t == "zh-chat" else f"note {i}: tea #{i}"
                 for i in range(N // 2)]  # fmt: skip
        results = engine.write_many(Scope.of(t), [WriteRequest(text=x) for x in texts])
        assert all(r.ok for r in results)
    engine.close()
    new = _env(tmp_path, store, MEMORY_EMBEDDER="use_m3", MEMORY_EMBEDDER_MULTILINGUAL="none")
    refused = _cli(new, "search", "--tenant", "zh-chat", "茶")
    assert refused.returncode == 2 and "memory-engine reembed" in refused.stderr

    watcher = None
    if store == "postgres":  # opened before the run starts, so it sees the first staged rows
        watcher = _engine(old)
        watcher.warm_up(open_store=True)
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_engine.cli", "reembed", "--batch", "8"],
        env=new,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        if watcher is not None:
            staged = 0
            deadline = time.monotonic() + 300
            while staged == 0 and time.monotonic() < deadline and proc.poll() is None:
                legs = watcher.store.legs  # type: ignore[attr-defined]
                if STAGING_LEG in legs.leg_records():
                    staged = legs.leg_counts(STAGING_LEG, scope=Scope.of("zh-chat"))[0]
                time.sleep(0.1)
            # Hold the switch back (it takes the migration lock): a search during the run
            # answers on the old vectors. If the run switched before the lock was taken, the
            # long-lived engine gets the typed mismatch, never a raw database error.
            with psycopg.connect(watcher.store.conn.conninfo, autocommit=True) as hold:  # type: ignore[attr-defined]
                hold.execute("SELECT pg_advisory_lock(%s)", [MIGRATION_LOCK_KEY])
                recorded = watcher.store.conn.embedding_info()  # type: ignore[attr-defined]
                if recorded is not None and recorded[0] == "all-MiniLM-L6-v2":
                    answer = watcher.search(Scope.of("zh-chat"), "第7条记忆")
                    assert answer.memories
                    assert answer.trace.embedding_model == "all-MiniLM-L6-v2"
                else:
                    with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed"):
                        watcher.search(Scope.of("zh-chat"), "第7条记忆")
                proc.send_signal(signal.SIGKILL)
                proc.wait(timeout=30)
            watcher.close()
        else:
            time.sleep(6.0)
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()

    again = _cli(new, "reembed", "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads(again.stdout)
    assert report["ok"] and report["tenants"] == 2
    if report["legs"]:  # (a kill after the switch committed leaves nothing to do)
        run = report["legs"][0]
        assert run["leg"] == "dense" and run["action"] == "switched"
        assert run["model"] == "universal-sentence-encoder-multilingual-3"
        assert all(v["filled"] == v["total"] == N // 2 for v in run["verified"].values())

    found = _cli(new, "search", "--tenant", "zh-chat", "--json", "第7条记忆：我喜欢第7种茶。")
    assert found.returncode == 0, found.stderr[-2000:]
    payload = json.loads(found.stdout)
    assert "第7条记忆" in payload["memories"][0]["content"]
    # a second run has nothing left to do
    done = json.loads(_cli(new, "reembed", "--json").stdout)
    assert done["ok"] and done["legs"] == []
    checked = _engine(new)
    try:
        assert checked.store.embedding_info() == ("universal-sentence-encoder-multilingual-3", 512)
        assert checked.store.count(scope=Scope.of("en-notes")) == N // 2
    finally:
        checked.close()
