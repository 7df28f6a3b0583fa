"""``memory-engine stats``: tables by default, JSON with --json (real CLI, embedded
PostgreSQL)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from rich.console import Console
from typer.testing import CliRunner

from memory_engine import MemoryEngine, Scope
from memory_engine.cli.app import app
from memory_engine.cli.stats import MAX_DAY_ROWS, MAX_TENANT_ROWS, print_stats
from memory_engine.models import MemoryType
from tests.conftest import new_tenant_id


def cli_env(settings: Any) -> dict[str, str | None]:
    """Environment for CliRunner: the CLI opens the PostgreSQL database of ``settings``."""
    return {
        "MEMORY_DATABASE_URL": settings.storage.database_url.get_secret_value(),
        "MEMORY_STORE": "postgres",
        "MEMORY_QDRANT_PATH": None,
        "MEMORY_QDRANT_URL": None,
    }


def test_stats_prints_tables_unless_json(pg_settings_factory: Callable[..., Any]) -> None:
    settings = pg_settings_factory()
    tenant = new_tenant_id()
    s = Scope.of(tenant, user_id="u1")
    with MemoryEngine(settings) as eng:
        eng.write(s, "Bob's favourite colour is teal", memory_type=MemoryType.SEMANTIC)
        eng.write(s, "我对花生过敏", memory_type=MemoryType.SEMANTIC)
        eng.write(s, "Deploy with make release", memory_type=MemoryType.PROCEDURAL)
    env = cli_env(settings)
    runner = CliRunner()

    human = runner.invoke(app, ["stats", "--tenant", tenant], env=env, terminal_width=120)
    assert human.exit_code == 0, human.stderr
    text = human.stdout
    assert not text.lstrip().startswith("{")  # a table, not JSON
    assert f"Memories of tenant {tenant}: 3" in text
    lines = text.splitlines()
    assert any("semantic" in ln and ln.rstrip().endswith("2 │") for ln in lines), text
    assert any("procedural" in ln and "1" in ln for ln in lines)
    assert any("active" in ln and "3" in ln for ln in lines)
    assert "writes in the last 90 days (UTC): 3" in text

    raw = runner.invoke(app, ["stats", "--tenant", tenant, "--json"], env=env)
    assert raw.exit_code == 0, raw.stderr
    data = json.loads(raw.stdout)
    assert data["total"] == 3 and data["by_type"] == {"semantic": 2, "procedural": 1}

    every = runner.invoke(app, ["stats"], env=env, terminal_width=120)
    assert every.exit_code == 0, every.stderr
    assert "Memories per tenant (1 tenants)" in every.stdout
    assert any(tenant in ln and "3" in ln for ln in every.stdout.splitlines())
    assert "total: 3 memories" in every.stdout
    assert json.loads(runner.invoke(app, ["stats", "--json"], env=env).stdout) == {
        "tenants": {tenant: 3}
    }


def test_stats_tables_are_bounded_and_say_so() -> None:
    console = Console(width=100, record=True)
    counts = {f"t{i:03d}": i + 1 for i in range(MAX_TENANT_ROWS + 7)}
    print_stats(console, {"tenants": counts}, tenant=None)
    text = console.export_text()
    assert "truncated: 7 more tenants not shown (use --json)" in text
    assert f"t{MAX_TENANT_ROWS + 6:03d}" in text and "t000" not in text  # largest first
    series = [[f"2026-01-{d:02d}", 1] for d in range(1, MAX_DAY_ROWS + 4)]
    data = {"total": 1, "by_type": {}, "by_status": {}, "by_source": {}, "writes_per_day": series}
    print_stats(console, data, tenant="acme")
    text = console.export_text()
    assert f"writes in the last {MAX_DAY_ROWS + 3} days (UTC): {MAX_DAY_ROWS + 3}" in text
    assert "truncated: 3 older days not shown" in text and "2026-01-01" not in text
