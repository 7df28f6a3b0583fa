"""A user's first run: an empty ``MEMORY_DATA_DIR`` and nothing else set (issue 15, item 1).

The write journal is created in the data folder before the embedded PostgreSQL initialises
it; PostgreSQL lives in ``<data_dir>/postgres`` so that never blocks initdb. A folder made by
an earlier version (PostgreSQL's files at its top) keeps working in place. Layout:
``memory_engine/config/layout.py``.

Every test starts like a user: only ``MEMORY_DATA_DIR`` in the environment (every other
``MEMORY_*`` removed), a working directory without ``.env``, no settings passed. The folders
are ``tempfile.mkdtemp`` dirs, not ``tmp_path`` (as root, pgserver runs postgres as another
user: see ``pg_server_url`` in tests/conftest.py).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.config.layout import JOURNAL_FILE, POSTGRES_DIR
from memory_engine.errors import StoreUnavailableError
from memory_engine.stores.postgres.embedded import (
    embedded_pg_folder,
    embedded_url,
    start_embedded_server,
    stop_embedded_server,
)
from tests.conftest import new_tenant_id

REPO = Path(__file__).resolve().parents[2]
FACT = "我对花生过敏"


@pytest.fixture
def base() -> Iterator[Path]:
    """A fresh folder holding ``cwd/`` (no .env) and room for data folders; any embedded
    server this process started in ``base/data`` is stopped before it is removed."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-fresh-"))
    (root / "cwd").mkdir()
    yield root
    stop_embedded_server(root / "data")  # either layout
    shutil.rmtree(root, ignore_errors=True)


