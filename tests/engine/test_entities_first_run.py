"""Entities as a user meets them: an empty data folder, only ``MEMORY_DATA_DIR`` set (plus
``MEMORY_STORE=qdrant`` and its folder for Qdrant), three memories that spell ACME three
ways, and one normalised entity linked to all three (docs/architecture.md#data-model).

Raw mode with the entities given; extract mode with the rules provider (whatever entities it
finds, plus those given with the write); the keyword leg finds the memories by the entity's
name; ``memory-engine entities --json`` shows the same entity.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.entities import entity_id, entity_key
from memory_engine.stores.postgres.embedded import stop_embedded_server

REPO = Path(__file__).resolve().parents[2]
TEXTS = ("ACME approved the budget", "Met with ACME today", "acme sent the contract")
SPELLINGS = ("ACME", "ＡＣＭＥ Inc.", "acme")


@pytest.fixture(params=["postgres", "qdrant"])
def user(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, str]]:
    """The environment of a user on a fresh folder: only MEMORY_DATA_DIR (PostgreSQL, the
    default), or MEMORY_STORE=qdrant with MEMORY_QDRANT_PATH inside it."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-entities-"))
    (root / "cwd").mkdir()
    data = root / "data"
    env = {"MEMORY_DATA_DIR": str(data)}
    if request.param == "qdrant":
        env.update(MEMORY_STORE="qdrant", MEMORY_QDRANT_PATH=str(root / "qdrant"))
    for key in list(os.environ):
        if key.startswith("MEMORY_"):
            monkeypatch.delenv(key)
    for key, value in env.items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(root / "cwd")
    yield env
    stop_embedded_server(data)
    shutil.rmtree(root, ignore_errors=True)


def _one_acme(engine: MemoryEngine, scope: Scope, ids: list[str]) -> None:
    page = engine.list_entities(scope)
    acme = [e for e in page.items if e.key == "acme"]
    assert len(acme) == 1, [(e.key, e.name) for e in page.items]
    assert acme[0].id == entity_id(scope.tenant_id, "acme") and acme[0].memory_count == 3
    linked = engine.list(scope, entity="ACME Inc.")
    assert sorted(str(m.id) for m in linked.items) == sorted(ids) and linked.total == 3
    for mid in ids:
        assert "acme" in [e.key for e in engine.memory_entities(scope, mid)]


def test_raw_writes_with_entities_link_one_entity(user: dict[str, str]) -> None:
    engine = MemoryEngine()
    try:
        scope = Scope.of("acme-user")
        ids = [
            str(engine.write(scope, text, entities=(name,), mode="raw").memory_ids[0])
            for text, name in zip(TEXTS, SPELLINGS, strict=True)
        ]
        _one_acme(engine, scope, ids)
        assert engine.list_entities(scope).items[0].name == "ACME"  # first seen
        # the keyword leg finds the memories by the entity's name (terms of names and keys)
        opts = engine.search_options(legs=("keyword",), k=10)
        found = {str(c.memory.id) for c in engine.search(scope, "ACME", options=opts).memories}
        assert found == set(ids)
        # a purge unlinks; the last purge removes the entity
        for mid in ids:
            engine.purge(scope, mid, reason="test")
        assert engine.list_entities(scope).items == []
    finally:
        engine.close()


#: Texts the offline rules provider keeps in extract mode (an instruction, a preference).
EXTRACT_TEXTS = (
    "Remember that ACME approved the budget",
    "I prefer to meet ACME on Mondays",
    "Remember that acme sent the contract",
)


def test_extract_writes_link_one_entity(user: dict[str, str]) -> None:
    """Extract mode: the entities given with each write join each extracted fact's own, and
    all three facts link to the one entity "acme" (whatever else the extractor names)."""
    engine = MemoryEngine()
    try:
        scope = Scope.of("acme-extract")
        ids: list[str] = []
        for text, name in zip(EXTRACT_TEXTS, SPELLINGS, strict=True):
            result = engine.write(scope, text, entities=(name,), mode="extract")
            assert result.remembered, result.reason
            ids += [str(i) for i in result.memory_ids]
        assert len(ids) == 3
        _one_acme(engine, scope, ids)
    finally:
        engine.close()


