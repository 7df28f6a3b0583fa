"""The benchmarks' ``CachingStore`` carries the flows of bench/locomo.py and bench/madial.py
(ingest, ``write_many``, searches with ``save_trace=False``, close) on an engine, serves a
repeated search leg from its cache, and is a ``BulkLoader`` exactly when its store is one."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any

import numpy as np
import pytest

from bench.harness import CachingEmbedder, CachingStore
from memory_engine import MemoryEngine, Scope, Settings
from memory_engine.models import MemorySource
from memory_engine.stores.base import BulkLoader, SearchIndex
from memory_engine.stores.qdrant.store import QdrantStore
from memory_engine.write.ingest import Turn
from memory_engine.write.service import WriteRequest


class _HashEmbedder:
    """Deterministic unit vectors from a hash of the text (no model needed)."""

    model_name, dim, max_input_chars = "hash-16", 16, 2000

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            raw = np.frombuffer(hashlib.sha256(text.encode()).digest()[:16], dtype=np.uint8)
            v = raw.astype(np.float64) + 1.0
            out.append([float(x) for x in v / np.linalg.norm(v)])
        return out


class _Counting:
    """Counts the calls of the wrapped store's search legs."""

    def __init__(self, inner: QdrantStore) -> None:
        self.inner = inner
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        if name in ("dense_search", "keyword_search"):
            self.calls += 1
        return getattr(self.inner, name)


def test_bench_flows_run_on_the_caching_store_and_legs_are_cached() -> None:
    settings = Settings(
        _env_file=None,  # type: ignore[call-arg]
        store="qdrant",
        qdrant_path=":memory:",
        trace_retention=0,
        token_budget=0,
    )
    counting = _Counting(QdrantStore(settings))
    store = CachingStore(counting)  # type: ignore[arg-type]
    assert isinstance(store, SearchIndex) and not isinstance(store, BulkLoader)
    engine = MemoryEngine(
        settings,
        store=store,  # type: ignore[arg-type]
        embedder=CachingEmbedder(_HashEmbedder()),
    )
    conv, user = Scope.of("locomo-c1"), Scope.of("madial-u1")
    assert engine.store.count(scope=conv) == 0
    turns = [
        Turn(speaker="Ana", text=f"turn {i}: the cat sleeps", turn_id=f"D1:{i}") for i in range(6)
    ]
    assert all(r.ok for r in engine.ingest(conv, turns))
    requests = [
        WriteRequest(text=f"event {i}: a walk", source=MemorySource.IMPORT, source_ref=str(i))
        for i in range(4)
    ]
    assert all(r.ok for r in engine.write_many(user, requests, reason="bench"))
    assert engine.store.count(scope=conv) == 6
    options = engine.search_options(
        k=10, legs=("dense", "keyword"), candidates_per_leg=100, token_budget=0
    )
    first = engine.search(conv, "the cat", options=options, save_trace=False)
    calls = counting.calls
    again = engine.search(conv, "the cat", options=options, save_trace=False)
    assert counting.calls == calls  # both legs served from the cache
    assert [c.memory.id for c in again.memories] == [c.memory.id for c in first.memories]
    assert {c.memory.source_ref for c in first.memories} <= {f"D1:{i}" for i in range(6)}
    recent = options.model_copy(update={"recent_turns": ("a walk",)})
    assert engine.search(user, "a walk", options=recent, save_trace=False).memories
    engine.close()


def test_bulk_insert_is_there_exactly_when_the_store_has_it() -> None:
    class _Bulk:
        concurrent_legs = True

        def bulk_insert(self, items: Any, **kwargs: Any) -> list[Any]:
            return ["bulk"]

    wrapped = CachingStore(_Bulk())  # type: ignore[arg-type]
    assert isinstance(wrapped, BulkLoader)
    assert wrapped.bulk_insert([], scope=Scope.of("t"), actor="a") == ["bulk"]
    with pytest.raises(AttributeError):
        CachingStore(_Bulk()).purge  # type: ignore[attr-defined]  # noqa: B018
