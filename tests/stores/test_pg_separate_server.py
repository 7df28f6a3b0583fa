"""A user who outgrows the embedded default: PostgreSQL as a server of its own (from the embedded
package, on a TCP port, SCRAM passwords), a non-superuser owner login, and the CLI configured by
``MEMORY_DATABASE_URL`` alone (passwords in a libpq password file, none in a URL)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from bench.external_server import APP_ROLE, DATABASE, OWNER, SeparateServer, provision
from tests.dashboard.conftest import ROOT


@pytest.fixture
def separate_server() -> Iterator[tuple[SeparateServer, Path]]:
    """A started server and its libpq password file. Its folder is a ``mkdtemp`` dir with mode
    0755, not pytest's ``tmp_path`` (0700, reset by every pytest session start): as root the
    server runs as the package's own system user, which must reach its folder."""
    folder = Path(tempfile.mkdtemp(prefix="memory-engine-separate-pg-"))
    folder.chmod(0o755)
    server = SeparateServer(folder / "server")
    try:
        server.start()
        passfile = folder / "pgpass"
        info = provision(server, passfile)
        assert info["owner"] == {"superuser": False, "createdb": True, "createrole": True}
        assert tuple(int(p) for p in info["pgvector"].split(".")[:2]) >= (0, 8)
        yield server, passfile
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)


def _cli(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", *args],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )


def test_cli_on_a_separate_server_with_a_non_superuser_owner(
    separate_server: tuple[SeparateServer, Path], tmp_path: Path
) -> None:
    server, passfile = separate_server
    env = {
        **os.environ,
        "PYTHONPATH": ROOT,
        "MEMORY_DATA_DIR": str(tmp_path / "data"),
        "MEMORY_DATABASE_URL": server.tcp_url(OWNER),
        "PGPASSFILE": str(passfile),
    }
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {"role": "user", "content": "我对花生过敏"},
                {"role": "user", "content": "I prefer green tea over coffee"},
            ],
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    ingest = _cli(env, "ingest", str(chat), "--tenant", "ext")
    assert ingest.returncode == 0, ingest.stderr[-3000:]
    found = _cli(env, "search", "花生过敏", "--tenant", "ext", "--json")
    assert found.returncode == 0, found.stderr[-3000:]
    contents = [m["content"] for m in json.loads(found.stdout)["memories"]]
    assert any("花生" in c for c in contents), contents

    # nothing was written to the embedded default, and the engine's queries logged in as the
    # application role over TCP (not the owner, not a superuser)
    assert not (tmp_path / "data" / "postgres").exists()
    with psycopg.connect(server.superuser_url(DATABASE), autocommit=True) as conn:
        owner_of = conn.execute(
            "SELECT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner "
            "WHERE c.relname = 'memories'"
        ).fetchone()
        rows = conn.execute("SELECT count(*) FROM memories WHERE tenant_id = 'ext'").fetchone()
        app = conn.execute(
            "SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [APP_ROLE]
        ).fetchone()
    assert owner_of == (OWNER,)
    assert rows == (2,)
    assert app == (False, False)
