"""The isolation check: zero leaks on every store, and it does catch a leaking store."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.cli.isolation import frontend_probers
from memory_engine.errors import InvalidInputError, MemoryNotFoundError
from memory_engine.isolation.check import SEARCH_PROBES, run_isolation_check
from memory_engine.isolation.probe import Planted, Prober, ProbeRecorder
from memory_engine.models import Memory, Page
from tests.conftest import new_tenant_id

REPO = Path(__file__).resolve().parents[2]


def test_no_leaks_on_every_store(engine: MemoryEngine) -> None:
    seen: list[tuple[int, int]] = []
    report = run_isolation_check(
        engine,
        tenants=3,
        on_progress=lambda d, t: seen.append((d, t)),
        probers=frontend_probers(engine),
    )
    data = report.to_dict()
    assert data["ok"], data
    assert data["leaks"] == 0 and data["errors"] == []
    assert data["memories_planted"] == 12
    assert seen[-1] == (6, 6)
    # Every path was probed for each of the 6 ordered tenant pairs.
    for label, _legs, _statuses in SEARCH_PROBES:
        assert data["probes_by_path"][label] == 6
    for path in ("update", "archive", "delete", "get_trace", "list", "events", "traces", "export"):
        assert data["probes_by_path"][path] == 6
    for path in ("entities", "entity_memories"):  # the entity index (every canary names one)
        assert data["probes_by_path"][path] == 6
    assert data["probes_by_path"]["get"] == 24  # 4 memories of B per pair
    assert data["probes_by_path"]["memory_entities"] == 24
    assert data["probes"] == sum(data["probes_by_path"].values())
    # The CLI, the MCP server (bound to A, in-process SDK client) and the dashboard reads (a
    # viewer granted only A) were probed for every pair too.
    assert list(data["paths"]) == ["engine", "cli", "mcp", "dashboard"]
    assert all(p["leaks"] == 0 for p in data["paths"].values())
    assert sum(p["probes"] for p in data["paths"].values()) == data["probes"]
    for label, per_pair in {
        "cli.search": 1,
        "cli.stats": 1,
        "cli.entities": 1,
        "mcp.search": 1,
        "mcp.history": 4,
        "mcp.update": 2,
        "mcp.delete": 1,
        "mcp.tenant_argument": 2,
        "dashboard.search": 1,
        "dashboard.list": 1,
        "dashboard.get": 4,
        "dashboard.entities": 1,
        "dashboard.memory_entities": 4,
        "dashboard.grant": 2,
    }.items():
        assert data["probes_by_path"][label] == 6 * per_pair, label
    # Cleanup purged every planted memory.
    assert report.cleaned_up
    for tenant in report.tenants:
        assert engine.list(Scope.of(tenant)).items == []


def test_tenant_count_is_bounded(engine: MemoryEngine) -> None:
    with pytest.raises(InvalidInputError):
        run_isolation_check(engine, tenants=1)


class _LeakyStore:
    """The real store, except ``get`` ignores the scope's tenant (a forgotten filter)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        try:
            return self._inner.get(memory_id, scope=scope)
        except MemoryNotFoundError:
            for page in [self._inner.admin_tenant_counts(actor="leak", reason="test")]:
                for tenant in page:
                    try:
                        return self._inner.get(memory_id, scope=Scope.of(tenant))
                    except MemoryNotFoundError:
                        continue
            raise


def test_check_detects_a_forgotten_tenant_filter(engine: MemoryEngine) -> None:
    leaky = MemoryEngine(engine.settings, store=_LeakyStore(engine.store), embedder=engine.embedder)
    report = run_isolation_check(leaky, tenants=2, probers=frontend_probers(leaky))
    assert not report.ok
    paths = {leak.path for leak in report.leaks}
    # The engine's get and the dashboard's memory lookup both reach B's memories.
    assert paths == {"get", "dashboard.get"}
    assert len(report.leaks) == 16  # 4 memories of B, both directions, two paths
    assert report.to_dict()["paths"]["dashboard"]["leaks"] == 8
    assert report.to_dict()["paths"]["mcp"]["leaks"] == 0


class _LeakyEntityStore(_LeakyStore):
    """The real store, except the entity listing ignores the scope's tenant."""

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        return self._inner.get(memory_id, scope=scope)

    def list_entities(self, *, scope: Scope, limit: int = 50, statuses: Any = ()) -> Any:
        items = []
        for tenant in self._inner.admin_tenant_counts(actor="leak", reason="test"):
            items += self._inner.list_entities(scope=Scope.of(tenant), limit=limit).items
        return Page(items=items, truncated=False)


def test_check_detects_a_leak_through_the_entity_index(engine: MemoryEngine) -> None:
    leaky = MemoryEngine(
        engine.settings, store=_LeakyEntityStore(engine.store), embedder=engine.embedder
    )
    report = run_isolation_check(leaky, tenants=2, paths=("engine",))
    assert {leak.path for leak in report.leaks} == {"entities"}
    assert len(report.leaks) == 2  # both directions


