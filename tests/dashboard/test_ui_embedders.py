"""The Overview's "Embedders of this store" table (``frames.stores.embedders_frame``): one row
per dense leg with its model, size and state, in English and Chinese; on a real Qdrant store
(local mode in memory) with the legs the engine records."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from qdrant_client import QdrantClient

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.dashboard.frames.stores import embedders_frame
from memory_engine.stores.qdrant.store import QdrantStore


class _Fixed:
    """A tiny deterministic embedder (vectors from the text's length and characters)."""

    max_input_chars = 1000

    def __init__(self, name: str, dim: int) -> None:
        self.model_name, self.dim = name, dim

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            v = np.ones(self.dim) + np.array([ord(c) % 7 for c in (text * self.dim)[: self.dim]])
            out.append((v / np.linalg.norm(v)).tolist())
        return out


def test_embedders_table_names_every_leg_and_its_state() -> None:
    settings = Settings(store="qdrant", qdrant_path=":memory:", qdrant_url=None)
    store = QdrantStore(settings, client=QdrantClient(location=":memory:"))
    engine = MemoryEngine(
        settings,
        store=store,
        embedder=_Fixed("primary-model", 8),
        leg_embedders={"dense_ml": _Fixed("multilingual-model", 6)},
    )
    try:
        assert embedders_frame(engine, "en").empty  # nothing recorded before the first write
        engine.write(Scope.of("emb-t"), "我对花生过敏")
        frame = embedders_frame(engine, "en")
        assert list(frame["Leg"]) == ["dense (primary)", "dense_ml (multilingual)"]
        assert list(frame["Model"]) == ["primary-model", "multilingual-model"]
        assert list(frame["Dimensions"]) == [8, 6]
        assert list(frame["State"]) == ["searched", "searched"]
        zh = embedders_frame(engine, "zh")
        assert list(zh.columns) == ["检索分支", "模型", "维度", "状态"]
        assert list(zh["状态"]) == ["检索中", "检索中"]
        hit = engine.search(Scope.of("emb-t"), "花生")
        assert {"dense", "dense_ml"} <= set(hit.trace.legs)
    finally:
        engine.close()
