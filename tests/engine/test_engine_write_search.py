"""Write guard, chunking, CJK recall, traces, edits (docs/architecture.md#failure-catalogue F5, F8)."""

from __future__ import annotations

import pytest

from memory_engine import (
    ContentTooLargeError,
    EmptyContentError,
    InvalidInputError,
    MemoryEngine,
    Scope,
    VersionConflictError,
    WriteRequest,
)
from memory_engine.retrieval.block import CLOSE, OPEN


def test_chinese_keyword_and_vector(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    engine.write(s, "我对花生过敏")
    engine.write(s, "The meeting moved to Thursday")
    hit = engine.search(s, "花生", legs=("keyword",))
    assert [c.memory.content for c in hit.memories] == ["我对花生过敏"]
    dense = engine.search(s, "我对花生过敏吗", legs=("dense",), k=1)
    assert dense.memories[0].memory.content == "我对花生过敏"


@pytest.mark.parametrize(
    ("doc", "queries"),
    [
        ("我们最近配置的 rerank 精排模型是 bge-reranker", ["精排", "rerank", "bge-reranker"]),
        ("プロジェクト記憶の設定", ["記憶"]),
        ("프로젝트 메모리", ["메모리"]),
    ],
)
def test_cjk_keyword_queries_hit(
    engine: MemoryEngine, tenant: str, doc: str, queries: list[str]
) -> None:
    s = Scope.of(tenant)
    engine.write(s, doc)
    engine.write(s, "unrelated english sentence about weather")
    for q in queries:
        res = engine.search(s, q, legs=("keyword",))
        assert res.trace.query_terms, f"query {q!r} produced no terms"
        assert [c.memory.content for c in res.memories] == [doc], q


def test_long_chat_keeps_last_fact(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    filler = "We talked about the weather and some random plans for the weekend. "
    text = filler * (60_000 // len(filler)) + "My flight is on 12 May."
    assert len(text) >= 59_000
    result = engine.write(s, text)
    assert len(result.outcomes) > 100
    mems = engine.list(s, limit=500).items
    assert all(len(m.content) <= 500 for m in mems)
    res = engine.search(s, "When is my flight?", k=3)
    assert any("My flight is on 12 May" in c.memory.content for c in res.memories)


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("", EmptyContentError),
        ("  \n ", EmptyContentError),
        ("\x00", EmptyContentError),
        ("x" * 5_000_000, ContentTooLargeError),
        (42, InvalidInputError),
    ],
)
def test_bad_inputs_are_typed_and_nothing_written(
    engine: MemoryEngine, tenant: str, text: object, error: type
) -> None:
    s = Scope.of(tenant)
    with pytest.raises(error):
        engine.write(s, text)  # type: ignore[arg-type]
    assert engine.list(s).total == 0


@pytest.mark.parametrize("text", ["a", "😀🎉", "ok\x00ay"])
def test_odd_but_valid_inputs_are_stored(engine: MemoryEngine, tenant: str, text: str) -> None:
    s = Scope.of(tenant)
    engine.write(s, text)
    assert engine.list(s).items[0].content == text.replace("\x00", "")


def test_batch_with_one_huge_item(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    reqs = [WriteRequest(text=f"fact number {i} about item {i * 7}") for i in range(10)]
    reqs[4] = WriteRequest(text="y" * (engine.settings.write.max_input_chars + 1))
    results = engine.write_many(s, reqs)
    assert [r.ok for r in results] == [True] * 4 + [False] + [True] * 5
    assert results[4].error and results[4].error["error"] == "content_too_large"
    assert engine.list(s).total == 9


def test_trace_block_and_replay(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    for t in ("The user lives in Lisbon", "The user works as a nurse", "Lisbon has many hills"):
        engine.write(s, t)
    res = engine.search(s, "Where does the user live? Lisbon", k=2)
    assert len(res.memories) == 2
    assert res.block.count(OPEN) == 1 and res.block.count(CLOSE) == 1
    trace = engine.get_trace(s, res.trace.id)
    assert trace.query == "Where does the user live? Lisbon"
    assert {"dense", "keyword"} <= set(trace.legs)
    kinds = {k for c in trace.candidates for k in c.scores}
    assert {"cosine", "bm25", "rrf"} <= kinds
    dropped = [c for c in trace.candidates if c.dropped]
    assert dropped and all(c.dropped == "below_top_k" for c in dropped)
    assert {"embed_query", "dense", "keyword", "fuse", "total"} <= set(trace.timings_ms)
    listed = engine.list_traces(s).items
    assert str(res.trace.id) in {str(t["id"]) for t in listed}
    again = engine.replay(s, res.trace.id)
    assert [c.memory.id for c in again.memories] == [c.memory.id for c in res.memories]


def test_token_budget_drops_with_reason(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    for i in range(5):
        engine.write(s, f"Budget test memory {i}: " + "details " * 40)
    res = engine.search(s, "budget test memory", k=5, token_budget=200)
    assert 1 <= len(res.memories) < 5
    assert any(c.dropped == "over_token_budget" for c in res.trace.candidates)


def test_update_reembeds_and_checks_version(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    mid = engine.write(s, "The user's favourite colour is blue").memory_ids[0]
    with pytest.raises(InvalidInputError):
        engine.update(s, mid, expected_version=1, content="x", reason=" ")
    preview = engine.preview_update(s, mid, content="The user's favourite colour is green")
    assert (
        "content" in preview["fields"]
        and "+The user's favourite colour is green" in preview["content_diff"]
    )
    updated = engine.update(
        s,
        mid,
        expected_version=1,
        content="The user's favourite colour is green",
        importance=0.9,
        reason="user corrected it",
    )
    assert updated.version == 2 and updated.importance == 0.9
    hit = engine.search(s, "green", legs=("keyword",))
    assert [c.memory.id for c in hit.memories] == [mid]
    assert engine.search(s, "blue", legs=("keyword",)).memories == []
    with pytest.raises(VersionConflictError):
        engine.update(s, mid, expected_version=1, importance=0.1, reason="stale edit")
    history = engine.history(s, mid).items
    assert [e.action.value for e in history] == ["create", "update"]
    assert history[1].reason == "user corrected it"


def test_batch_bad_metadata_is_typed_and_others_stored(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    reqs = [WriteRequest(text=f"batch fact {i}") for i in range(40)]
    reqs[35] = WriteRequest(text="bad metadata item", metadata={"x": {1, 2}})
    results = engine.write_many(s, reqs)
    assert results[35].error and results[35].error["error"] == "invalid_input"
    assert sum(r.ok for r in results) == 39
    assert engine.list(s).total == 39


def test_failed_embedding_group_leaves_nothing_half_written(
    pg_settings_factory,
    openai_stub,
    tenant: str,  # type: ignore[no-untyped-def]
) -> None:
    settings = pg_settings_factory(
        embedder="openai_compat",
        embedding_base_url=openai_stub.base_url,
        embedding_model="stub-8",
        embedding_dim=8,
        embedding_batch_size=8,
    )
    s = Scope.of(tenant)
    with MemoryEngine(settings) as eng:
        eng.write(s, "warm up")  # records the model
        openai_stub.fail_always(status=500)
        with pytest.raises(Exception) as info:
            eng.write(s, "this one cannot be embedded")
        assert type(info.value).__name__ == "EmbeddingError"
        openai_stub.reset()
        # The 20 texts are first embedded in one call (one window), then, as that call fails,
        # group by group (8 texts each): 4 failures fail the window call's retries, 4 more
        # those of group 1; groups 2 and 3 embed and are stored.
        openai_stub.fail_next(8, status=500)
        results = eng.write_many(s, [WriteRequest(text=f"grouped fact {i}") for i in range(20)])
        failed = [r.index for r in results if not r.ok]
        assert failed == list(range(8))
        assert all(r.error and r.error["error"] == "embedding_error" for r in results[:8])
        assert eng.list(s).total == 1 + 12


def test_large_k_is_not_capped_by_leg_depth(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    engine.write_many(s, [WriteRequest(text=f"orange note number {i}") for i in range(70)])
    res = engine.search(s, "orange note", k=65, candidates_per_leg=10, token_budget=0)
    assert len(res.memories) == 65