def test_cli_isolation_check_json(pg_settings_factory: Callable[..., Any], tmp_path: Path) -> None:
    settings = pg_settings_factory()
    env = {
        **os.environ,
        "MEMORY_DATABASE_URL": settings.storage.database_url.get_secret_value(),
        "PYTHONPATH": str(REPO),
    }
    run = subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", "isolation-check", "--tenants", "2", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    assert data["ok"] is True and data["leaks"] == 0 and data["probes"] > 20


class _LeakyHistoryStore(_LeakyStore):
    """The real store, except ``history`` ignores the scope's tenant (reached by MCP tools)."""

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        return self._inner.get(memory_id, scope=scope)

    def history(self, memory_id: uuid.UUID, *, scope: Scope) -> Any:
        try:
            return self._inner.history(memory_id, scope=scope)
        except MemoryNotFoundError:
            for tenant in self._inner.admin_tenant_counts(actor="leak", reason="test"):
                try:
                    return self._inner.history(memory_id, scope=Scope.of(tenant))
                except MemoryNotFoundError:
                    continue
            raise


def test_check_detects_a_leak_through_the_mcp_tools(engine: MemoryEngine) -> None:
    """memory_history of B's ids through the MCP server bound to A must answer not-found."""
    leaky = MemoryEngine(
        engine.settings, store=_LeakyHistoryStore(engine.store), embedder=engine.embedder
    )
    report = run_isolation_check(
        leaky, tenants=2, probers=frontend_probers(leaky), paths=("engine", "mcp")
    )
    data = report.to_dict()
    assert list(data["paths"]) == ["engine", "mcp"]
    assert {leak.path for leak in report.leaks} == {"history", "mcp.history"}
    assert data["paths"]["mcp"]["leaks"] == 8  # 4 memories of B, both directions
    assert data["paths"]["engine"]["leaks"] == 8


def test_unknown_path_is_refused(engine: MemoryEngine) -> None:
    with pytest.raises(InvalidInputError):
        run_isolation_check(engine, tenants=2, paths=("engine", "smtp"))
    with pytest.raises(InvalidInputError):  # a frontend path whose prober was not passed
        run_isolation_check(engine, tenants=2, paths=("engine", "mcp"))


class _CountingProber:
    """A prober of another path: one probe per pair, never a leak."""

    path = "smtp"

    def __init__(self) -> None:
        self.tenants: list[str] = []

    def acting_for(self, tenant: str) -> contextlib.AbstractContextManager[None]:
        self.tenants.append(tenant)
        return contextlib.nullcontext()

    def pair(self, recorder: ProbeRecorder, a: Planted, b: Planted) -> None:
        recorder.probe("smtp.send", a, b, lambda: None)


def test_the_check_runs_the_probers_it_is_given(engine: MemoryEngine) -> None:
    """Only the engine's own probes without probers; a prober of any path is run and reported."""
    bare = run_isolation_check(engine, tenants=2).to_dict()
    assert bare["ok"] and list(bare["paths"]) == ["engine"]
    smtp = _CountingProber()
    assert isinstance(smtp, Prober)
    report = run_isolation_check(engine, tenants=2, probers=[smtp])
    assert list(report.to_dict()["paths"]) == ["engine", "smtp"]
    assert report.probes_by_path["smtp.send"] == 2
    assert smtp.tenants == report.tenants  # entered once per tenant A
    with pytest.raises(InvalidInputError):  # one prober per path
        run_isolation_check(engine, tenants=2, probers=[smtp, _CountingProber()])


def test_dashboard_reads_check_the_account(engine: MemoryEngine) -> None:
    """The page reads (ui.reads) refuse a tenant the account is not granted, and no account."""
    from memory_engine.dashboard import reads
    from memory_engine.security.auth import Account, PermissionDeniedError, Role

    a, b = new_tenant_id("dash-a"), new_tenant_id("dash-b")
    mid = engine.write(Scope.of(b), "Dashboard grant probe 仪表盘授权").outcomes[0].memory_id
    viewer = Account(name="v", role=Role.VIEWER, tenants=(a,))
    with pytest.raises(PermissionDeniedError):
        reads.search(engine, viewer, b, "grant probe")
    with pytest.raises(PermissionDeniedError):
        reads.get_memory(engine, viewer, b, mid)
    with pytest.raises(PermissionDeniedError):
        reads.list_memories(engine, None, b)
    with pytest.raises(MemoryNotFoundError):
        reads.get_memory(engine, viewer, a, mid)
    assert reads.list_memories(engine, viewer, a).items == []
    owner = Account(name="o", role=Role.VIEWER, tenants=(b,))
    assert reads.get_memory(engine, owner, b, mid).id == mid
    assert [c.memory.id for c in reads.search(engine, owner, b, "grant probe").memories] == [mid]
