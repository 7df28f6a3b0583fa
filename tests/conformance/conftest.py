"""Fixtures of the store conformance suite: the same tests run against every store.

To add a backend, add its name to ``STORES`` and a branch to ``_StoreFactory`` (how to open a
store on fresh, empty storage with settings overrides, and how to reopen it). Tests use only the
``MemoryStore`` protocol, never backend internals.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

from memory_engine.stores.base import MemoryStore
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL

STORES = ["postgres"]

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

    def new(self, **settings_overrides: Any) -> MemoryStore:
        """A store on new, empty storage (no embedding recorded yet)."""
        if self.backend == "postgres":
            make_settings: Callable[..., Any] = self._request.getfixturevalue("pg_settings_factory")
            from memory_engine.stores.postgres import PostgresStore

            settings = make_settings(**settings_overrides)
            store: MemoryStore = PostgresStore(settings)
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
            from memory_engine.stores.postgres import PostgresStore

            again: MemoryStore = PostgresStore(settings)
        else:  # pragma: no cover
            raise NotImplementedError(self.backend)
        self._settings[id(again)] = settings
        self._open.append(again)
        return again

    def close_all(self) -> None:
        for store in self._open:
            store.close()


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
    raise NotImplementedError(request.param)  # pragma: no cover


@pytest.fixture
def rng(request: pytest.FixtureRequest) -> np.random.Generator:
    """A numpy generator seeded from the test name (reproducible per test)."""
    seed = sum(ord(c) * (i + 1) for i, c in enumerate(request.node.name)) % (2**32)
    return np.random.default_rng(seed)
