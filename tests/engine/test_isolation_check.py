"""The isolation check: zero leaks on every store, and it does catch a leaking store."""

from __future__ import annotations

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
from memory_engine.errors import InvalidInputError, MemoryNotFoundError
from memory_engine.isolation import SEARCH_PROBES, run_isolation_check
from memory_engine.models import Memory

REPO = Path(__file__).resolve().parents[2]


def test_no_leaks_on_every_store(engine: MemoryEngine) -> None:
    seen: list[tuple[int, int]] = []
    report = run_isolation_check(engine, tenants=3, on_progress=lambda d, t: seen.append((d, t)))
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
    assert data["probes_by_path"]["get"] == 24  # 4 memories of B per pair
    assert data["probes"] == sum(data["probes_by_path"].values())
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
    report = run_isolation_check(leaky, tenants=2)
    assert not report.ok
    paths = {leak.path for leak in report.leaks}
    assert paths == {"get"}
    assert len(report.leaks) == 8  # 4 memories of B, both directions


def test_cli_isolation_check_json(pg_settings_factory: Callable[..., Any], tmp_path: Path) -> None:
    settings = pg_settings_factory()
    env = {
        **os.environ,
        "MEMORY_DATABASE_URL": settings.database_url.get_secret_value(),
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
