"""The extra dense legs of an engine built with its own primary embedder
(``MemoryEngine(..., embedder=X)``): the settings' multilingual leg is still written and
searched (the injected embedder replaces the primary leg only), ``leg_embedders={}`` turns it
off, ``MEMORY_EMBEDDER_MULTILINGUAL=none`` too, and a USE-m3 primary adds no second copy of
itself. Real Qdrant local mode (in memory) and the real USE-m3 model."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest
from qdrant_client import QdrantClient

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.embedding.usem3 import USEM3_DIM, USEM3_MODEL_NAME, UseM3Embedder
from memory_engine.stores.qdrant.store import QdrantStore

TEXTS = ["我对花生过敏，吃了会起疹子。", "The database password rotates every ninety days."]


class _Primary:
    """A small deterministic primary embedder (a user's own model)."""

    model_name, dim, max_input_chars = "users-own-model", 16, 1000

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = np.ones(self.dim) + np.array([ord(c) % 5 for c in (text * self.dim)[: self.dim]])
            out.append((v / np.linalg.norm(v)).tolist())
        return out


def _engine(embedder: Any, **kwargs: Any) -> MemoryEngine:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        store="qdrant",
        qdrant_path=":memory:",
        **kwargs.pop("settings", {}),
    )
    store = QdrantStore(settings, client=QdrantClient(location=":memory:"))
    return MemoryEngine(settings, store=store, embedder=embedder, **kwargs)


def _filled(engine: MemoryEngine, scope: Scope) -> dict[str, tuple[int, int]]:
    legs = engine.store.legs  # type: ignore[attr-defined]
    return {leg: legs.leg_counts(leg, scope=scope) for leg in legs.leg_records()}


def test_an_injected_primary_keeps_the_default_multilingual_leg() -> None:
    engine = _engine(_Primary())
    scope = Scope.of("own-embedder")
    try:
        for text in TEXTS:
            engine.write(scope, text)
        assert engine.store.embedding_info() == ("users-own-model", 16)
        records = engine.store.legs.leg_records()  # type: ignore[attr-defined]
        assert {leg: (r.model, r.dim, r.state) for leg, r in records.items()} == {
            "dense_ml": (USEM3_MODEL_NAME, USEM3_DIM, "ready")
        }
        assert _filled(engine, scope) == {"dense_ml": (2, 2)}  # every write got its vector
        hit = engine.search(scope, "我对什么过敏？")
        assert {"dense", "dense_ml", "keyword"} <= set(hit.trace.legs)
        assert "花生" in hit.memories[0].memory.content
    finally:
        engine.close()


@pytest.mark.parametrize(
    "kwargs",
    [{"leg_embedders": {}}, {"settings": {"embedder_multilingual": "none"}}],
    ids=["leg_embedders={}", "MEMORY_EMBEDDER_MULTILINGUAL=none"],
)
def test_the_multilingual_leg_is_off_only_when_asked(kwargs: dict[str, Any]) -> None:
    engine = _engine(_Primary(), **kwargs)
    scope = Scope.of("one-leg")
    try:
        engine.write(scope, TEXTS[0])
        assert engine.store.legs.leg_records() == {}  # type: ignore[attr-defined]
        assert "dense_ml" not in engine.search(scope, "花生").trace.legs
    finally:
        engine.close()


def test_a_usem3_primary_adds_no_second_copy_of_itself() -> None:
    engine = _engine(UseM3Embedder())
    scope = Scope.of("usem3-primary")
    try:
        engine.write(scope, TEXTS[0])
        assert engine.store.embedding_info() == (USEM3_MODEL_NAME, USEM3_DIM)
        assert engine.store.legs.leg_records() == {}  # type: ignore[attr-defined]
    finally:
        engine.close()
