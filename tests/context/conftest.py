"""Working-memory fixtures: a real ``redis-server`` (Debian package) on a unix socket in a temp
dir, and the ``working_store`` fixture parametrized over both backends."""

from __future__ import annotations

import shutil
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from memory_engine.context.working_store import InProcessWorkingStore, RedisWorkingStore

BACKENDS = ("inprocess", "redis")


@pytest.fixture(scope="session")
def redis_url() -> Iterator[str]:
    """URL of a session-wide redis-server on a unix socket (no TCP port to collide on).

    Skips the Redis tests with the reason when redis-server is not installed
    (``scripts/ensure-redis.sh`` installs it; ``make test`` runs that first).
    """
    exe = shutil.which("redis-server")
    if exe is None:
        pytest.skip("redis-server is not installed (run scripts/ensure-redis.sh)")
    folder = Path(tempfile.mkdtemp(prefix="memory-engine-test-redis-"))
    sock = folder / "redis.sock"
    proc = subprocess.Popen(
        [
            exe,
            "--port",
            "0",
            "--unixsocket",
            str(sock),
            "--unixsocketperm",
            "700",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(folder),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 20
    while not sock.exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    if not sock.exists():
        proc.kill()
        pytest.skip("redis-server did not start")
    yield f"unix://{sock}"
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(params=BACKENDS)
def working_store(request: pytest.FixtureRequest) -> Iterator[Any]:
    """A working-memory backend: in-process, or Redis on the session's redis-server."""
    if request.param == "inprocess":
        store: Any = InProcessWorkingStore()
    else:
        store = RedisWorkingStore(request.getfixturevalue("redis_url"), ttl_seconds=3600)
    yield store
    store.close()


@pytest.fixture(scope="session")
def context_engine(pg_settings_factory: Any) -> Iterator[Any]:
    """A MemoryEngine (MiniLM, own database) with a 2,000-token window and 200 reserved."""
    from memory_engine import MemoryEngine

    engine = MemoryEngine(pg_settings_factory(context_window=2000, context_reserve_tokens=200))
    yield engine
    engine.close()


@pytest.fixture
def engine_with_store(context_engine: Any, working_store: Any) -> Iterator[Any]:
    """An engine on ``context_engine``'s settings, store and embedder whose working memory
    runs on ``working_store`` (both backends), injected through the constructor."""
    with engine_on(context_engine, working_store) as engine:
        yield engine


@contextmanager
def engine_on(base: Any, working_store: Any) -> Iterator[Any]:
    """A ``MemoryEngine`` sharing ``base``'s settings, store and embedder, with
    ``working_store`` injected; the shared parts are left open afterwards (``base`` and the
    ``working_store`` fixture close them), its own search bookkeeping is flushed."""
    from memory_engine import MemoryEngine

    engine = MemoryEngine(
        base.settings, store=base.store, embedder=base.embedder, working_store=working_store
    )
    yield engine
    engine.flush_accesses()
