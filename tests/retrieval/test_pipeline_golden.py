"""The search pipeline's ranking on a fixed bilingual corpus is pinned: every returned id, every
score and rank of every stage, every drop reason and every trace field but the timings match
``data/pipeline_golden.json``. A change to how candidates are carried through the stages must
not change a single result (docs/architecture.md#search-pipeline).

The corpus has fixed ids and times (ties are broken by id), two deterministic dense legs and
the keyword leg, conversation turns (session smoothing), exact and near duplicates, several
memory types, importances and ages (retention weighting at a fixed clock). The searches run
each fusion method, session smoothing, MMR, the relevance floor, a tight token budget and
task-type weighting, in English, Chinese and mixed queries.

A ranking change made on purpose regenerates the file (and says why in its commit)::

    PYTHONPATH=. python -m tests.retrieval.test_pipeline_golden --write
"""

from __future__ import annotations

import hashlib
import json
import math
import sys
import tempfile
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine, Scope
from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.models import Memory, MemoryType
from memory_engine.stores.base import NewMemory
from tests.support.hash_embedder import HashEmbedder

GOLDEN = Path(__file__).with_name("data") / "pipeline_golden.json"
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)
TENANT = "golden"
_NS = uuid.UUID("6f1c0e2a-6a57-4a43-9a53-1f3c1b0d9e11")

_FACTS = [
    ("I am allergic to peanuts and carry an epipen.", MemoryType.SEMANTIC, 0.9),
    ("我对花生过敏，吃了会起疹子。", MemoryType.SEMANTIC, 0.9),
    ("My sister Anna lives in Berlin and works as a nurse.", MemoryType.SEMANTIC, 0.6),
    ("我妹妹安娜住在柏林，是一名护士。", MemoryType.SEMANTIC, 0.6),
    ("Deploy the service with make deploy after the tests pass.", MemoryType.PROCEDURAL, 0.7),
    ("部署服务：先跑测试，再执行 make deploy。", MemoryType.PROCEDURAL, 0.7),
    ("We moved the weekly sync to Thursday at 10am.", MemoryType.EPISODIC, 0.5),
    ("每周例会改到周四上午十点。", MemoryType.EPISODIC, 0.5),
    ("The rerank model we configured is bge-reranker-base.", MemoryType.SEMANTIC, 0.5),
    ("我们最近配置的 rerank 精排模型是 bge-reranker", MemoryType.SEMANTIC, 0.5),
    ("I prefer green tea over coffee in the afternoon.", MemoryType.SEMANTIC, 0.4),
    ("我下午更喜欢喝绿茶而不是咖啡。", MemoryType.SEMANTIC, 0.4),
    ("The database backup runs every night at 2am.", MemoryType.PROCEDURAL, 0.6),
    ("数据库每晚两点自动备份。", MemoryType.PROCEDURAL, 0.6),
    ("Tom from ACME Inc. asked for the invoice by Friday.", MemoryType.EPISODIC, 0.5),
    ("ACME 公司的汤姆要求周五前开发票。", MemoryType.EPISODIC, 0.5),
    ("I am allergic to peanuts and carry an epipen.", MemoryType.SEMANTIC, 0.3),  # exact dup
    ("I am allergic to peanuts and always carry an epipen.", MemoryType.SEMANTIC, 0.3),  # near
    ("Our flight to Tokyo leaves on March 3rd.", MemoryType.EPISODIC, 0.5),
    ("我们三月三号飞东京。", MemoryType.EPISODIC, 0.5),
    ("Use Python 3.12 for the new services.", MemoryType.PROCEDURAL, 0.5),
    ("新服务统一使用 Python 3.12。", MemoryType.PROCEDURAL, 0.5),
    ("The weather was rainy all week.", MemoryType.EPISODIC, 0.2),
    ("这周一直在下雨。", MemoryType.EPISODIC, 0.2),
]

_TURNS = [  # one conversation: a question, its answer, a follow-up
    (
        "s-1",
        [
            "What should I cook for the party?",
            "Maybe a peanut-free curry for Anna.",
            "Good idea, and green tea for dessert.",
            "Remember to book the table at 7pm.",
        ],
    ),
    ("s-2", ["你周末去哪里？", "我周末去杭州看西湖。", "记得带伞，杭州可能下雨。"]),
]

