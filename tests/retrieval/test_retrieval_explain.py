"""Unit tests of retrieval.explain: why-not verdicts, trace comparison, relevance metrics."""

from __future__ import annotations

import math
import uuid

import pytest

from memory_engine.models import MemorySource, MemoryType, Scope, Trace, TraceCandidate
from memory_engine.retrieval.explain import (
    compare_traces,
    mrr,
    ndcg_at_k,
    precision_at_k,
    recall_at_k,
    returned_ids,
    why_not,
)


def _tc(
    mid: uuid.UUID, ranks: dict[str, int], final: float, dropped: str | None = None
) -> TraceCandidate:
    return TraceCandidate(
        memory_id=mid,
        content=str(mid)[:8],
        memory_type=MemoryType.EPISODIC,
        source=MemorySource.MANUAL,
        scores={"cosine": 0.5, "rrf": 0.01, "fused": final, "final": final},
        ranks=ranks,
        dropped=dropped,
    )


def _trace(cands: list[TraceCandidate], legs: dict[str, list[TraceCandidate]]) -> Trace:
    return Trace(
        tenant_id="t",
        scope=Scope.of("t"),
        query="q",
        config={"k": 2, "candidates_per_leg": 50, "min_score": 0.0, "token_budget": 0},
        legs=legs,
        candidates=cands,
    )


IDS = [uuid.uuid4() for _ in range(5)]


def _sample() -> Trace:
    a = _tc(IDS[0], {"dense": 1, "fused": 1, "weighted": 1, "final": 1}, 0.9)
    b = _tc(IDS[1], {"keyword": 1, "fused": 2, "weighted": 2, "final": 2}, 0.7)
    c = _tc(IDS[2], {"dense": 2, "fused": 3, "weighted": 3}, 0.4, "below_top_k")
    d = _tc(IDS[3], {"dense": 3, "fused": 4, "weighted": 4}, 0.1, "below_min_cosine")
    legs = {"dense": [a, c, d], "keyword": [b]}
    return _trace([a, b, c, d], legs)


def test_why_not_names_the_stage_and_the_last_kept() -> None:
    trace = _sample()
    assert returned_ids(trace) == IDS[:2]
    ok = why_not(trace, IDS[0])
    assert ok.verdict == "returned" and ok.stage == "final" and ok.legs == {"dense": 1}
    cut = why_not(trace, IDS[2])
    assert cut.verdict == "below_top_k" and cut.stage == "top_k"
    assert cut.last_kept is not None and cut.last_kept.memory_id == IDS[1]
    assert cut.scores["final"] < cut.last_kept.scores["final"]
    assert "0.4000" in cut.explanation and "0.7000" in cut.explanation
    floor = why_not(trace, IDS[3])
    assert floor.verdict == "below_min_cosine" and floor.stage == "threshold"
    missing = why_not(trace, IDS[4])
    assert missing.verdict == "not_recalled" and missing.stage == "legs"
    assert missing.legs == {} and missing.scores == {} and "top 50" in missing.explanation


def test_compare_traces_overlap_entered_left_moved() -> None:
    a = _sample()
    x = _tc(IDS[1], {"fused": 1, "final": 1}, 0.9)
    y = _tc(IDS[4], {"fused": 2, "final": 2}, 0.8)
    b = _trace([x, y], {})
    cmp = compare_traces(a, b, k=2)
    assert cmp.overlap == 0.5
    assert cmp.entered == [IDS[4]] and cmp.left == [IDS[0]]
    assert cmp.moved == {IDS[1]: (2, 1)} and cmp.same == []
    same = compare_traces(a, a, k=2)
    assert same.overlap == 1.0 and same.same == IDS[:2] and not same.moved
    with pytest.raises(ValueError):
        compare_traces(a, b, k=0)


def test_relevance_metrics() -> None:
    ranked = ["a", "b", "c", "d"]
    assert precision_at_k(ranked, {"b", "d"}, 2) == 0.5
    assert recall_at_k(ranked, {"b", "d", "z"}, 4) == pytest.approx(2 / 3)
    assert recall_at_k(ranked, set(), 4) == 0.0
    assert mrr(ranked, {"c"}) == pytest.approx(1 / 3)
    assert mrr(ranked, {"c"}, k=2) == 0.0
    assert ndcg_at_k(ranked, {"a"}, 4) == 1.0
    expected = (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    assert ndcg_at_k(["x", "a", "b"], {"a", "b"}, 2) == pytest.approx(
        (1 / math.log2(3)) / (1 + 1 / math.log2(3))
    )
    assert expected > 0 and ndcg_at_k(ranked, {"zz"}, 3) == 0.0
