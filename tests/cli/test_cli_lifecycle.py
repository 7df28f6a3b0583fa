"""The lifecycle commands of the real CLI (subprocess): maintain (dry run, real run, JSON),
purge with proof, forget-user."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine, Scope
from memory_engine.models import utcnow

REPO = Path(__file__).resolve().parents[2]


def test_cli_maintain_purge_forget(
    pg_settings_factory: Callable[..., Any], tmp_path: Path, tenant: str
) -> None:
    settings = pg_settings_factory()
    s = Scope.of(tenant, user_id="u1")
    with MemoryEngine(settings) as eng:
        (expiring,) = eng.write(s, "The promo code SPRING is valid until Friday").memory_ids
        (other,) = eng.write(s, "Bob's favourite colour is teal").memory_ids
        (third,) = eng.write(s, "Bob owns a grey cat").memory_ids
        eng.store.update(
            expiring,
            scope=s,
            expected_version=1,
            changes={"valid_until": utcnow() - timedelta(minutes=1)},
            actor="test",
        )
    env = {
        **os.environ,
        "MEMORY_DATABASE_URL": settings.storage.database_url.get_secret_value(),
        "PYTHONPATH": str(REPO),
    }

    def run(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "memory_engine.cli", *args],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=300,
        )

    dry = run("maintain", "--tenant", tenant, "--dry-run", "--json")
    assert dry.returncode == 0, dry.stderr
    (report,) = json.loads(dry.stdout)
    assert report["dry_run"] and report["planned"] == {"archive": 0, "purge": 0, "expire": 1}
    assert report["changes"][0]["memory_id"] == str(expiring)
    real = run("maintain", "--tenant", tenant, "--json")
    assert real.returncode == 0, real.stderr
    (done,) = json.loads(real.stdout)
    assert done["applied"] == {"archive": 0, "purge": 0, "expire": 1}

    def key(changes: list[dict[str, Any]]) -> list[tuple[str, str, int]]:
        return [(c["memory_id"], c["action"], c["version"]) for c in changes]

    assert key(done["changes"]) == key(report["changes"])  # same plan, a moment later

    preview = run("purge", str(other), "--tenant", tenant, "--preview", "--json")
    assert preview.returncode == 0, preview.stderr
    counted = json.loads(preview.stdout)
    assert counted["counts"]["row"] == 1 and counted["counts"]["vector"] == 1
    assert counted["reads"]["get"] == 1
    purged = run("purge", str(other), "--tenant", tenant, "--reason", "user asked", "--json")
    assert purged.returncode == 0, purged.stderr
    receipt = json.loads(purged.stdout)
    assert receipt["ok"] is True and receipt["memory_id"] == str(other)
    checks = {c["name"]: c for c in receipt["checks"]}
    assert checks["row"]["before"] == 1 and checks["row"]["after"] == 0
    assert {"get", "list", "search", "as_of"} <= set(checks)
    with MemoryEngine(settings) as eng:  # the same receipt is stored as the audit event
        proof = eng.history(Scope.of(tenant), other).items[-1]
        assert proof.action.value == "purge_proof" and proof.details == receipt
    no_reason = run("purge", str(third), "--tenant", tenant, "--json")
    assert no_reason.returncode == 2
    assert json.loads(no_reason.stderr.strip().splitlines()[-1])["error"] == "invalid_input"

    forgot = run("forget-user", "--tenant", tenant, "--user", "u1", "--reason", "GDPR", "--json")
    assert forgot.returncode == 0, forgot.stderr
    data = json.loads(forgot.stdout)
    assert (data["found"], data["purged"], data["verified"]) == (2, 2, 2)  # third + expired

    missing = run("purge", str(third), "--tenant", tenant, "--reason", "again", "--json")
    assert missing.returncode == 2 and "Traceback" not in missing.stderr
    assert json.loads(missing.stderr.strip().splitlines()[-1])["error"] == "not_found"
