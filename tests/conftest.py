"""Shared pytest fixtures. Keep each group under its own banner."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.support.fixtures import openai_stub  # noqa: F401  (local OpenAI-compatible stub server)

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
# PostgreSQL store (memory_engine.stores.postgres): one embedded pgserver per test
# session in a pytest tmp dir (never ./.memory), one fresh database per store that needs
# its own embedding dimension or settings.
# =====================================================================================

#: Embedding model name and dimension of the shared ``pg_store``.
PG_TEST_MODEL = "test-random-32"
PG_TEST_DIM = 32


@pytest.fixture(scope="session")
def pg_server_url() -> Iterator[str]:
    """Owner URL of a session-wide embedded PostgreSQL (pgserver) in a fresh temp dir.

    The data folder is a ``tempfile.mkdtemp`` dir, not pytest's ``tmp_path_factory``: as root,
    pgserver runs postgres as a separate system user, and every pytest session start resets
    ``/tmp/pytest-of-<user>`` to mode 0700 (and prunes old basetemps), which would lock a
    running server out of its own folder when test sessions overlap. Stopped and removed at
    the end of the session. Skips the dependent tests when the server cannot start.
    """
    import shutil
    import tempfile

    from memory_engine.errors import StoreUnavailableError
    from memory_engine.stores.pg_embedded import (
        embedded_url,
        start_embedded_server,
        stop_embedded_server,
    )

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
    from memory_engine.stores.postgres import PostgresStore

    store = PostgresStore(pg_settings_factory())
    store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
    yield store
    store.close()


@pytest.fixture
def pg_store_factory(pg_settings_factory: Callable[..., Any]) -> Iterator[Callable[..., Any]]:
    """Factory: ``pg_store_factory(**settings_overrides)`` -> a PostgresStore on a new empty
    database (no embedding recorded). Every store it made is closed after the test."""
    from memory_engine.stores.postgres import PostgresStore

    made: list[Any] = []

    def make(**overrides: Any) -> Any:
        store = PostgresStore(pg_settings_factory(**overrides))
        made.append(store)
        return store

    yield make
    for store in made:
        store.close()
