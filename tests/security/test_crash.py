"""Crash tests: kill -9 the writer and the embedded database mid-batch; reconnect after restart.

After every crash: every acknowledged write is present, and no memory is half-written (each
stored row has its create event, its vector and its keyword terms).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest

from memory_engine import MemoryEngine, MemoryFilter, MemoryStatus, Scope
from memory_engine.errors import MemoryEngineError
from tests.conftest import new_tenant_id

REPO = Path(__file__).resolve().parents[2]

#: Child writer: batches of 10 through write_many, one "ACK <id>" line per stored memory.
WRITER = """
import sys, uuid
from memory_engine import MemoryEngine, Scope, Settings, WriteRequest
from memory_engine.errors import MemoryEngineError
eng = MemoryEngine(Settings())
scope = Scope.of(sys.argv[1])
print("READY", flush=True)
i = 0
while True:
    batch = [WriteRequest(text=f"crash item {i + j} 崩溃测试 {uuid.uuid4().hex}") for j in range(10)]
    try:
        results = eng.write_many(scope, batch)
    except MemoryEngineError as exc:
        print("ERR", exc.code, flush=True)
        sys.exit(3)
    for r in results:
        for o in r.outcomes:
            print("ACK", o.memory_id, flush=True)
    i += 10
"""

#: Child reader: prints the tenant's memories and whether each one is whole.
READER = """
import json, sys
from memory_engine import MemoryEngine, MemoryFilter, MemoryStatus, Scope, Settings
eng = MemoryEngine(Settings())
scope = Scope.of(sys.argv[1])
rows = eng.list(scope, filters=MemoryFilter(statuses=tuple(MemoryStatus)), limit=1000).items
out = {}
for m in rows:
    creates = [e for e in eng.history(scope, m.id).items if e.action.value == "create"]
    out[str(m.id)] = {"creates": len(creates), "content": m.content}
print(json.dumps(out))
eng.close()
"""


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(PYTHONPATH=str(REPO), **extra)
    return env


def _acks_until(proc: subprocess.Popen[str], n: int, timeout: float = 240) -> list[str]:
    acks: list[str] = []
    deadline = time.monotonic() + timeout
    assert proc.stdout is not None
    while len(acks) < n and time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        if line.startswith("ACK "):
            acks.append(line.split()[1])
    assert len(acks) >= n, f"writer stopped early: {proc.stderr.read() if proc.stderr else ''}"
    return acks


def _assert_whole(engine: MemoryEngine, scope: Scope, acks: list[str]) -> None:
    rows = engine.list(scope, filters=MemoryFilter(statuses=tuple(MemoryStatus)), limit=1000)
    stored = {str(m.id): m for m in rows.items}
    assert set(acks) <= set(stored), "an acknowledged write is missing"
    for m in list(stored.values())[:40]:
        creates = [e for e in engine.history(scope, m.id).items if e.action.value == "create"]
        assert len(creates) == 1, f"{m.id} has {len(creates)} create events"
    newest = rows.items[0]
    for leg in ("dense", "keyword"):
        res = engine.search(scope, newest.content, legs=[leg], k=3, save_trace=False)
        assert newest.id in {c.memory.id for c in res.memories}, f"{leg} index misses {newest.id}"


def test_kill_writer_mid_batch_loses_no_acknowledged_write(
    pg_settings_factory: Callable[..., Any],
) -> None:
    settings = pg_settings_factory()
    url = settings.storage.database_url.get_secret_value()
    tenant = new_tenant_id("crash")
    proc = subprocess.Popen(
        [sys.executable, "-c", WRITER, tenant],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=_env(MEMORY_DATABASE_URL=url),
    )
    try:
        acks = _acks_until(proc, 35)  # 3 batches done, the 4th in flight
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    engine = MemoryEngine(settings)
    try:
        _assert_whole(engine, Scope.of(tenant), acks)
    finally:
        engine.close()


def _kill_postgres(pgdata: Path) -> int:
    """SIGKILL the postmaster of ``pgdata`` and all its children (a power cut, in effect)."""
    pid = int((pgdata / "postmaster.pid").read_text().splitlines()[0])
    procs = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
    for p in procs:
        p.kill()
    psutil.wait_procs(procs, timeout=30)
    return len(procs)


def test_kill_embedded_database_mid_batch_then_restart() -> None:
    data_dir = Path(tempfile.mkdtemp(prefix="crash-pg-"))
    os.chmod(data_dir, 0o755)  # as root, pgserver runs postgres as another user
    tenant = new_tenant_id("crash")
    env = _env(MEMORY_DATA_DIR=str(data_dir))
    writer = subprocess.Popen(
        [sys.executable, "-c", WRITER, tenant],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        acks = _acks_until(writer, 25)
        pid_file = next(data_dir.rglob("postmaster.pid"))
        killed = _kill_postgres(pid_file.parent)
        assert killed >= 1
        # The writer sees a typed store error (never a traceback) and exits, or is stopped.
        try:
            out, err = writer.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            writer.kill()
            out, err = writer.communicate()
        acks += [line.split()[1] for line in out.splitlines() if line.startswith("ACK ")]
        assert "Traceback" not in err, err[-2000:]
        # Restart: a new process opens the same folder; PostgreSQL runs crash recovery.
        reader = subprocess.run(
            [sys.executable, "-c", READER, tenant],
            capture_output=True,
            text=True,
            env=env,
            timeout=300,
        )
        assert reader.returncode == 0, reader.stderr[-2000:]
        stored = json.loads(reader.stdout.strip().splitlines()[-1])
        assert set(acks) <= set(stored)
        assert all(v["creates"] == 1 for v in stored.values())
    finally:
        if writer.poll() is None:
            writer.kill()
        leftover = next(data_dir.rglob("postmaster.pid"), None)
        if leftover is not None:
            _kill_postgres(leftover.parent)
        shutil.rmtree(data_dir, ignore_errors=True)


def test_engine_reconnects_after_connections_are_dropped(
    pg_settings_factory: Callable[..., Any],
) -> None:
    settings = pg_settings_factory()
    url = settings.storage.database_url.get_secret_value()
    scope = Scope.of(new_tenant_id("rc"))
    engine = MemoryEngine(settings)
    try:
        engine.write(scope, "The user's favourite editor is Helix")
        assert engine.search(scope, "editor", save_trace=False).memories
        with psycopg.connect(url, autocommit=True) as admin:
            killed = admin.execute(
                "select count(pg_terminate_backend(pid)) from pg_stat_activity "
                "where datname = current_database() and pid <> pg_backend_pid()"
            ).fetchone()
        assert killed and killed[0] >= 1
        # The pool checks each connection before use and replaces the dead ones.
        for _ in range(3):
            try:
                result = engine.search(scope, "editor", save_trace=False)
            except MemoryEngineError as exc:  # a typed error is acceptable once, never a crash
                pytest.fail(f"no reconnect: {exc.code}: {exc.message}")
            assert result.memories[0].memory.content.endswith("Helix")
    finally:
        engine.close()
