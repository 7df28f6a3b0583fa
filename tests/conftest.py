"""Shared pytest fixtures. Keep each group under its own banner."""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import openai_stub, stub  # noqa: F401  (local OpenAI-compatible stub)

# =====================================================================================
# Tenants: unique ids per test, so tests sharing one store never see each other's rows.
# =====================================================================================


def new_tenant_id(prefix: str = "t") -> str:
    """A fresh tenant id (``[A-Za-z0-9_.:-]``, <= 64 chars), unique per call."""
    return f"{prefix}-{uuid.uuid4().hex[:16]}"


@pytest.fixture
def tenant() -> str:
    """One unique tenant id for this test."""
    return new_tenant_id()


@pytest.fixture
def tenant_pair() -> tuple[str, str]:
    """Two unique tenant ids (A, B) for isolation tests."""
    return new_tenant_id("a"), new_tenant_id("b")


# =====================================================================================
# PostgreSQL store (memory_engine.stores.postgres.store): one embedded pgserver per test
# session in a pytest tmp dir (never ./.memory), one fresh database per store that needs
# its own embedding dimension or settings.
# =====================================================================================

#: Embedding model name and dimension of the shared ``pg_store``.
PG_TEST_MODEL = "test-random-32"
PG_TEST_DIM = 32


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """Owner URL of a session-wide embedded PostgreSQL (pgserver) in a fresh temp dir, or of the
    separate server named by ``MEMORY_TEST_DATABASE_URL`` (its login needs ``CREATEDB``; pgvector
    must be installed in ``template1``, see bench/external_server.py).

    The data folder is a ``tempfile.mkdtemp`` dir, not pytest's ``tmp_path_factory``: as root,
    pgserver runs postgres as a separate system user, and every pytest session start resets
    ``/tmp/pytest-of-<user>`` to mode 0700 (and prunes old basetemps), which would lock a
    running server out of its own folder when test sessions overlap. Stopped and removed at
    the end of the session. Skips the dependent tests when the server cannot start.
    """
    import shutil
    import tempfile

    from memory_engine.errors import StoreUnavailableError
    from memory_engine.stores.postgres.embedded import (
        embedded_url,
        start_embedded_server,
        stop_embedded_server,
    )

    external = os.environ.get("MEMORY_TEST_DATABASE_URL")
    if external:  # a separate server (bench/external_server.py): nothing to start or stop
        yield external
        return
    data_dir = Path(tempfile.mkdtemp(prefix="memory-engine-test-pg-")) / "data"
    try:
        url = embedded_url(start_embedded_server(data_dir))
    except StoreUnavailableError as exc:  # pragma: no cover - environment problem
        shutil.rmtree(data_dir.parent, ignore_errors=True)
        pytest.skip(f"embedded PostgreSQL unavailable: {exc}")
    yield url
    stop_embedded_server(data_dir)
    shutil.rmtree(data_dir.parent, ignore_errors=True)


@pytest.fixture(scope="session")
def make_pg_database(pg_server_url: str) -> Callable[[str], str]:
    """Factory: ``make_pg_database(prefix)`` creates an empty database, returns its URL."""
    import psycopg
    from psycopg import sql
    from psycopg.conninfo import make_conninfo

    def make(prefix: str = "db") -> str:
        name = f"{prefix}_{uuid.uuid4().hex[:12]}"
        with psycopg.connect(pg_server_url, autocommit=True) as conn:
            conn.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
        return make_conninfo(pg_server_url, dbname=name)

    return make


@pytest.fixture(scope="session")
def pg_settings_factory(make_pg_database: Callable[[str], str]) -> Callable[..., Any]:
    """Factory: ``pg_settings_factory(**overrides)`` -> Settings on a NEW empty database.

    Use it for an engine/store with its own embedder dimension or settings.
    """
    from pydantic import SecretStr

    from memory_engine.config import Settings

    def make(**overrides: Any) -> Settings:
        url = make_pg_database("mem")
        values: dict[str, Any] = {"store": "postgres", "database_url": SecretStr(url)}
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    return make


@pytest.fixture(scope="session")
def pg_store(pg_settings_factory: Callable[..., Any]) -> Iterator[Any]:
    """A session-wide PostgresStore on its own database, embedding fixed to
    (PG_TEST_MODEL, PG_TEST_DIM). Isolate tests with unique tenants (``tenant`` fixture)."""
    from memory_engine.stores.postgres.store import PostgresStore

    store = PostgresStore(pg_settings_factory())
    store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
    yield store
    store.close()


