"""Engine fixtures: a real MemoryEngine with the offline MiniLM embedder, shared per session and
per store (tests isolate themselves by tenant). Every engine test runs on both stores: the
embedded PostgreSQL (own database) and Qdrant local mode (own tmp folder)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memory_engine import MemoryEngine


@pytest.fixture(scope="session", params=["postgres", "qdrant"])
def engine(
    request: pytest.FixtureRequest,
    pg_settings_factory: Callable[..., Any],
    qdrant_settings_factory: Callable[..., Any],
) -> Iterator[MemoryEngine]:
    """Session-wide engine (MiniLM, 384-d) on a fresh database or Qdrant folder."""
    if request.param == "postgres":
        settings = pg_settings_factory()
    else:
        settings = qdrant_settings_factory("qdrant_path")
    eng = MemoryEngine(settings)
    yield eng
    eng.close()
