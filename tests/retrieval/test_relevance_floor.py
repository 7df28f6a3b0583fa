"""The relevance floor: the block holds memories only when a leg matches the query; when
nothing matches the block is empty, the trace says why and keeps every candidate (dropped
``below_relevance_floor``, explained by "why not X?").

The first test runs the engine with its default settings (the default embedder, Qdrant local
mode in memory); the others check ``thresholds.relevance_drops`` on hand-made candidates.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from memory_engine import MemoryEngine, Scope, Settings
from memory_engine.config.retrieval import SearchOptions
from memory_engine.models import Candidate, Memory
from memory_engine.retrieval import thresholds
from memory_engine.retrieval.explain import why_not
from memory_engine.retrieval.normfusion import leg_score_key
from memory_engine.retrieval.pipeline import WARN_NO_MATCH
from memory_engine.retrieval.script import cjk_share, dense_leg_weights
from memory_engine.retrieval.thresholds import (
    CALIBRATED_MATCH_COSINE,
    DROP_RELEVANCE,
    LATIN_MATCH_COSINE,
    floor_legs,
    keyword_coverage,
    match_cosine_for,
    relevance_drops,
    vouching_legs,
)
from memory_engine.text import content_hash
from memory_engine.write.ingest import Turn

FLOORS = {"dense": (0.5, 0.15)}


def _cand(content: str, scores: dict[str, float], ranks: dict[str, int]) -> Candidate:
    memory = Memory(tenant_id="t", content=content, content_hash=content_hash(content))
    return Candidate(memory=memory, scores=scores, ranks=ranks)


def _drops(cands: list[Candidate], **kw: object) -> tuple[set[int], bool]:
    verdict = relevance_drops(
        cands,
        dense_floors=kw.get("floors", FLOORS),  # type: ignore[arg-type]
        match_coverage=0.67,
        score_key=kw.get("score_key", leg_score_key),  # type: ignore[arg-type]
    )
    assert set(verdict.dropped.values()) <= {DROP_RELEVANCE}
    return set(verdict.dropped), verdict.matched


@pytest.fixture(scope="module")
def engine() -> Iterator[MemoryEngine]:
    settings = Settings(_env_file=None, store="qdrant", qdrant_path=":memory:")  # type: ignore[call-arg]
    eng = MemoryEngine(settings)
    turns = [
        Turn(speaker="user", text="My flight to Lisbon is on 12 May"),
        Turn(speaker="user", text="I am allergic to peanuts"),
        Turn(speaker="assistant", text="Hello! How can I help you today?"),
        Turn(speaker="user", text="我下周去上海出差"),
    ]
    assert all(r.ok for r in eng.ingest(Scope.of("floor"), turns))
    yield eng
    eng.close()


def test_nothing_matching_gives_an_empty_block_and_a_trace_that_says_why(
    engine: MemoryEngine,
) -> None:
    res = engine.search(Scope.of("floor"), "What is the boiling point of mercury?")
    assert res.memories == [] and WARN_NO_MATCH in res.trace.warnings
    assert res.trace.candidates and all(c.dropped == DROP_RELEVANCE for c in res.trace.candidates)
    flight = next(c for c in res.trace.candidates if "Lisbon" in c.content)
    answer = why_not(res.trace, flight.memory_id)
    assert answer.verdict == DROP_RELEVANCE and answer.stage == "threshold"
    assert "relevance floor" in answer.explanation

    # The matching memory is returned, first; the floor off fills the k slots again.
    res = engine.search(Scope.of("floor"), "When is my flight?")
    assert "Lisbon" in res.memories[0].memory.content
    assert res.memories[0].scores["coverage"] == 1.0
    off = engine.search(
        Scope.of("floor"),
        "What is the boiling point of mercury?",
        options=engine.search_options(relevance_floor=False),
    )
    assert len(off.memories) == 4


def test_the_floor_is_on_by_default_and_off_for_old_traces() -> None:
    assert Settings(_env_file=None).retrieval.relevance_floor is True  # type: ignore[call-arg]
    assert SearchOptions.from_trace_config({"k": 5}).relevance_floor is False


def test_no_match_drops_everything() -> None:
    cands = [
        _cand("a", {"cosine": 0.49}, {"dense": 1}),
        _cand("b", {"cosine": 0.3, "bm25": 1.0, "coverage": 0.5}, {"dense": 2, "keyword": 1}),
    ]
    assert _drops(cands) == ({0, 1}, False)


def test_one_match_keeps_the_supported_candidates_only() -> None:
    cands = [
        _cand("strong", {"cosine": 0.2, "bm25": 2.0, "coverage": 1.0}, {"dense": 3, "keyword": 1}),
        _cand("weak dense", {"cosine": 0.3}, {"dense": 1}),
        _cand("noise", {"cosine": 0.1}, {"dense": 2}),
        _cand("keyword only", {"bm25": 0.4, "coverage": 0.34}, {"keyword": 2}),
    ]
    assert _drops(cands) == ({2}, True)


def test_a_dense_match_counts_on_an_expansion_leg_and_unknown_models_vouch() -> None:
    cands = [_cand("x", {"cosine": 0.55}, {"dense@x1": 1})]
    assert _drops(cands) == (set(), True)
    cands = [_cand("y", {"cosine": 0.01}, {"dense": 1})]
    assert _drops(cands, floors={"dense": (None, -1.0)}) == (set(), True)


def test_a_second_dense_leg_uses_its_own_score_and_floor() -> None:
    cands = [_cand("z", {"cosine": 0.2, "cosine_ml": 0.6}, {"dense": 1, "dense_ml": 1})]
    assert _drops(cands) == ({0}, False)
    floors = {**FLOORS, "dense_ml": (0.55, 0.05)}
    keys = {"dense": "cosine", "dense_ml": "cosine_ml"}.__getitem__  # each leg's own score
    assert _drops(cands, floors=floors, score_key=keys) == (set(), True)


def test_a_leg_weighted_down_for_the_query_script_does_not_vouch() -> None:
    opts = SearchOptions()
    # English: the English leg at full weight, the multilingual one at 0.5: both are floor
    # legs (the multilingual one cannot open the block alone: the next test)
    assert floor_legs(dense_leg_weights("where do I live", opts), ["dense", "dense_ml"]) == {
        "dense",
        "dense_ml",
    }
    # a Chinese dialogue with Latin speaker names: MiniLM keeps a small weight but cannot
    # read Chinese, so only the multilingual leg decides whether anything matches
    query = (
        "Bart: 嘿，你知道吗？元旦晚会我要表演魔术！我也会有点紧张呢，你有没有什么建议？\n"
        "Assistant: 当然有，试着在表演前深呼吸，想象自己是那个无所畏惧的魔术师。"
    )
    weights = dense_leg_weights(query, opts)
    assert 0 < weights["dense"] < 0.5 * weights["dense_ml"]
    assert floor_legs(weights, ["dense", "dense_ml"]) == {"dense_ml"}
    # one leg, or a leg missing from the weights (1.0), always vouches; weight 0 never
    assert floor_legs({"keyword": 2.0}, ["dense"]) == {"dense"}
    assert floor_legs({"dense": 0.0}, ["dense"]) == set()


def test_a_leg_below_the_vouch_share_keeps_candidates_but_cannot_open_the_block(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    opts = SearchOptions()
    weights = dense_leg_weights("where do I live", opts)  # dense 1.0, dense_ml 0.5
    kept = floor_legs(weights, ["dense", "dense_ml"])
    assert vouching_legs(weights, kept) == kept  # by default every floor leg vouches
    monkeypatch.setattr(thresholds, "VOUCH_LEG_SHARE", 0.75)
    assert vouching_legs(weights, kept) == {"dense"}
    floors = {**FLOORS, "dense_ml": (0.5, 0.05)}
    keys = {"dense": "cosine", "dense_ml": "cosine_ml"}.__getitem__
    # only the multilingual leg reaches its match cosine: nothing matches, the block is empty
    ml_only = [_cand("m", {"cosine": 0.3, "cosine_ml": 0.7}, {"dense": 1, "dense_ml": 1})]
    verdict = relevance_drops(
        ml_only, dense_floors=floors, match_coverage=0.67, score_key=keys, vouching={"dense"}
    )
    assert not verdict.matched and set(verdict.dropped) == {0}
    # the English leg matches: a memory only the multilingual leg found (above its noise
    # floor) stays in the block
    both = [
        _cand("a", {"cosine": 0.6}, {"dense": 1}),
        _cand("b", {"cosine_ml": 0.2}, {"dense_ml": 2}),
    ]
    verdict = relevance_drops(
        both, dense_floors=floors, match_coverage=0.67, score_key=keys, vouching={"dense"}
    )
    assert verdict.matched and verdict.dropped == {}


def test_match_cosine_is_per_model_or_configured() -> None:
    for model, value in CALIBRATED_MATCH_COSINE.items():
        assert match_cosine_for(model, None) == value
    assert match_cosine_for("all-MiniLM-L6-v2", 0.7) == 0.7
    assert match_cosine_for("some-other-model", None) is None
    # A long query (a joined dialogue) has lower cosines to every memory: 0.05 per doubling.
    assert match_cosine_for("m", 0.5, query_terms=8) == 0.5
    assert match_cosine_for("m", 0.5, query_terms=32) == pytest.approx(0.4)


def test_a_model_may_need_a_higher_cosine_on_a_latin_script_query(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    use_m3 = "universal-sentence-encoder-multilingual-3"
    # the shipped value equals the calibrated one (a stricter one drops cross-language
    # matches); the mechanism is checked with a stricter value set here
    assert LATIN_MATCH_COSINE[use_m3] == CALIBRATED_MATCH_COSINE[use_m3]
    monkeypatch.setitem(LATIN_MATCH_COSINE, use_m3, 0.55)
    chinese, english = cjk_share("我对什么过敏？"), cjk_share("What am I allergic to?")
    assert match_cosine_for(use_m3, None, cjk_share=chinese) == CALIBRATED_MATCH_COSINE[use_m3]
    assert match_cosine_for(use_m3, None, cjk_share=english) == LATIN_MATCH_COSINE[use_m3]
    assert LATIN_MATCH_COSINE[use_m3] > CALIBRATED_MATCH_COSINE[use_m3]
    # a mixed query is Latin-script when under half of its letters are CJK
    assert match_cosine_for(use_m3, None, cjk_share=cjk_share("我的航班 flight 几点起飞")) == 0.5
    assert match_cosine_for(use_m3, None, cjk_share=cjk_share("我的 flight 几点")) == 0.55
    # a model without a Latin-script value, and a configured value, are the same for both
    assert match_cosine_for("all-MiniLM-L6-v2", None, cjk_share=english) == 0.52
    assert match_cosine_for(use_m3, 0.6, cjk_share=english) == 0.6
    assert match_cosine_for(use_m3, 0.6, cjk_share=chinese) == 0.6
    # an English query whose only dense match is USE-m3 at 0.53 matches nothing; Chinese does
    cands = [_cand("a", {"cosine_ml": 0.53}, {"dense_ml": 1})]
    for share, matched in ((english, False), (chinese, True)):
        floors = {"dense_ml": (match_cosine_for(use_m3, None, cjk_share=share), 0.05)}
        verdict = relevance_drops(
            cands, dense_floors=floors, match_coverage=0.67, score_key=leg_score_key
        )
        assert verdict.matched is matched


def test_only_the_best_candidates_can_match() -> None:
    filler = [_cand(f"f{i}", {"cosine": 0.2}, {"dense": i}) for i in range(1, 11)]
    late = _cand("late", {"cosine": 0.9}, {"dense": 11})
    assert _drops([*filler, late]) == (set(range(11)), False)
    assert _drops([late, *filler]) == (set(), True)


def test_keyword_coverage_is_a_share_of_distinct_query_terms() -> None:
    assert keyword_coverage(["过敏", "花生"], ["花生", "过敏", "我"]) == 1.0
    assert keyword_coverage(["flight", "may", "flight"], ["flight"]) == 0.5
    assert keyword_coverage([], ["x"]) == 0.0


def test_a_query_naming_someone_matches_the_memories_about_them() -> None:
    """ "What should I cook for Ann tonight?" shares only "Ann" with "Ann is allergic to
    peanuts", yet that is the memory an agent needs: a memory holding every proper name of
    the query matches it (no other query term needs to be held)."""
    from memory_engine.retrieval.thresholds import query_names

    assert query_names("What should I cook for Ann tonight?") == {"ann"}
    assert query_names("What did I say?") == frozenset()  # a sentence's first word is no name
    assert query_names("I met Dr. Ruiz") == query_names("ruiz is here Ruiz") == {"ruiz"}
