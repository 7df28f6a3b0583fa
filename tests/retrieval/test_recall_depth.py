"""A search for many memories (more than 12) looks deeper: each leg recalls
``candidates_per_leg`` (50) or 4 per memory asked for, whichever is more (``config.retrieval.recall_depth``), and "why not X?"
names the depth the search used."""

from __future__ import annotations

import os
import uuid
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.config.retrieval import DEPTH_PER_RESULT, recall_depth
from memory_engine.retrieval.explain import trace_depth, why_not
from memory_engine.write.raw import WriteRequest
from tests.support.hash_embedder import HashEmbedder


def test_depth_grows_with_k_beyond_the_default() -> None:
    assert recall_depth(50, 10) == 50  # the default search is unchanged
    assert recall_depth(50, 12) == 50
    assert recall_depth(50, 25) == 25 * DEPTH_PER_RESULT
    assert recall_depth(200, 25) == 200  # a deeper setting is kept
    assert recall_depth(50, 400) == 1000  # bounded by the maximum depth
    assert recall_depth(1000, 1000) == 1000
    assert recall_depth(5, 1) == 5
    assert recall_depth(12, 10) == 12  # an ordinary search keeps a configured small depth
    assert recall_depth(12, 13) == 13 * DEPTH_PER_RESULT
    assert trace_depth({"candidates_per_leg": 50, "k": 25}) == 100
    assert trace_depth({"candidates_per_leg": 50}) == 50  # a trace without k
    assert trace_depth({}) == "?"


def test_a_search_for_25_memories_recalls_100_candidates_per_leg(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for key in [k for k in os.environ if k.startswith("MEMORY_")]:
        monkeypatch.delenv(key)
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        store="qdrant",
        qdrant_path=str(tmp_path / "qdrant"),
        relevance_floor=False,
    )  # type: ignore[call-arg]
    engine = MemoryEngine(settings, embedder=HashEmbedder("en-stand-in", 32), leg_embedders={})
    try:
        scope = Scope.of("depth")
        texts = [
            f"note {i}: the tea shop on street {i} opens at {i % 12} o'clock" for i in range(130)
        ]
        results = engine.write_many(scope, [WriteRequest(text=t) for t in texts])
        assert all(r.ok for r in results)
        ten = engine.search(scope, "when does the tea shop open", k=10)
        many = engine.search(scope, "when does the tea shop open", k=25)
        assert len(ten.trace.legs["dense"]) == 50
        assert len(many.trace.legs["dense"]) == 100
        assert len(many.memories) == 25
        # a memory no leg returned is explained with the depth this search used
        absent = why_not(many.trace, uuid.uuid4())
        assert absent.verdict == "not_recalled" and "top 100" in absent.explanation
    finally:
        engine.close()
