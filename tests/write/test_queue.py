"""Durable write queue, rate limit and concurrency: ``write(..., wait=False)``, a process
killed mid-queue loses no accepted write, token buckets."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.errors import RateLimitedError
from memory_engine.write.journal import WriteJournal
from memory_engine.write.limits import TokenBuckets
from tests.conftest import new_tenant_id
from tests.support.openai_stub import OpenAIStub

ROOT = Path(__file__).resolve().parents[2]


def echo_llm(body: dict[str, Any]) -> str:
    """Chat reply of the stub: one fact per input ("fact: <input>"); judge: no relation."""
    system = body["messages"][0]["content"]
    if "compare ONE new fact" in system:
        return '{"decisions": []}'
    text = body["messages"][1]["content"].rsplit("Input:\n", 1)[1]
    return json.dumps(
        {"should_remember": True, "reason": "t", "facts": [{"content": f"fact: {text}"}]}
    )


def test_wait_false_returns_id_then_processed(
    make_engine: Callable[..., MemoryEngine], stub: OpenAIStub
) -> None:
    engine = make_engine("stub")
    stub.chat_reply = echo_llm
    s = Scope.of(new_tenant_id())
    ids = [
        engine.write(s, f"queued item {i}", mode="extract", wait=False).write_id for i in range(3)
    ]
    assert all(ids) and len(set(ids)) == 3
    rows = engine.wait_for_writes([str(i) for i in ids], s, timeout=60)
    assert [r["status"] for r in rows] == ["done"] * 3
    contents = sorted(m.content for m in engine.list(s).items)
    assert contents == [f"fact: queued item {i}" for i in range(3)]
    raw_id = engine.write(s, "raw queued text", wait=False).write_id
    (raw,) = engine.wait_for_writes([str(raw_id)], s, timeout=60)
    assert raw["status"] == "done" and raw["mode"] == "raw"


def test_journal_recovers_running_rows(tmp_path: Path) -> None:
    journal = WriteJournal(tmp_path / "j.sqlite3")
    s = Scope.of("t1")
    wid = journal.accept(s, "extract", {"text": "x"}, "api", "h")
    assert journal.claim()["id"] == wid  # type: ignore[index]
    journal.close()
    reopened = WriteJournal(tmp_path / "j.sqlite3")  # as after a kill
    assert reopened.get(wid, s)["status"] == "pending"
    assert reopened.claim()["attempts"] == 2  # type: ignore[index]
    reopened.close()


_CHILD = """
import json, sys, time
from memory_engine import MemoryEngine, Scope
engine = MemoryEngine()
scope = Scope.of(sys.argv[1])
ids = [str(engine.write(scope, f"durable item {i}", mode="extract", wait=False).write_id)
       for i in range(int(sys.argv[2]))]
print(json.dumps(ids), flush=True)
time.sleep(600)
"""


def test_kill_mid_queue_loses_no_accepted_write(
    pg_settings_factory: Callable[..., Any], stub: OpenAIStub, tmp_path: Path
) -> None:
    stub.chat_reply = echo_llm
    stub.latency = 0.2
    journal_path = tmp_path / "journal.sqlite3"
    settings = pg_settings_factory(
        embedder="openai_compat",
        embedding_base_url=stub.base_url,
        embedding_model="stub-64",
        embedding_dim=64,
        llm_provider="openai_compat",
        llm_base_url=stub.base_url,
        llm_model="stub-chat",
        write_queue_path=journal_path,
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        PYTHONPATH=str(ROOT),
        MEMORY_STORE="postgres",
        MEMORY_DATABASE_URL=settings.storage.database_url.get_secret_value(),
        MEMORY_EMBEDDER="openai_compat",
        MEMORY_EMBEDDING_BASE_URL=stub.base_url,
        MEMORY_EMBEDDING_MODEL="stub-64",
        MEMORY_EMBEDDING_DIM="64",
        MEMORY_LLM_PROVIDER="openai_compat",
        MEMORY_LLM_BASE_URL=stub.base_url,
        MEMORY_LLM_MODEL="stub-chat",
        MEMORY_WRITE_QUEUE_PATH=str(journal_path),
    )
    tenant, n = new_tenant_id(), 12
    child = subprocess.Popen(
        [sys.executable, "-c", _CHILD, tenant, str(n)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
        cwd=str(tmp_path),
    )
    try:
        assert child.stdout is not None
        ids = json.loads(child.stdout.readline())
        assert len(ids) == n  # all accepted before any is processed
        probe = WriteJournal(journal_path)
        deadline = time.monotonic() + 120
        while probe.counts().get("done", 0) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        child.send_signal(signal.SIGKILL)
        child.wait(timeout=30)
        counts = probe.counts()
        probe.close()
    finally:
        if child.poll() is None:
            child.kill()
            child.wait(timeout=30)
    assert 2 <= counts.get("done", 0) < n, counts  # killed mid-queue
    engine = MemoryEngine(settings)
    try:
        s = Scope.of(tenant)
        engine.process_pending_writes()
        rows = [engine.write_status(s, i) for i in ids]
        assert [r["status"] for r in rows] == ["done"] * n
        contents = sorted(m.content for m in engine.list(s, limit=100).items)
        assert contents == sorted(f"fact: durable item {i}" for i in range(n))
    finally:
        engine.close()


def test_token_bucket_rate_limit() -> None:
    now = [0.0]
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        now[0] += seconds

    buckets = TokenBuckets(30, clock=lambda: now[0], sleep=sleep)
    for _ in range(30):  # the burst
        assert buckets.acquire("t/s1") == 0.0
    assert buckets.acquire("t/s1") == pytest.approx(1 / 30)
    assert buckets.acquire("t/s2") == 0.0  # another session has its own bucket
    for _ in range(29):
        buckets.acquire("t/s1")
    assert now[0] == pytest.approx(1.0)  # 60 writes in 1 s of (fake) time: 30/s after the burst
    slow = TokenBuckets(0.01, clock=lambda: now[0], sleep=sleep)
    slow.acquire("k")
    with pytest.raises(RateLimitedError):
        slow.acquire("k", max_wait=5)  # the next token is 100 s away