@pytest.fixture
def pg_store_factory(pg_settings_factory: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """Factory: ``pg_store_factory(**settings_overrides)`` -> a PostgresStore on a new empty
    database (no embedding recorded). Every store it made is closed after the test."""
    from memory_engine.stores.postgres.store import PostgresStore

    made: list[Any] = []

    def make(**overrides: Any) -> Any:
        store = PostgresStore(pg_settings_factory(**overrides))
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()


# =====================================================================================
# Qdrant store (memory_engine.stores.qdrant.store): local mode in memory (":memory:") or in a
# pytest tmp folder, and a server only when MEMORY_TEST_QDRANT_URL is set (skipped
# otherwise; every store on it gets its own collection prefix, dropped at the end).
# =====================================================================================

#: The Qdrant flavours the conformance suite runs on.
QDRANT_KINDS = ("qdrant_memory", "qdrant_path", "qdrant_server")


@pytest.fixture(scope="session")
def qdrant_settings_factory(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """Factory: ``qdrant_settings_factory(kind, **overrides)`` -> Settings of a NEW empty
    Qdrant store of ``kind`` (``qdrant_memory``, ``qdrant_path`` or ``qdrant_server``)."""
    import os

    from memory_engine.config import Settings

    server_prefixes: list[str] = []
    url = os.environ.get("MEMORY_TEST_QDRANT_URL")

    def make(kind: str, **overrides: Any) -> Settings:
        values: dict[str, Any] = {"store": "qdrant", "qdrant_url": None, "qdrant_path": None}
        if kind == "qdrant_memory":
            values["qdrant_path"] = ":memory:"
        elif kind == "qdrant_path":
            values["qdrant_path"] = str(tmp_path_factory.mktemp("qdrant"))
        elif kind == "qdrant_server":
            if not url:
                pytest.skip("MEMORY_TEST_QDRANT_URL is not set")
            prefix = f"t{uuid.uuid4().hex[:12]}"
            server_prefixes.append(prefix)
            values.update(qdrant_url=url, qdrant_collection_prefix=prefix)
        else:  # pragma: no cover
            raise ValueError(kind)
        values.update(overrides)
        return Settings(_env_file=None, **values)  # type: ignore[call-arg]

    yield make
    if url and server_prefixes:  # pragma: no cover - needs a server
        from qdrant_client import QdrantClient

        client = QdrantClient(url=url, api_key=os.environ.get("MEMORY_TEST_QDRANT_API_KEY"))
        for c in client.get_collections().collections:
            if any(c.name.startswith(f"{p}_") for p in server_prefixes):
                client.delete_collection(c.name)
        client.close()


def open_qdrant_store(settings: Any, client: Any = None) -> Any:
    """A QdrantStore on ``settings``; a ``":memory:"`` store runs on ``client`` when given
    (so a test can reopen the same in-memory data)."""
    from memory_engine.stores.qdrant.store import QdrantStore

    return QdrantStore(settings, client=client)


@pytest.fixture(scope="session")
def qdrant_shared_store(qdrant_settings_factory: Callable[..., Any]) -> Iterator[Any]:
    """Factory: ``qdrant_shared_store(kind)`` -> the session-wide QdrantStore of that kind,
    embedding fixed to (PG_TEST_MODEL, PG_TEST_DIM). Isolate tests with unique tenants."""
    stores: dict[str, Any] = {}

    def get(kind: str) -> Any:
        if kind not in stores:
            store = open_qdrant_store(qdrant_settings_factory(kind))
            store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
            stores[kind] = store
        return stores[kind]

    yield get
    for store in stores.values():
        store.close()


# =====================================================================================
# Engine: a real MemoryEngine with the offline MiniLM embedder, shared per session and per
# store (tests isolate themselves by tenant); every engine test runs on both stores.
# =====================================================================================


@pytest.fixture(scope="session", params=["postgres", "qdrant"])
def engine(
    request: pytest.FixtureRequest,
    pg_settings_factory: Callable[..., Any],
    qdrant_settings_factory: Callable[..., Any],
) -> Iterator[Any]:
    """Session-wide engine (MiniLM, 384-d) on a fresh database or Qdrant folder."""
    if request.param == "postgres":
        settings = pg_settings_factory()
    else:
        settings = qdrant_settings_factory("qdrant_path")
    from memory_engine import MemoryEngine

    eng = MemoryEngine(settings)
    yield eng
    eng.close()
