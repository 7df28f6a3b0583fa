"""Fixtures of the write-pipeline tests: a real engine on each store, the stub server's
embeddings (64 dims, deterministic) and either the ``rules`` LLM or the stub's chat endpoint
through the real ``openai`` client. Journals live in pytest tmp folders."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_engine import MemoryEngine
from tests.support.fixtures import STUB_MODEL
from tests.support.openai_stub import OpenAIStub


@pytest.fixture(params=["postgres", "qdrant"])
def store_kind(request: pytest.FixtureRequest) -> str:
    """Each write-pipeline test runs on both stores."""
    return str(request.param)


@pytest.fixture
def make_engine(
    store_kind: str,
    stub: OpenAIStub,
    tmp_path: Path,
    pg_settings_factory: Callable[..., Any],
    qdrant_settings_factory: Callable[..., Any],
) -> Iterator[Callable[..., MemoryEngine]]:
    """Factory: ``make_engine(llm="rules"|"stub", **settings)`` -> a fresh engine on a new
    database / Qdrant collection set, closed after the test."""
    made: list[MemoryEngine] = []

    def make(llm: str = "rules", **overrides: Any) -> MemoryEngine:
        values: dict[str, Any] = {
            "embedder": "openai_compat",
            "embedding_base_url": stub.base_url,
            "embedding_model": STUB_MODEL,
            "embedding_dim": 64,
            "write_queue_path": tmp_path / f"journal-{len(made)}.sqlite3",
        }
        if llm == "stub":
            values.update(
                llm_provider="openai_compat",
                llm_base_url=stub.base_url,
                llm_model="stub-chat",
                llm_max_attempts=3,
            )
        values.update(overrides)
        if store_kind == "postgres":
            settings = pg_settings_factory(**values)
        else:
            settings = qdrant_settings_factory("qdrant_memory", **values)
        engine = MemoryEngine(settings)
        made.append(engine)
        return engine

    yield make
    for engine in made:
        engine.close()
