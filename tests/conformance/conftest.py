"""Fixtures of the store conformance suite: the same tests run against every store.

To add a backend, add its name to ``STORES`` and a branch to ``_StoreFactory`` (how to open a
store on fresh, empty storage with settings overrides, and how to reopen it). Tests use only the
``MemoryStore`` protocol, never backend internals.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from memory_engine.stores.base import MemoryStore
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL, QDRANT_KINDS, open_qdrant_store

_SERVER = pytest.mark.skipif(
    not os.environ.get("MEMORY_TEST_QDRANT_URL"), reason="MEMORY_TEST_QDRANT_URL is not set"
)
STORES = [
    "postgres",
    "qdrant_memory",  # qdrant-client local mode, in memory
    "qdrant_path",  # local mode in a tmp folder
    pytest.param("qdrant_server", marks=_SERVER),  # a real server (MEMORY_TEST_QDRANT_URL)
]

#: Model and dimension the shared ``store`` is fixed to.
MODEL = PG_TEST_MODEL
DIM = PG_TEST_DIM


class _StoreFactory:
    """Opens stores of one backend on fresh empty storage; closes them after the test."""

    def __init__(self, backend: str, request: pytest.FixtureRequest) -> None:
        self.backend = backend
        self._request = request
        self._open: list[MemoryStore] = []
        self._settings: dict[int, Any] = {}
        self._clients: dict[int, Any] = {}  # ":memory:" stores: the client a reopen reuses

    def new(self, **settings_overrides: Any) -> MemoryStore:
        """A store on new, empty storage (no embedding recorded yet)."""
        if self.backend == "postgres":
            make_settings: Callable[..., Any] = self._request.getfixturevalue("pg_settings_factory")
            from memory_engine.stores.postgres.store import PostgresStore

            settings = make_settings(**settings_overrides)
            store: MemoryStore = PostgresStore(settings)
        elif self.backend in QDRANT_KINDS:
            settings = self._request.getfixturevalue("qdrant_settings_factory")(
                self.backend, **settings_overrides
            )
            client = None
            if self.backend == "qdrant_memory":
                from qdrant_client import QdrantClient

                client = QdrantClient(location=":memory:")
            store = open_qdrant_store(settings, client)
            self._clients[id(store)] = client
        else:  # pragma: no cover - new backends plug in here
            raise NotImplementedError(self.backend)
        self._settings[id(store)] = settings
        self._open.append(store)
        return store

    def reopen(self, store: MemoryStore) -> MemoryStore:
        """Close ``store`` and open a new store object on the same storage and settings."""
        settings = self._settings[id(store)]
        store.close()
        if self.backend == "postgres":
            from memory_engine.stores.postgres.store import PostgresStore

            again: MemoryStore = PostgresStore(settings)
        elif self.backend in QDRANT_KINDS:
            client = self._clients[id(store)]
            again = open_qdrant_store(settings, client)
            self._clients[id(again)] = client
        else:  # pragma: no cover
            raise NotImplementedError(self.backend)
        self._settings[id(again)] = settings
        self._open.append(again)
        return again

    def close_all(self) -> None:
        for store in self._open:
            store.close()
        for client in {id(c): c for c in self._clients.values() if c is not None}.values():
            client.close()


@pytest.fixture(params=STORES)
def store_factory(request: pytest.FixtureRequest) -> Iterator[_StoreFactory]:
    """Per backend: ``store_factory.new(**settings_overrides)`` and ``.reopen(store)``."""
    factory = _StoreFactory(request.param, request)
    yield factory
    factory.close_all()


@pytest.fixture(params=STORES)
def store(request: pytest.FixtureRequest) -> MemoryStore:
    """A shared store per backend with the embedding fixed to (MODEL, DIM); use unique tenants."""
    if request.param == "postgres":
        shared: MemoryStore = request.getfixturevalue("pg_store")
        return shared
    if request.param in QDRANT_KINDS:
        qdrant: MemoryStore = request.getfixturevalue("qdrant_shared_store")(request.param)
        return qdrant
    raise NotImplementedError(request.param)  # pragma: no cover


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A numpy generator seeded from the test name (reproducible per test)."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(request.node.name)) % (2**32)
    return np.random.default_rng(seed)