_QUERIES = [
    ("peanut allergy", {}),
    ("我对什么过敏？", {}),
    ("what does my sister do in Berlin", {"fusion": "zscore"}),
    ("柏林 护士", {"fusion": "minmax"}),
    ("how do I deploy the service", {"task_type": "workflow"}),
    ("部署 make deploy", {"fusion": "rrf"}),
    ("weekly sync Thursday", {"session_weight": 0.5}),
    ("peanut-free curry", {"session_weight": 0.5, "session_window": 2}),
    ("杭州 下雨", {"session_weight": 0.5}),
    ("rerank 精排模型", {"near_duplicate": 0.9, "mmr_lambda": 0.7}),
    ("peanuts epipen", {"near_duplicate": 0.5, "mmr_lambda": 0.5, "k": 8}),
    ("ACME invoice Friday", {"token_budget": 140}),
    ("database backup at night", {"retention_weight": 0.5, "task_type": "knowledge_qa"}),
    ("quantum chromodynamics lattice", {}),  # nothing matches: the relevance floor
    ("green tea coffee", {"fusion": "rrf", "min_score": 0.02}),
    ("Tokyo flight 东京", {"calibrated_min_cosine": True, "k": 3}),
]


def _corpus() -> list[Memory]:
    out: list[Memory] = []
    for i, (content, kind, importance) in enumerate(_FACTS):
        at = NOW - timedelta(days=3 * i + 1, hours=i)
        out.append(
            Memory(
                id=uuid.uuid5(_NS, f"fact-{i}"),
                tenant_id=TENANT,
                content=content,
                memory_type=kind,
                importance=importance,
                entities=("ACME",) if "ACME" in content else (),
                created_at=at,
                updated_at=at,
                observed_at=at,
                access_count=i % 3,
                content_hash=textmod.content_hash(content),
            )
        )
    for session, turns in _TURNS:
        for turn, content in enumerate(turns, start=1):
            at = NOW - timedelta(days=2, minutes=10 - turn)
            out.append(
                Memory(
                    id=uuid.uuid5(_NS, f"{session}-{turn}"),
                    tenant_id=TENANT,
                    session_id=session,
                    content=content,
                    created_at=at,
                    updated_at=at,
                    observed_at=at,
                    metadata={"turn": turn},
                    content_hash=textmod.content_hash(content),
                )
            )
    return out


#: What the golden file keeps of each trace candidate (the memory's own fields are covered by
#: the trace digest).
_CANDIDATE_KEYS = ("memory_id", "scores", "ranks", "dropped", "normalised", "lift_from", "tokens")


#: Relative tolerance of a compared score: float32 vector storage and the order of a sum
#: move cosines in the 8th digit (the stores keep float32), never a rank.
SCORE_REL_TOL = 1e-6


def _without_floats(value: Any) -> Any:
    """``value`` with every float replaced by 0.0 (the digest covers everything else; the
    scores are compared one by one with ``SCORE_REL_TOL``)."""
    if isinstance(value, float):
        return 0.0
    if isinstance(value, dict):
        return {k: _without_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_floats(v) for v in value]
    return value


def _same(mine: Any, theirs: Any) -> bool:
    """Equal JSON values, floats within ``SCORE_REL_TOL`` (ints and strings exactly)."""
    if isinstance(mine, float) or isinstance(theirs, float):
        return (
            isinstance(mine, int | float)
            and isinstance(theirs, int | float)
            and (math.isclose(mine, theirs, rel_tol=SCORE_REL_TOL, abs_tol=1e-12))
        )
    if isinstance(mine, dict):
        return (
            isinstance(theirs, dict)
            and mine.keys() == theirs.keys()
            and all(_same(mine[k], theirs[k]) for k in mine)
        )
    if isinstance(mine, list):
        return (
            isinstance(theirs, list)
            and len(mine) == len(theirs)
            and all(_same(a, b) for a, b in zip(mine, theirs, strict=True))
        )
    return bool(mine == theirs)


def _trace_record(trace: dict[str, Any]) -> dict[str, Any]:
    """The compared part of a trace (JSON): every candidate's scores, ranks and drop reason,
    every leg's ids, scores and ranks, the small fields as they are, and a SHA-256 digest of
    the whole trace but its floats (memory snapshots, configuration) that keeps the file
    small."""
    digest = hashlib.sha256(
        json.dumps(_without_floats(trace), sort_keys=True, ensure_ascii=False).encode()
    ).hexdigest()
    return {
        "candidates": [{k: c[k] for k in _CANDIDATE_KEYS} for c in trace["candidates"]],
        "legs": {
            leg: [[c["memory_id"], c["scores"], c["ranks"]] for c in cands]
            for leg, cands in trace["legs"].items()
        },
        **{
            key: trace[key]
            for key in ("query_terms", "warnings", "stages", "leg_health", "embedding_model")
        },
        "digest": digest,
    }