def test_cli_lists_the_entity(user: dict[str, str]) -> None:
    engine = MemoryEngine()
    try:
        scope = Scope.of("acme-cli")
        for text, name in zip(TEXTS, SPELLINGS, strict=True):
            engine.write(scope, text, entities=(name, "Priya"), mode="raw")
    finally:
        engine.close()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(user, PYTHONPATH=str(REPO))
    cli = [sys.executable, "-m", "memory_engine.cli", "entities", "--tenant", "acme-cli"]
    run = subprocess.run([*cli, "--json"], capture_output=True, text=True, env=env, timeout=300)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert [(e["name"], e["key"], e["memory_count"]) for e in data["entities"]] == [
        ("ACME", "acme", 3),
        ("Priya", "priya", 3),
    ]
    assert data["truncated"] is False
    human = subprocess.run(cli, capture_output=True, text=True, env=env, timeout=300)
    assert human.returncode == 0, human.stderr
    assert "ACME" in human.stdout and "priya" in human.stdout


def test_keyword_leg_finds_a_memory_by_its_entity_names(user: dict[str, str]) -> None:
    """The content does not name the entity: the entity's name and key terms still match;
    an edit of the entities changes the terms (and the links) with them."""
    engine = MemoryEngine()
    try:
        scope = Scope.of("acme-keyword")
        mid = engine.write(scope, "签了合同，下周付款", entities=("ＡＣＭＥ 公司",), mode="raw")
        (memory_id,) = mid.memory_ids
        engine.write(scope, "Lunch with the team", mode="raw")
        opts = engine.search_options(legs=("keyword",), k=5)

        def found(query: str) -> list[str]:
            return [str(c.memory.id) for c in engine.search(scope, query, options=opts).memories]

        assert found("ACME") == [str(memory_id)]
        assert found("acme公司") == [str(memory_id)]
        engine.update(scope, memory_id, expected_version=1, entities=["Globex"], reason="fix")
        assert found("Globex") == [str(memory_id)]
        assert found("ACME") == []
        assert [e.key for e in engine.memory_entities(scope, memory_id)] == ["globex"]
        assert [e.key for e in engine.list_entities(scope).items] == ["globex"]
    finally:
        engine.close()


def test_mcp_memory_write_links_entities(user: dict[str, str]) -> None:
    """``memory_write`` of the MCP server (the real server over the SDK's in-memory client)
    takes ``entities``; the search view shows them."""
    import anyio
    from mcp import Client

    from memory_engine.mcp_server.binding import Binding
    from memory_engine.mcp_server.server import EngineHolder, build_server
    from tests.mcp_server.helpers import structured

    engine = MemoryEngine()
    tenant = "acme-mcp"
    server = build_server(EngineHolder(lambda: engine), binding=Binding(tenant))

    async def main() -> list[dict[str, object]]:
        async with Client(server, mode="legacy", read_timeout_seconds=120) as client:
            for text, name in zip(TEXTS, SPELLINGS, strict=True):
                args = {"content": text, "entities": [name, "Priya"]}
                assert structured(await client.call_tool("memory_write", args))["created"] == 1
            found = structured(await client.call_tool("memory_search", {"query": "ACME"}))
            return list(found["memories"])  # type: ignore[arg-type]

    try:
        memories = anyio.run(main)
        assert len(memories) == 3
        for m in memories:  # the view lists the names as written; they share one key
            assert [entity_key(str(n)) for n in m["entities"]] == ["acme", "priya"]  # type: ignore[union-attr]
        page = engine.list_entities(Scope.of(tenant))
        assert [(e.key, e.memory_count) for e in page.items] == [("acme", 3), ("priya", 3)]
    finally:
        engine.close()
