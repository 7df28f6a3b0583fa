"""``memory-engine copy`` of a tenant the source does not hold: exit 2, nothing copied (real
CLI, embedded PostgreSQL -> Qdrant local mode)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from typer.testing import CliRunner

from memory_engine import MemoryEngine, Scope
from memory_engine.cli.app import app
from tests.cli.test_cli_stats import cli_env
from tests.conftest import new_tenant_id


def test_copy_of_an_unknown_tenant_fails_and_copies_nothing(
    pg_settings_factory: Callable[..., Any], tmp_path: Path
) -> None:
    settings = pg_settings_factory()
    known = new_tenant_id()
    with MemoryEngine(settings) as eng:
        eng.write(Scope.of(known), "Bob owns a grey cat")
    env = cli_env(settings)
    folder = tmp_path / "qdrant"
    args = ["copy", "--from", "postgres", "--to", "qdrant", "--to-path", str(folder)]
    missing = new_tenant_id("typo")

    human = CliRunner().invoke(app, [*args, "--tenant", known, "--tenant", missing], env=env)
    assert human.exit_code == 2
    assert f"tenant(s) {missing} have no memories in the source store" in human.stderr
    assert "nothing was copied" in human.stderr

    as_json = CliRunner().invoke(app, [*args, "--tenant", missing, "--json"], env=env)
    assert as_json.exit_code == 2
    error = json.loads(as_json.stderr.strip().splitlines()[-1])
    assert error["error"] == "invalid_input" and error["details"]["tenant_ids"] == missing

    # nothing was copied, not even the known tenant named with the typo: a correct run copies 1
    ok = CliRunner().invoke(app, [*args, "--tenant", known, "--json"], env=env)
    assert ok.exit_code == 0, ok.stderr
    assert json.loads(ok.stdout)["tenants"][known]["copy"]["copied"] == 1
