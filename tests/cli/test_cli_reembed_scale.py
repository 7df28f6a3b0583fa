"""``memory-engine reembed`` on a store of thousands of memories (5,000 on PostgreSQL, see
``SIZES``), on both stores, as the done-when of the re-embedding asks: moved to another embedder (and dimension), killed with SIGKILL in the
middle, run again to the end, searches answering throughout.

The embedders are two models of the real ``openai`` client against the local stub server
(``stub-64`` -> ``stub-12``), so thousands of memories take seconds to embed; the stub counts what
each run embeds, which tells this process when the command is half-way (the kill) and that
the re-run resumes rather than starts over. PostgreSQL is searched from this process while
the command runs; Qdrant local mode belongs to the running command, so it is searched before
the run, between the kill and the re-run, and after (``bench/reembed.py`` does the same with
MiniLM -> USE-m3 and prints the timings).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_engine.engine import MemoryEngine
from memory_engine.models import Scope
from memory_engine.write.raw import WriteRequest
from tests.cli.test_cli_reembed import _cli, _engine
from tests.support.openai_stub import OpenAIStub

REPO = Path(__file__).resolve().parents[2]
#: Memories per store: the done-when's 5,000 on PostgreSQL (~20 s); Qdrant local mode, pure
#: Python, takes minutes for 5,000 on a loaded 2-core machine, so CI runs it at 2,000 (the
#: 5,000 case on both stores is ``bench/reembed.py``).
SIZES = {"postgres": 5000, "qdrant": 2000}
BATCH = 100
TENANTS = ("zh-chat", "en-notes")


@pytest.fixture
def models() -> Iterator[OpenAIStub]:
    with OpenAIStub({"stub-64": 64, "stub-12": 12}) as server:
        yield server


def _text(tenant: str, i: int) -> str:
    if tenant == "zh-chat":
        return f"第{i}条记忆 茶{i} 公园{i % 13}"
    return f"note{i} tea{i} park{i % 13}"


def _env(tmp_path: Path, store: str, stub: OpenAIStub, model: str, dim: int) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        PYTHONPATH=str(REPO),
        MEMORY_DATA_DIR=str(tmp_path / "data"),
        MEMORY_STORE=store,
        MEMORY_EMBEDDER="openai_compat",
        MEMORY_EMBEDDING_BASE_URL=stub.base_url,
        MEMORY_EMBEDDING_API_KEY="sk-test",
        MEMORY_EMBEDDING_MODEL=model,
        MEMORY_EMBEDDING_DIM=str(dim),
        MEMORY_EMBEDDER_MULTILINGUAL="none",
        MEMORY_TRACE_RETENTION="0",
    )
    if store == "qdrant":
        env["MEMORY_QDRANT_PATH"] = str(tmp_path / "qdrant")
    return env


def _embedded(stub: OpenAIStub, model: str) -> int:
    """Texts the stub embedded with ``model`` so far."""
    bodies = [r.body for r in list(stub.requests) if r.path == "/v1/embeddings"]
    return sum(len(b.get("input") or []) for b in bodies if b.get("model") == model)


def _finds(engine: MemoryEngine, tenant: str, i: int) -> bool:
    hit = engine.search(Scope.of(tenant), _text(tenant, i), k=5)
    return any(c.memory.content == _text(tenant, i) for c in hit.memories)


@pytest.mark.parametrize("store", ["postgres", "qdrant"])
def test_reembed_moves_thousands_of_memories_through_a_kill(
    tmp_path: Path, store: str, models: OpenAIStub
) -> None:
    n = SIZES[store]
    old = _env(tmp_path, store, models, "stub-64", 64)
    new = _env(tmp_path, store, models, "stub-12", 12)
    engine = _engine(old)
    for t in TENANTS:
        results = engine.write_many(
            Scope.of(t), [WriteRequest(text=_text(t, i)) for i in range(n // len(TENANTS))]
        )
        assert all(r.ok for r in results)
    assert _finds(engine, "zh-chat", 7) and _finds(engine, "en-notes", 999)
    if store == "qdrant":
        engine.close()  # local mode: the command needs the folder

    before = _embedded(models, "stub-12")
    proc = subprocess.Popen(
        [sys.executable, "-m", "memory_engine.cli", "reembed", "--batch", str(BATCH)],
        env=new,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    searched = 0
    try:
        deadline = time.monotonic() + 600
        while _embedded(models, "stub-12") - before < n // 2 and proc.poll() is None:
            assert time.monotonic() < deadline, "reembed made no progress"
            if store == "postgres":  # searches answer on the old vectors during the run
                assert _finds(engine, "zh-chat", searched % (n // 2))
                searched += 1
            else:
                time.sleep(0.02)
        assert proc.poll() is None, proc.stderr.read() if proc.stderr else ""
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    killed_at = _embedded(models, "stub-12") - before
    assert n // 2 <= killed_at < n
    if store == "postgres":
        assert searched > 0
        assert _finds(engine, "en-notes", 99)  # still the old model after the kill
        engine.close()
    else:
        between = _engine(old)  # the old vectors answer between the kill and the re-run
        assert _finds(between, "zh-chat", 42)
        between.close()

    again = _cli(new, "reembed", "--batch", str(BATCH), "--json")
    assert again.returncode == 0, again.stderr[-2000:]
    report = json.loads(again.stdout)
    assert report["ok"] and report["tenants"] == 2
    (run,) = report["legs"]
    assert run["leg"] == "dense" and run["action"] == "switched"
    assert run["model"] == "stub-12" and run["dim"] == 12
    assert all(v["filled"] == v["total"] == n // 2 for v in run["verified"].values())
    # resumed, not started over: what the first run embedded is not embedded again (but for
    # the batch in flight at the kill)
    assert run["embedded"] <= n - killed_at + BATCH
    assert _embedded(models, "stub-12") - before <= n + BATCH

    after = _engine(new)
    try:
        assert after.store.embedding_info() == ("stub-12", 12)
        assert sum(after.store.count(scope=Scope.of(t)) for t in TENANTS) == n
        assert _finds(after, "zh-chat", 7) and _finds(after, "en-notes", 999)
    finally:
        after.close()