def run_golden_searches(workdir: Path) -> list[dict[str, Any]]:
    """Load the corpus into a new local Qdrant store and run every golden search.

    Returns:
        One record per query: the ranked ids, scores and ranks of the returned memories and the
        trace as JSON without its id, time and timings.
    """
    settings = Settings(
        _env_file=None,
        data_dir=workdir / "data",
        store="qdrant",
        qdrant_path=str(workdir / "qdrant"),
        record_access=False,
        candidates_per_leg=12,
    )  # type: ignore[call-arg]
    en, ml = HashEmbedder("golden-en", 48), HashEmbedder("golden-ml", 40)
    engine = MemoryEngine(settings, embedder=en, leg_embedders={"dense_ml": ml}, clock=lambda: NOW)
    try:
        assert engine.embedder is en  # records both legs in the new collection
        store = engine.store
        memories = _corpus()
        texts = [m.content for m in memories]
        vectors, ml_vectors = en.embed(texts), ml.embed(texts)
        items = [
            NewMemory(
                memory=m.model_copy(update={"embedding_model": en.model_name}),
                embedding=tuple(v),
                terms=tuple(textmod.tokenize(m.content)),
                legs={"dense_ml": tuple(w)},
            )
            for m, v, w in zip(memories, vectors, ml_vectors, strict=True)
        ]
        store.insert(items, scope=Scope.of(TENANT), actor="golden")
        records = []
        for query, overrides in _QUERIES:
            options = engine.search_options(**overrides)
            res = engine.search(Scope.of(TENANT), query, options=options, save_trace=False)
            trace = res.trace.model_dump(mode="json", exclude={"id", "created_at", "timings_ms"})
            records.append(
                {
                    "query": query,
                    "options": overrides,
                    "returned": [
                        {
                            "id": str(c.memory.id),
                            "scores": c.scores,
                            "ranks": c.ranks,
                            "flags": list(c.flags),
                        }
                        for c in res.memories
                    ],
                    "block": res.block,
                    "trace": _trace_record(trace),
                }
            )
        return records
    finally:
        engine.close()


def test_pipeline_results_match_the_golden_file(tmp_path: Path) -> None:
    expected = json.loads(GOLDEN.read_text(encoding="utf-8"))
    got = json.loads(json.dumps(run_golden_searches(tmp_path)))
    assert [r["query"] for r in got] == [r["query"] for r in expected]
    # the corpus reaches the stages it is meant to pin: drops of several kinds, session lifts
    reasons = {c["dropped"] for r in got for c in r["trace"]["candidates"]}
    assert {"below_top_k", "near_duplicate", "over_token_budget", "below_min_score"} <= reasons
    assert any(c["lift_from"] for r in got for c in r["trace"]["candidates"])
    for mine, theirs in zip(got, expected, strict=True):
        assert [r["id"] for r in mine["returned"]] == [r["id"] for r in theirs["returned"]]
        assert _same(mine["returned"], theirs["returned"]), mine["query"]
        assert mine["block"] == theirs["block"], mine["query"]
        for key in theirs["trace"]:
            assert _same(mine["trace"][key], theirs["trace"][key]), (mine["query"], key)
        assert mine["trace"].keys() == theirs["trace"].keys()


def test_the_score_comparison_tolerates_float32_noise_only() -> None:
    assert _same({"cosine": 0.2060408592224121}, {"cosine": 0.20604084059596062})
    assert not _same({"cosine": 0.2061}, {"cosine": 0.2060})
    assert not _same({"rank": 1}, {"rank": 2}) and not _same([1.0], [1.0, 2.0])
    assert not _same({"a": 1.0}, {"b": 1.0})


if __name__ == "__main__":  # regenerate (see the module docstring)
    if "--write" not in sys.argv:
        raise SystemExit("pass --write to regenerate " + str(GOLDEN))
    with tempfile.TemporaryDirectory() as tmp:
        GOLDEN.parent.mkdir(exist_ok=True)
        GOLDEN.write_text(
            json.dumps(run_golden_searches(Path(tmp)), ensure_ascii=False) + "\n",
            encoding="utf-8",
        )
