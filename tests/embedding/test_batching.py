"""MicroBatchingEmbedder: concurrent calls share inner calls, each caller gets its own vectors
(the same as an unbatched call) and its own errors; the real MiniLM model does the embedding."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence

import numpy as np
import pytest

from memory_engine.embedding.batching import MicroBatchingEmbedder, query_embedding
from memory_engine.embedding.minilm import MiniLMEmbedder
from memory_engine.errors import EmbeddingError

TEXTS = [
    "I drink green tea every morning",
    "我下周去杭州旅行",
    "the quarterly report is due on Friday",
    "my sister lives in Lisbon",
    "用户喜欢爵士乐",
    "which database do we use?",
    "a",
    "Rust is my favourite language for systems work",
]


class GatedEmbedder:
    """The real MiniLM behind a gate: the first inner call waits until ``release`` is set, so
    a test can queue callers behind a running forward pass deterministically."""

    def __init__(self) -> None:
        self.real = MiniLMEmbedder()
        self.model_name = self.real.model_name
        self.dim = self.real.dim
        self.max_input_chars = self.real.max_input_chars
        self.entered = threading.Event()
        self.release = threading.Event()
        self.batches: list[list[str]] = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.batches.append(list(texts))
        if len(self.batches) == 1:
            self.entered.set()
            assert self.release.wait(30)
        return self.real.embed(texts)


def _run_concurrently(
    batcher: MicroBatchingEmbedder,
    gate: GatedEmbedder,
    inputs: list[object],
    queued: int | None = None,
) -> dict[int, object]:
    """Call ``batcher.embed(inputs[i])`` from one thread each: the first enters the gate, the
    others start while it waits; the gate opens once ``queued`` callers (default: all the
    others) are queued. Returns each caller's vectors or EmbeddingError."""
    results: dict[int, object] = {}

    def call(i: int) -> None:
        try:
            results[i] = batcher.embed(inputs[i])  # type: ignore[arg-type]
        except EmbeddingError as exc:
            results[i] = exc

    first = threading.Thread(target=call, args=(0,))
    first.start()
    assert gate.entered.wait(30)
    others = [threading.Thread(target=call, args=(i,)) for i in range(1, len(inputs))]
    for t in others:
        t.start()
    deadline = time.monotonic() + 30
    want = len(others) if queued is None else queued
    while len(batcher._queue) < want and time.monotonic() < deadline:
        time.sleep(0.005)
    gate.release.set()
    for t in [first, *others]:
        t.join(60)
    return results


def test_queued_calls_are_merged_and_match_unbatched_vectors() -> None:
    gate = GatedEmbedder()
    batcher = MicroBatchingEmbedder(gate)
    inputs: list[object] = [[t] for t in TEXTS]
    results = _run_concurrently(batcher, gate, inputs)
    # the first call ran alone; the seven queued behind it shared ONE inner call
    assert [len(b) for b in gate.batches] == [1, len(TEXTS) - 1]
    assert batcher.calls == 2 and batcher.merged == len(TEXTS)
    alone = np.asarray(MiniLMEmbedder().embed(TEXTS))
    for i in range(len(TEXTS)):
        got = np.asarray(results[i])
        assert got.shape == (1, 384)
        assert float(got[0] @ alone[i]) >= 0.9999, TEXTS[i]


def test_a_bad_caller_fails_alone() -> None:
    gate = GatedEmbedder()
    batcher = MicroBatchingEmbedder(gate)
    inputs: list[object] = [["first"], ["fine one"], ["fine two", 42], ["fine three"]]
    results = _run_concurrently(batcher, gate, inputs, queued=2)
    assert isinstance(results[2], EmbeddingError)  # not a string: refused before queueing
    for i in (0, 1, 3):
        assert not isinstance(results[i], Exception)
        assert len(results[i]) == 1  # type: ignore[arg-type]


def test_large_calls_are_not_merged_past_max_texts() -> None:
    gate = GatedEmbedder()
    batcher = MicroBatchingEmbedder(gate, max_texts=4)
    inputs: list[object] = [["x"], TEXTS[:3], TEXTS[3:6], TEXTS[6:]]
    results = _run_concurrently(batcher, gate, inputs)
    assert all(len(b) <= 4 for b in gate.batches)
    assert sum(len(b) for b in gate.batches) == 1 + len(TEXTS)
    assert [len(results[i]) for i in range(4)] == [1, 3, 3, 2]  # type: ignore[arg-type]


def test_lone_caller_and_empty_input() -> None:
    batcher = MicroBatchingEmbedder(MiniLMEmbedder())
    assert batcher.embed([]) == []
    vectors = batcher.embed(TEXTS[:2])
    assert len(vectors) == 2 and batcher.calls == 1
    with pytest.raises(ValueError):
        MicroBatchingEmbedder(MiniLMEmbedder(), max_texts=0)


def test_many_threads_at_once_each_get_their_own_vectors() -> None:
    inner = MiniLMEmbedder()
    batcher = MicroBatchingEmbedder(inner, max_texts=5)
    expected = np.asarray(inner.embed(TEXTS))
    errors: list[BaseException] = []
    start = threading.Barrier(12)

    def worker(k: int) -> None:
        start.wait()
        for round_ in range(6):
            i = (k + round_) % len(TEXTS)
            try:
                (got,) = batcher.embed([TEXTS[i]])
                assert float(np.asarray(got) @ expected[i]) >= 0.9999
            except BaseException as exc:  # noqa: BLE001 - reported below
                errors.append(exc)

    threads = [threading.Thread(target=worker, args=(k,)) for k in range(12)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert errors == []
    assert batcher.merged == 12 * 6 and batcher.calls < 12 * 6  # some calls were merged


def test_queued_queries_are_embedded_before_queued_writes() -> None:
    gate = GatedEmbedder()
    batcher = MicroBatchingEmbedder(gate)
    results: dict[str, object] = {}

    def call(name: str, texts: list[str], query: bool) -> None:
        if query:
            with query_embedding():
                results[name] = batcher.embed(texts)
        else:
            results[name] = batcher.embed(texts)

    first = threading.Thread(target=call, args=("running", ["a write in progress"], False))
    first.start()
    assert gate.entered.wait(30)
    # queued while the first pass runs: two writes, then a query
    order = [("w1", TEXTS[:3], False), ("w2", TEXTS[3:5], False), ("q", [TEXTS[5]], True)]
    threads = []
    for name, texts, query in order:
        t = threading.Thread(target=call, args=(name, texts, query))
        t.start()
        threads.append(t)
        deadline = time.monotonic() + 30
        while len(batcher._queue) < len(threads) and time.monotonic() < deadline:
            time.sleep(0.005)
    gate.release.set()
    for t in [first, *threads]:
        t.join(60)
    # the query jumped the queued writes: its own pass, then the writes merged in one
    assert gate.batches == [["a write in progress"], [TEXTS[5]], [*TEXTS[:3], *TEXTS[3:5]]]
    assert batcher.query_calls == 1
    alone = np.asarray(MiniLMEmbedder().embed(TEXTS[:6]))
    assert float(np.asarray(results["q"])[0] @ alone[5]) >= 0.9999
    got = np.asarray(results["w1"])
    assert got.shape == (3, 384) and float(got[2] @ alone[2]) >= 0.9999


def test_query_marking_outside_a_batcher_changes_nothing() -> None:
    inner = MiniLMEmbedder()
    with query_embedding():
        inside = np.asarray(inner.embed(TEXTS[:2]))
    assert np.allclose(inside, np.asarray(inner.embed(TEXTS[:2])))
