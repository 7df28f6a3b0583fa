"""Score waterfall, block accounting and stale facts of a trace (retrieval.waterfall and
retrieval.accounting): first on a real engine (Qdrant local mode, the offline MiniLM
embedder, a fresh data folder), then on hand-built traces for each stage and rule."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from datetime import UTC, datetime

import pytest

from memory_engine import MemoryEngine, MemoryType, Scope, Settings
from memory_engine.models import MemorySource, MemoryStatus, Trace, TraceCandidate
from memory_engine.retrieval.accounting import block_accounting, explain_search, stale_facts
from memory_engine.retrieval.waterfall import waterfall


@pytest.fixture(scope="module")
def engine(tmp_path_factory: pytest.TempPathFactory) -> Iterator[MemoryEngine]:
    data = tmp_path_factory.mktemp("waterfall")
    settings = Settings(_env_file=None, store="qdrant", qdrant_path=":memory:", data_dir=str(data))  # type: ignore[call-arg]
    eng = MemoryEngine(settings)
    yield eng
    eng.close()


def test_engine_trace_waterfall_follows_every_stage(engine: MemoryEngine) -> None:
    scope = Scope.of("wf-stages")
    for i in range(6):
        engine.write(scope, f"Turn {i}: we talked about the weather and the garden.")
    engine.write(scope, "Mina's cat is called Biscuit.", memory_type=MemoryType.SEMANTIC)
    result = engine.search(scope, "what is the name of Mina's cat", k=2)
    wf = waterfall(result.trace)
    assert wf.fusion == result.trace.config["fusion"] and wf.legs == list(result.trace.legs)
    top = wf.candidates[0]
    assert top.content == "Mina's cat is called Biscuit." and top.final_rank == 1
    kinds = [s.stage for s in top.steps]
    assert kinds == ["leg"] * len(wf.legs) + [
        "fuse", "session", "type_weight", "retention", "threshold", "final"
    ]  # fmt: skip
    returned = result.memories[0]
    by_stage = {s.stage: s for s in top.steps if s.stage != "leg"}
    assert by_stage["fuse"].name == wf.fusion and by_stage["fuse"].value == returned.scores["fused"]
    assert by_stage["final"].value == returned.scores["final"] == top.final_score
    assert by_stage["retention"].rank == returned.ranks["weighted"]
    dense = next(s for s in top.steps if s.name == "dense")
    assert dense.value == returned.scores["cosine"] and dense.rank == returned.ranks["dense"]
    assert dense.normalised is not None and dense.weight is not None
    assert dense.contribution == pytest.approx(dense.normalised * dense.weight)
    # the trace as stored and re-read gives the same waterfall
    stored = engine.get_trace(scope, result.trace.id)
    assert waterfall(stored) == wf


def test_engine_trace_names_the_session_neighbour_that_lifted_a_turn(engine: MemoryEngine) -> None:
    scope = Scope.of("wf-session", session_id="conv-s1")
    texts = [
        "Did you ever find out about the marathon?",
        "Yes, I ran the Berlin marathon in three hours and ten minutes.",
        "That is a great time for a first race.",
        "We also visited the zoo with the kids.",
    ]
    ids = [
        engine.write(scope, text, metadata={"turn": i}).memory_ids[0]
        for i, text in enumerate(texts)
    ]
    result = engine.search(Scope.of("wf-session"), "Berlin marathon three hours", k=4)
    assert "session" in result.trace.stages
    wf = waterfall(result.trace)
    lifted = [
        c for c in wf.candidates if (s := _step(c, "session")).contribution and s.contribution > 0
    ]
    assert lifted, "a neighbour of the matching turn is lifted"
    for c in lifted:
        session = _step(c, "session")
        assert session.source in ids and session.source != c.memory_id
        assert session.value == pytest.approx(_step(c, "fuse").value + session.contribution)


def _step(c, stage):  # type: ignore[no-untyped-def]
    return next(s for s in c.steps if s.stage == stage)


# ----------------------------------------------------------------------------- hand-built


def _tc(
    content: str,
    ranks: dict[str, int],
    final: float,
    dropped: str | None = None,
    **extra: object,
) -> TraceCandidate:
    return TraceCandidate(
        memory_id=extra.pop("memory_id", uuid.uuid4()),  # type: ignore[arg-type]
        content=content,
        memory_type=extra.pop("memory_type", MemoryType.EPISODIC),  # type: ignore[arg-type]
        source=MemorySource.MANUAL,
        scores={"cosine": 0.5, "bm25": 1.0, "rrf": 0.02, "fused": final, "final": final},
        ranks=ranks,
        dropped=dropped,
        **extra,  # type: ignore[arg-type]
    )


def _trace(
    cands: list[TraceCandidate], legs: list[str], fusion: str = "zscore", **config: object
) -> Trace:
    return Trace(
        tenant_id="t",
        scope=Scope.of("t"),
        query="q",
        config={
            "k": 2,
            "min_score": 0.0,
            "token_budget": 300,
            "rrf_k": 60,
            "fusion": fusion,
            **config,
        },
        legs={name: [c for c in cands if name in c.ranks] for name in legs},
        candidates=cands,
        stages=[*legs, f"fuse:{fusion}", "weight", "threshold", "dedupe", "top_k", "budget"],
        leg_health={name: {"count": 1, "empty": False, "weight": 0.5} for name in legs},
        block="## Recalled memories\n<memory_data>\n1. a\n</memory_data>",
    )


def test_every_leg_of_the_trace_gets_a_step_by_name() -> None:
    a = _tc("a", {"dense": 1, "dense_zh": 2, "keyword": 1, "fused": 1, "weighted": 1, "final": 1}, 0.9,
            normalised={"dense": 1.2, "dense_zh": 0.4, "keyword": 2.0})  # fmt: skip
    wf = waterfall(_trace([a], ["dense", "dense_zh", "keyword"]))
    legs = [s for s in wf.candidates[0].steps if s.stage == "leg"]
    assert [s.name for s in legs] == ["dense", "dense_zh", "keyword"]
    # each dense leg reads its own score key (normfusion.leg_score_key: dense_zh -> cosine_zh)
    assert [s.score for s in legs] == ["cosine", "cosine_zh", "bm25"]
    assert [s.contribution for s in legs] == [0.6, 0.2, 1.0]  # weight 0.5 * normalised


def test_rrf_contributions_are_reciprocal_ranks_and_nothing_is_normalised() -> None:
    a = _tc("a", {"dense": 1, "keyword": 3, "fused": 1, "weighted": 1, "final": 1}, 0.9)
    b = _tc("b", {"dense": 2, "fused": 2, "weighted": 2, "final": 2}, 0.5)
    wf = waterfall(_trace([a, b], ["dense", "keyword"], fusion="rrf"))
    first = wf.candidates[0].steps
    assert wf.fusion == "rrf" and next(s for s in first if s.stage == "fuse").name == "rrf"
    assert [s.contribution for s in first if s.stage == "leg"] == [1 / 61, 1 / 63]
    assert all(s.normalised is None for s in first if s.stage == "leg")
    keyword_b = next(s for s in wf.candidates[1].steps if s.name == "keyword")
    assert keyword_b.value is None and keyword_b.rank is None  # the leg did not return b


def test_moved_by_names_the_stage_that_gained_the_most_places() -> None:
    up = _tc("lifted", {"dense": 9, "fused": 9, "session": 2, "weighted": 2, "final": 2}, 0.4)
    wf = waterfall(
        _trace([up], ["dense"]).model_copy(
            update={"stages": ["dense", "fuse:zscore", "session", "weight"]}
        )
    )
    c = wf.candidates[0]
    assert (c.fused_rank, c.final_rank, c.moved, c.moved_by) == (9, 2, 7, "session")


def test_block_accounting_names_the_rule_and_what_would_include_each_miss() -> None:
    kept = _tc("kept", {"dense": 1, "fused": 1, "weighted": 1, "final": 1}, 0.9, tokens=30)
    k_cut = _tc("k cut", {"dense": 2, "fused": 2, "weighted": 2}, 0.8, "below_top_k")
    budget = _tc(
        "too long", {"dense": 3, "fused": 3, "weighted": 3}, 0.7, "over_token_budget", tokens=500
    )
    dup = _tc("dup", {"dense": 4, "fused": 4, "weighted": 4}, 0.6, "duplicate_content")
    low = _tc("low", {"dense": 5, "fused": 5, "weighted": 5}, 0.1, "below_min_score")
    floor = _tc("floor", {"dense": 6, "fused": 6, "weighted": 6}, 0.05, "below_relevance_floor")
    trace = _trace([kept, k_cut, budget, dup, low, floor], ["dense"])
    acc = block_accounting(trace)
    assert [(line.rank, line.content, line.tokens) for line in acc.lines] == [(1, "kept", 30)]
    rules = [(m.content, m.rule, m.needs) for m in acc.near_misses]
    assert rules == [
        ("k cut", "k", {"k": 2}),
        ("too long", "token_budget", {"token_budget": acc.used_tokens + 500}),
        ("dup", "dedupe", {}),
        ("low", "threshold", {"min_score": 0.02}),
        ("floor", "threshold", {}),
    ]
    assert all(m.tokens > 0 for m in acc.near_misses)
    stages = {s.stage: s for s in acc.stages}
    assert stages["legs"].candidates == 6 and stages["threshold+dedupe"].candidates == 3
    assert stages["block"].candidates == 1 and stages["block"].tokens == acc.used_tokens
    # a drop reason added by another floor is shown as the threshold's, as it is
    threshold = next(s for s in waterfall(trace).candidates[-1].steps if s.stage == "threshold")
    assert (threshold.passed, threshold.reason) == (False, "below_relevance_floor")
    assert block_accounting(trace, near_misses=2).near_misses[-1].content == "too long"


def test_stale_facts_flag_an_older_fact_above_its_replacement() -> None:
    old_day, new_day = datetime(2023, 1, 1, tzinfo=UTC), datetime(2024, 1, 1, tzinfo=UTC)
    sem = MemoryType.SEMANTIC
    newer = _tc("Priya lives in Berlin", {"dense": 3, "fused": 3, "weighted": 3}, 0.3, "below_top_k",
                memory_type=sem, entities=("Priya",), observed_at=new_day)  # fmt: skip
    older = _tc("Priya lives in Paris", {"dense": 1, "fused": 1, "weighted": 1, "final": 1}, 0.9,
                memory_type=sem, entities=("priya",), observed_at=old_day)  # fmt: skip
    chat = _tc("Priya said hi", {"dense": 2, "fused": 2, "weighted": 2, "final": 2}, 0.5,
               entities=("Priya",), observed_at=datetime(2022, 1, 1, tzinfo=UTC))  # fmt: skip
    (stale,) = stale_facts(_trace([older, chat, newer], ["dense"]))
    assert (stale.kind, stale.entity) == ("same_entity", "priya")
    assert (stale.older_id, stale.current_id) == (older.memory_id, newer.memory_id)
    assert (stale.older_score, stale.current_score) == (0.9, 0.3)
    assert (stale.older_rank, stale.current_rank, stale.current_dropped) == (1, None, "below_top_k")

    gone = uuid.uuid4()
    superseded = _tc("old plan", {"dense": 1, "fused": 1, "weighted": 1, "final": 1}, 0.9,
                     status=MemoryStatus.SUPERSEDED, superseded_by=gone)  # fmt: skip
    (s,) = stale_facts(_trace([superseded], ["dense"]))
    assert (s.kind, s.current_id, s.current_score, s.current_content) == (
        "superseded",
        gone,
        None,
        "",
    )
    # the newer fact ranked first: nothing to warn about
    assert stale_facts(_trace([newer.model_copy(update={"ranks": {"final": 1}, "dropped": None}),
                               older.model_copy(update={"ranks": {"final": 2}})], ["dense"])) == []  # fmt: skip


def test_explain_search_bundles_the_three_views() -> None:
    a = _tc("a", {"dense": 1, "fused": 1, "weighted": 1, "final": 1}, 0.9)
    trace = _trace([a], ["dense"])
    both = explain_search(trace)
    assert both.waterfall == waterfall(trace) and both.block == block_accounting(trace)
    assert both.stale_facts == []
    assert both.model_dump(mode="json")["waterfall"]["candidates"][0]["steps"][0]["name"] == "dense"
