"""Unit tests of the retrieval stages: normalised fusion, session smoothing, type weighting,
composite query, dedupe/MMR, rerank seam, calibrated floors, score-name registry."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from memory_engine.models import Candidate, Memory, MemoryType
from memory_engine.retrieval.diversity import dedupe, jaccard, mmr_order
from memory_engine.retrieval.expansion import composite_query
from memory_engine.retrieval.normfusion import fuse
from memory_engine.retrieval.rerank import apply_rerank
from memory_engine.retrieval.scores import SCORE_KINDS, score_label
from memory_engine.retrieval.session import smooth_sessions, turn_index
from memory_engine.retrieval.thresholds import CALIBRATED_MIN_COSINE, min_cosine_for
from memory_engine.retrieval.weighting import TASK_TYPE_WEIGHTS, apply_weights, type_weight
from memory_engine.text import content_hash


def _mem(content: str, **kw: object) -> Memory:
    return Memory(tenant_id="t", content=content, content_hash=content_hash(content), **kw)  # type: ignore[arg-type]


def _leg(name: str, key: str, items: Sequence[tuple[Memory, float]]) -> list[Candidate]:
    return [
        Candidate(memory=m, scores={key: s}, ranks={name: i})
        for i, (m, s) in enumerate(items, start=1)
    ]


def test_zscore_keeps_the_gap_rrf_loses() -> None:
    a, b, c = _mem("a"), _mem("b"), _mem("c")
    # dense: a is far ahead; keyword: b barely ahead of a. RRF ties a and b by rank symmetry.
    legs = {
        "dense": _leg("dense", "cosine", [(a, 0.9), (b, 0.3), (c, 0.29)]),
        "keyword": _leg("keyword", "bm25", [(b, 5.1), (a, 5.0), (c, 0.1)]),
    }
    rrf = fuse(legs, method="rrf")
    assert rrf[0].scores["rrf"] == pytest.approx(rrf[1].scores["rrf"])
    z = fuse(legs, method="zscore")
    assert z[0].memory.id == a.id
    assert z[0].scores["fused"] == pytest.approx(1.0) and z[-1].scores["fused"] == 0.0
    assert all("rrf" in x.scores for x in z) and [x.ranks["fused"] for x in z] == [1, 2, 3]
    mm = fuse(legs, method="minmax")
    assert mm[0].memory.id == a.id and 0.0 <= mm[-1].scores["fused"] <= 1.0


def test_normalised_fusion_weights_and_missing_members() -> None:
    a, b = _mem("a"), _mem("b")
    legs = {
        "dense": _leg("dense", "cosine", [(a, 0.8), (b, 0.2)]),
        "keyword": _leg("keyword", "bm25", [(b, 9.0)]),  # a missing: BM25 floor 0
    }
    kw = fuse(legs, method="minmax", weights={"keyword": 0.1}, depth=10)
    assert kw[0].memory.id == a.id
    assert fuse(legs, method="minmax", weights={"dense": 0.1}, depth=10)[0].memory.id == b.id
    # a lone keyword hit is an outlier of the pool, not a zero-variance leg
    z = fuse(legs, method="zscore", depth=10)
    assert z[0].memory.id == b.id
    # without depth the floor is the leg's lowest score: a one-row leg carries no signal
    assert fuse(legs, method="minmax")[0].memory.id == a.id
    assert fuse({"dense": [], "keyword": []}, method="zscore") == []
    with pytest.raises(ValueError):
        fuse(legs, method="cosine")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        fuse(legs, method="zscore", weights={"dense": -1})


def test_turn_index_is_explicit_structure_only() -> None:
    """A turn index is ``metadata["turn"]`` of a memory with a session id; digits in a
    free-form reference are never a turn (issue: ``JIRA-102`` was lifted by ``JIRA-101``)."""
    assert turn_index(_mem("x", session_id="s", metadata={"turn": 4})) == 4
    assert turn_index(_mem("x", session_id="s", metadata={"turn": 0})) == 0
    assert turn_index(_mem("x", metadata={"turn": 4})) is None  # no session: no turn
    for ref in ("JIRA-101", "D3:12", "p3", "section 4.2", "build-41"):
        assert turn_index(_mem("x", session_id="s", source_ref=ref)) is None, ref
    for bad in (True, "4", 4.0, -1):
        assert turn_index(_mem("x", session_id="s", metadata={"turn": bad})) is None, bad
    # rows of the LoCoMo importer from before explicit turns: all three of its marks
    legacy = {"session_id": "conv-26-s3", "source_ref": "D3:12", "metadata": {"session": 3}}
    assert turn_index(_mem("x", **legacy)) == 12
    assert turn_index(_mem("x", **{**legacy, "source_ref": "D4:12"})) is None
    assert turn_index(_mem("x", **{**legacy, "session_id": "standup"})) is None
    assert turn_index(_mem("x", **{**legacy, "metadata": {}})) is None
    assert turn_index(_mem("x", **{**legacy, "metadata": {"session": 3, "turn": 7}})) == 7


def _turn(content: str, session: str, turn: int | None, **kw: object) -> Memory:
    meta = {"turn": turn} if turn is not None else {}
    return _mem(content, session_id=session, metadata=meta, **kw)


def test_session_smoothing_lifts_neighbours_of_a_strong_turn() -> None:
    q = _turn("question", "s1", 4)
    ans = _turn("answer", "s1", 5)
    far = _turn("far away", "s1", 9)
    other = _turn("other session", "s2", 5)
    # any memory type with an explicit turn takes part (a fact extracted from turn 3)
    fact = _turn("a fact", "s1", 3, memory_type=MemoryType.SEMANTIC)
    ref = _mem("a ticket", session_id="s1", source_ref="JIRA-5")  # a reference, no turn
    pool = [
        Candidate(memory=m, scores={"fused": s})
        for m, s in ((q, 1.0), (other, 0.35), (far, 0.34), (ans, 0.3), (fact, 0.2), (ref, 0.1))
    ]
    out = smooth_sessions(pool, weight=0.5, window=1)
    order = [c.memory.id for c in out]
    assert order.index(ans.id) < order.index(other.id)  # 0.3 + 0.5 * (1.0 - 0.3) beats 0.35
    by_id = {c.memory.id: c for c in out}
    assert by_id[ans.id].scores["session"] == pytest.approx(0.65)
    assert by_id[q.id].scores["session"] == pytest.approx(1.0)  # never pulled down
    summed = {c.memory.id: c for c in smooth_sessions(pool, weight=0.5, mode="sum")}
    assert summed[ans.id].scores["session"] == pytest.approx(0.8)
    assert summed[q.id].scores["session"] == pytest.approx(1.25)  # 1.0 + 0.5 * (0.3 + 0.2)
    assert by_id[far.id].scores["session"] == pytest.approx(0.34)  # no neighbour in the pool
    assert by_id[fact.id].scores["session"] == pytest.approx(0.6)  # 0.2 + 0.5 * (1.0 - 0.2)
    assert by_id[ref.id].scores["session"] == pytest.approx(0.1)  # never a turn
    assert [c.ranks["session"] for c in out] == [1, 2, 3, 4, 5, 6]
    same = smooth_sessions(pool, weight=0.0)
    assert [c.memory.id for c in same] == [c.memory.id for c in pool]
    with pytest.raises(ValueError):
        smooth_sessions(pool, weight=0.5, window=0)


def test_numbered_references_in_one_session_lift_nothing() -> None:
    """Tickets, document sections and tool runs written in one session, numbered in
    ``source_ref``: the strongest one lifts none of its "neighbours"."""
    refs = ["JIRA-101", "JIRA-102", "JIRA-103", "doc-1.2", "doc-1.3", "run-41", "run-42"]
    pool = [
        Candidate(memory=_mem(f"m{i}", session_id="standup", source_ref=r), scores={"fused": s})
        for i, (r, s) in enumerate(zip(refs, (1.0, 0.1, 0.1, 0.9, 0.1, 0.8, 0.1), strict=True))
    ]
    out = smooth_sessions(pool, weight=1.0, window=2)
    assert all(c.scores["session"] == c.scores["fused"] for c in out)
    assert [c.memory.id for c in out] == [
        c.memory.id for c in sorted(pool, key=lambda c: -c.scores["fused"])
    ]


def test_type_weights_follow_the_documented_table() -> None:
    assert type_weight(None, MemoryType.PROCEDURAL) == 1.0
    assert type_weight("consultation", MemoryType.EPISODIC) > 1.0
    assert type_weight("knowledge_qa", MemoryType.SEMANTIC) > 1.0
    assert type_weight("workflow", MemoryType.PROCEDURAL) > 1.0
    assert set(TASK_TYPE_WEIGHTS) == {"general", "consultation", "knowledge_qa", "workflow"}
    with pytest.raises(ValueError):
        type_weight("chitchat", MemoryType.EPISODIC)
    ep, sem, proc = (
        _mem("e", memory_type=MemoryType.EPISODIC),
        _mem("s", memory_type=MemoryType.SEMANTIC),
        _mem("p", memory_type=MemoryType.PROCEDURAL),
    )
    pool = [Candidate(memory=m, scores={"fused": 1.0}) for m in (ep, sem, proc)]
    for task, winner in (("consultation", ep), ("knowledge_qa", sem), ("workflow", proc)):
        out = apply_weights(pool, score_key="fused", task_type=task)
        assert out[0].memory.id == winner.id and out[0].ranks["weighted"] == 1
    # the retention hook multiplies in; default 1.0
    out = apply_weights(pool, score_key="fused", weight_fn=lambda m: 2.0 if m is proc else 1.0)
    assert out[0].memory.id == proc.id and out[0].scores["retention"] == 2.0
    assert apply_weights(pool, score_key="fused")[0].scores["retention"] == 1.0
    with pytest.raises(ValueError):
        apply_weights(pool, score_key="fused", weight_fn=lambda m: -1.0)


def test_composite_query_keeps_query_and_latest_turns() -> None:
    assert composite_query("where?") == "where?"
    turns = ["old turn", "我们在讨论花生过敏", "", "what about dinner"]
    out = composite_query("and her?", turns, turns=2)
    assert out == "我们在讨论花生过敏\nwhat about dinner\nand her?"
    long = composite_query("q", ["x" * 100, "y" * 100], max_chars=120)
    assert long == "y" * 100 + "\nq"  # oldest dropped first, the query always kept


def test_dedupe_exact_and_near_and_mmr() -> None:
    a = _mem("The user is allergic to peanuts")
    a2 = _mem("the user is  ALLERGIC to peanuts")  # same content_hash
    a3 = _mem("The user is allergic to peanuts!")  # same terms -> near duplicate
    b = _mem("我对花生过敏")
    pool = [
        Candidate(memory=m, scores={"final": s}) for m, s in ((a, 3), (a2, 2), (a3, 1.5), (b, 1))
    ]
    kept, dropped = dedupe(pool, near_duplicate=0.9)
    assert [c.memory.id for c in kept] == [a.id, b.id]
    assert [r for _, r in dropped] == ["duplicate_content", "near_duplicate"]
    kept_off, _ = dedupe(pool)  # near-duplicate check off by default
    assert len(kept_off) == 3
    assert jaccard(frozenset({"x"}), frozenset()) == 0.0
    c1, c2, c3 = _mem("alpha beta gamma"), _mem("alpha beta gamma delta"), _mem("zeta eta")
    pool2 = [
        Candidate(memory=m, scores={"final": s}) for m, s in ((c1, 1.0), (c2, 0.95), (c3, 0.9))
    ]
    assert [c.memory.id for c in mmr_order(pool2, score_key="final", lam=1.0, pool=10)] == [
        c1.id,
        c2.id,
        c3.id,
    ]
    diverse = mmr_order(pool2, score_key="final", lam=0.5, pool=10)
    assert [c.memory.id for c in diverse] == [c1.id, c3.id, c2.id]


class _LengthReranker:
    name = "length"

    def __init__(self) -> None:
        self.seen: list[int] = []

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        self.seen.append(len(texts))
        return [float(len(t)) for t in texts]


def test_rerank_is_bounded_to_the_pool() -> None:
    mems = [_mem("x" * n) for n in (1, 5, 3, 9)]
    pool = [Candidate(memory=m, scores={"fused": 1.0}) for m in mems]
    r = _LengthReranker()
    out = apply_rerank("q", pool, reranker=r, pool=3)
    assert r.seen == [3]  # only the pool was scored
    assert [c.memory.content for c in out] == ["x" * 5, "x" * 3, "x", "x" * 9]
    assert [c.ranks.get("rerank") for c in out] == [1, 2, 3, None]
    with pytest.raises(ValueError):
        apply_rerank("q", pool, reranker=r, pool=0)


def test_calibrated_floor_per_embedder() -> None:
    assert min_cosine_for("all-MiniLM-L6-v2", -1.0, calibrated=False) == -1.0
    for model, floor in CALIBRATED_MIN_COSINE.items():
        assert min_cosine_for(model, -1.0, calibrated=True) == floor
        assert min_cosine_for(model, 0.9, calibrated=True) == 0.9
    assert min_cosine_for("unknown-model", -1.0, calibrated=True) == -1.0


def test_every_score_kind_says_higher_is_better() -> None:
    for name, kind in SCORE_KINDS.items():
        assert kind.direction == "higher is better", name
        assert score_label(name) == f"{name} ↑"
    assert score_label("distance") == "distance ?"