def user_env(monkeypatch: pytest.MonkeyPatch, base: Path, data_dir: Path) -> None:
    """The environment of a user who set only ``MEMORY_DATA_DIR``."""
    for key in list(os.environ):
        if key.startswith("MEMORY_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(data_dir))
    monkeypatch.chdir(base / "cwd")


def subprocess_env(data_dir: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(MEMORY_DATA_DIR=str(data_dir), PYTHONPATH=str(REPO))
    return env


def contents(engine: MemoryEngine, scope: Scope, query: str) -> list[str]:
    return [c.memory.content for c in engine.search(scope, query).memories]


def wait_stopped(pgdata: Path, timeout: float = 30) -> None:
    deadline = time.monotonic() + timeout
    while (pgdata / "postmaster.pid").exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not (pgdata / "postmaster.pid").exists(), "embedded server still running"


# ------------------------------------------------------------------ resolution (no server)
def test_pg_folder_of_new_and_missing_folders(base: Path) -> None:
    data = base / "data"
    assert embedded_pg_folder(data) == (data / POSTGRES_DIR).resolve()  # missing
    data.mkdir()
    assert embedded_pg_folder(data) == (data / POSTGRES_DIR).resolve()  # empty
    for name in (JOURNAL_FILE, f"{JOURNAL_FILE}-wal", f"{JOURNAL_FILE}-shm"):
        (data / name).write_bytes(b"")
    (data / "golden").mkdir()
    assert embedded_pg_folder(data) == (data / POSTGRES_DIR).resolve()  # only our files
    assert not (data / POSTGRES_DIR).exists()  # nothing created by the resolution


def test_pg_folder_of_an_old_layout_is_the_folder_itself(base: Path) -> None:
    data = base / "data"
    data.mkdir()
    (data / "PG_VERSION").write_text("16\n")
    (data / JOURNAL_FILE).write_bytes(b"")
    (data / "base").mkdir()
    assert embedded_pg_folder(data) == data.resolve()


def test_foreign_files_are_refused_and_named(base: Path) -> None:
    data = base / "data"
    data.mkdir()
    (data / JOURNAL_FILE).write_bytes(b"")
    (data / "notes.txt").write_text("mine")
    with pytest.raises(StoreUnavailableError, match=r"not a PostgreSQL data folder.*notes\.txt"):
        embedded_pg_folder(data)
    settings = Settings(_env_file=None, data_dir=data, database_url=None)  # type: ignore[call-arg]
    with MemoryEngine(settings) as engine, pytest.raises(StoreUnavailableError, match="notes"):
        engine.write(Scope.of("t"), "Ann likes tea")
    assert not (data / POSTGRES_DIR).exists()


def test_foreign_files_beside_an_initialised_postgres_folder_are_tolerated(base: Path) -> None:
    data = base / "data"
    (data / POSTGRES_DIR).mkdir(parents=True)
    (data / POSTGRES_DIR / "PG_VERSION").write_text("16\n")
    (data / "backup-notes.txt").write_text("the user's own file, added later")
    assert embedded_pg_folder(data) == (data / POSTGRES_DIR).resolve()


# ------------------------------------------------------------------ a user's first run
def test_first_extract_write_in_an_empty_data_dir(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = base / "data"
    data.mkdir()
    user_env(monkeypatch, base, data)
    scope = Scope.of("t")
    with MemoryEngine() as engine:
        result = engine.write(scope, FACT, mode="extract")
        assert [o.status for o in result.outcomes] == ["created"]
        assert any("花生" in c for c in contents(engine, scope, "花生过敏"))
        assert engine.write(scope, "Ann prefers green tea", mode="raw").outcomes[0].status == (
            "created"
        )
    assert (data / JOURNAL_FILE).exists()
    assert (data / POSTGRES_DIR / "PG_VERSION").exists()
    assert not (data / "PG_VERSION").exists()
    stop_embedded_server(data)  # MEMORY_DATA_DIR, not the PostgreSQL folder: still found
    wait_stopped(data / POSTGRES_DIR)

    with MemoryEngine() as engine:  # the same folder, reopened
        assert any("花生" in c for c in contents(engine, scope, "花生"))
        again = engine.write(scope, "以后周四汇报", mode="extract")
        assert [o.status for o in again.outcomes] == ["created"]
        assert len(engine.list(scope, limit=10).items) == 3


def test_a_folder_left_by_the_failed_first_write_is_usable(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Before the fix the journal stayed behind and the folder was refused for good."""
    from memory_engine.write.journal import WriteJournal

    data = base / "data"
    data.mkdir()
    WriteJournal(data / JOURNAL_FILE).close()
    user_env(monkeypatch, base, data)
    with MemoryEngine() as engine:
        assert engine.write(Scope.of("t"), "Ann likes tea").outcomes[0].status == "created"


def test_cli_ingest_extract_in_an_empty_data_dir(base: Path) -> None:
    data = base / "data"  # not even created: the CLI makes it
    tenant = new_tenant_id("fresh")
    chat = base / "chat.json"
    turns = [
        {"role": "user", "content": FACT, "timestamp": "2024-05-22T09:00:00Z"},
        {"role": "assistant", "content": "好的，我记住了。"},
        {"role": "user", "content": "以后周四汇报", "timestamp": "2024-05-22T09:01:00Z"},
    ]
    chat.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    env = subprocess_env(data)
    cli = [sys.executable, "-m", "memory_engine.cli"]
    run = subprocess.run(
        [*cli, "ingest", str(chat), "--tenant", tenant, "--mode", "extract", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=base / "cwd",
        timeout=300,
    )
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)[tenant]["created"] == 2
    found = subprocess.run(
        [*cli, "search", "花生", "--tenant", tenant, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=base / "cwd",
        timeout=300,
    )
    assert found.returncode == 0, found.stderr
    assert any("花生" in m["content"] for m in json.loads(found.stdout)["memories"])
    assert (data / JOURNAL_FILE).exists() and (data / POSTGRES_DIR / "PG_VERSION").exists()
    wait_stopped(data / POSTGRES_DIR)  # the last CLI process stopped the server


def test_a_folder_made_by_an_earlier_version_keeps_working_in_place(
    base: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = base / "data"
    scope = Scope.of(new_tenant_id("old"))
    # The old layout: PostgreSQL initialised in the data folder itself, a memory written.
    url = embedded_url(start_embedded_server(data))
    old = Settings(_env_file=None, database_url=url)  # type: ignore[call-arg]
    with MemoryEngine(old) as engine:
        mid = engine.write(scope, "Ann is allergic to peanuts").outcomes[0].memory_id
    stop_embedded_server(data)
    wait_stopped(data)
    before = sorted(p.name for p in data.iterdir())

    user_env(monkeypatch, base, data)
    with MemoryEngine() as engine:
        assert mid is not None and engine.get(scope, mid).content == "Ann is allergic to peanuts"
        result = engine.write(scope, FACT, mode="extract")
        assert [o.status for o in result.outcomes] == ["created"]
        assert any("花生" in c for c in contents(engine, scope, "花生"))
    assert not (data / POSTGRES_DIR).exists()  # used in place: nothing moved or added
    assert (data / JOURNAL_FILE).exists()  # the journal sits in the old folder
    assert set(before) <= {p.name for p in data.iterdir()}
