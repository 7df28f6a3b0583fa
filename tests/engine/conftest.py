"""Engine fixtures: a real MemoryEngine on its own embedded-PostgreSQL database with the
offline MiniLM embedder (shared per session; tests isolate themselves by tenant)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memory_engine import MemoryEngine


@pytest.fixture(scope="session")
def engine(pg_settings_factory: Callable[..., Any]) -> Iterator[MemoryEngine]:
    """Session-wide engine (MiniLM, 384-d) on a fresh database."""
    eng = MemoryEngine(pg_settings_factory())
    yield eng
    eng.close()
