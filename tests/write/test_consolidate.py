"""Consolidation: near-duplicate clusters merged into one, provenance kept, version-checked
against concurrent writes during a slow LLM call."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable

import pytest
from typer.testing import CliRunner

from memory_engine import MemoryEngine, Scope
from memory_engine.models import MemoryStatus
from tests.conftest import new_tenant_id
from tests.support.openai_stub import OpenAIStub

Make = Callable[..., MemoryEngine]
TEA = ["I like green tea", "I like green tea a lot", "I like green tea very much"]


def test_rules_consolidation_merges_cluster(make_engine: Make) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id())
    ids = [engine.write(s, t).outcomes[0].memory_id for t in TEA]
    other = engine.write(s, "我住在杭州").outcomes[0].memory_id
    dry = engine.consolidate(s, similarity=0.7, dry_run=True)
    assert dry.merged == 0 and len(dry.clusters) == 1
    assert all(engine.get(s, i).status == MemoryStatus.ACTIVE for i in ids)
    report = engine.consolidate(s, similarity=0.7)
    (cluster,) = report.clusters
    assert cluster["members"] == [str(i) for i in ids] and report.merged == 2
    survivor = engine.get(s, ids[-1])
    assert survivor.status == MemoryStatus.ACTIVE
    assert survivor.metadata["merged_from"] == [str(ids[0]), str(ids[1])]
    for old in ids[:2]:
        mem = engine.get(s, old)
        assert mem.status == MemoryStatus.SUPERSEDED and mem.superseded_by == ids[-1]
        assert [e.action for e in engine.history(s, old).items] == ["create", "merge"]
    assert engine.get(s, other).status == MemoryStatus.ACTIVE
    assert engine.consolidate(s, similarity=0.7).clusters == []  # idempotent


def test_slow_llm_never_overwrites_a_concurrent_edit(make_engine: Make, stub: OpenAIStub) -> None:
    engine = make_engine("stub")
    s = Scope.of(new_tenant_id())
    ids = [engine.write(s, t).outcomes[0].memory_id for t in TEA]
    stub.chat_reply = json.dumps({"content": "The user loves green tea"})
    stub.latency = 0.6  # embedding and merge calls are slow
    box: dict[str, object] = {}
    worker = threading.Thread(
        target=lambda: box.setdefault("r", engine.consolidate(s, similarity=0.7))
    )
    worker.start()
    time.sleep(0.2)  # consolidation has listed the memories and waits for the stub
    edited = engine.update(s, ids[0], expected_version=1, reason="user edit", importance=0.95)
    worker.join(30)
    report = box["r"]
    assert edited.version == 2
    assert [c["memory_id"] for c in report.conflicts] == [str(ids[0])]  # type: ignore[attr-defined]
    first = engine.get(s, ids[0])
    assert first.status == MemoryStatus.ACTIVE and first.importance == 0.95  # edit kept
    assert engine.get(s, ids[1]).superseded_by == ids[2]
    survivor = engine.get(s, ids[2])
    assert survivor.content == "The user loves green tea"
    assert survivor.metadata["merged_from"] == [str(ids[1])]
    assert "Memories, oldest first" in stub.chat_bodies()[-1]["messages"][1]["content"]


@pytest.mark.parametrize("store_kind", ["postgres"], indirect=True)
def test_cli_consolidate(make_engine: Make, monkeypatch: pytest.MonkeyPatch) -> None:
    from memory_engine.cli.app import app

    engine = make_engine()
    s = Scope.of(new_tenant_id())
    for t in TEA:
        engine.write(s, t)
    settings = engine.settings
    monkeypatch.setenv("MEMORY_DATABASE_URL", settings.storage.database_url.get_secret_value())
    for key in (
        "embedder",
        "embedding_base_url",
        "embedding_model",
        "embedding_dim",
        "write_queue_path",
    ):
        monkeypatch.setenv(f"MEMORY_{key.upper()}", str(settings.flat_value(key)))
    result = CliRunner().invoke(
        app, ["consolidate", "--tenant", s.tenant_id, "--similarity", "0.7", "--json"]
    )
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout.strip().splitlines()[-1])
    assert report["merged"] == 2 and len(report["clusters"]) == 1
