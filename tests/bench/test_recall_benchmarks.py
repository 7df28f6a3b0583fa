"""The recall benchmarks run the default configuration with no options and report the
development, held-out and "all" splits plus the no-answer set (each tenant's memories
against the other tenants' queries).

The first test starts like a user: ``python bench/madial.py --data FOLDER`` on a small
MADial-shaped folder written here (two users), nothing else set; the others check the
harness's no-answer measurement on an engine in Qdrant local mode.
"""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from bench.harness import Dump, calibrated_floors, engine_no_answer, even_sample, no_answer
from memory_engine import MemoryEngine, Scope, Settings
from memory_engine.embedding import build_embedder
from memory_engine.models import MemorySource
from memory_engine.retrieval import thresholds
from memory_engine.write.service import WriteRequest

REPO = Path(__file__).resolve().parents[2]

MEMORIES = {
    "1": (1, "Bart在圣诞节晚会上跳舞，感觉非常开心。"),
    "2": (1, "Bart在学校的体育节上获得一百米第一名。"),
    "3": (2, "Lisa养了一只叫豆豆的小猫。"),
    "4": (2, "Lisa第一次学会了骑自行车。"),
}
DIALOGUES = [
    (1, "你还记得我在圣诞节晚会上跳舞吗？", "1"),
    (1, "我在体育节上跑了一百米！", "2"),
    (2, "我的小猫豆豆今天生病了。", "3"),
    (2, "我想再去骑自行车。", "4"),
]


def _write_madial(folder: Path) -> None:
    folder.mkdir()
    rows = [
        {mid: {"time": "2023-12-25", "event": ev, "user-id": user, "id": mid}}
        for mid, (user, ev) in MEMORIES.items()
    ]
    dialogues = [
        {
            "dialogue": ["<BOD>\n", f'<Kid>:"{line}"\n', '<Assistant>:"…"\n'],
            "test-turn": [2],
            "relevant-id": [int(mid)],
            "user-id": user,
            "id": i,
        }
        for i, (user, line, mid) in enumerate(DIALOGUES)
    ]
    for name, items in (("memory", rows), ("dialogue", dialogues)):
        text = "\n".join(json.dumps(r, ensure_ascii=False) for r in items)
        (folder / f"MADial-Bench-zh-{name}.json").write_text(text + "\n", encoding="utf-8")


def test_madial_with_no_options_reports_splits_and_the_no_answer_set(tmp_path: Path) -> None:
    data = tmp_path / "madial"
    _write_madial(data)
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "PYTHONPATH": str(REPO),
    }
    run = subprocess.run(
        [sys.executable, str(REPO / "bench" / "madial.py"), "--data", str(data)],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    out = json.loads(run.stdout.strip().splitlines()[-1])
    assert set(out["per_split"]) == {"dev", "heldout", "all"}
    assert out["per_split"]["all"]["n"] == 4 and out["per_split"]["dev"]["n"] == 2
    default = build_embedder(Settings(_env_file=None))  # type: ignore[call-arg]
    assert out["embedder"] == default.model_name
    assert out["options"] == {} and out["candidates_per_leg"] == 50
    na = out["no_answer"]
    assert na["queries"] == 4 and set(na["per_split"]) == {"dev", "heldout"}
    assert 0.0 <= na["avg_block_memories"] <= 2.0 and 0.0 <= na["nonempty_rate"] <= 100.0


class _HashEmbedder:
    """Deterministic unit vectors from a hash of the text (an unknown model: no floors)."""

    model_name, dim, max_input_chars = "hash-16", 16, 2000

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        out = []
        for text in texts:
            raw = np.frombuffer(hashlib.sha256(text.encode()).digest()[:16], dtype=np.uint8)
            v = raw.astype(np.float64) + 1.0
            out.append([float(x) for x in v / np.linalg.norm(v)])
        return out


def test_no_answer_searches_each_tenant_with_the_other_tenants_queries(tmp_path: Path) -> None:
    settings = Settings(_env_file=None, store="qdrant", qdrant_path=":memory:")  # type: ignore[call-arg]
    engine = MemoryEngine(settings, embedder=_HashEmbedder())  # type: ignore[arg-type]
    queries = {"a": ["alpha one", "alpha two"], "b": ["beta one"], "c": []}
    for tenant, n in (("a", 3), ("b", 1), ("c", 2)):
        requests = [
            WriteRequest(text=f"{tenant} memory {i}", source=MemorySource.IMPORT, source_ref=str(i))
            for i in range(n)
        ]
        assert all(r.ok for r in engine.write_many(Scope.of(tenant), requests, reason="t"))
    seen: list[tuple[str, str]] = []

    def search(tenant: str, query: str):  # type: ignore[no-untyped-def]
        seen.append((tenant, query))
        return engine.search(Scope.of(tenant), query, save_trace=False)

    dump_path = tmp_path / "dump.jsonl"
    dump = Dump(dump_path, lambda _id: None)
    out = no_answer(search, queries, per_tenant=0, split_of=lambda t: "dev", dump=dump)
    dump.close()
    assert sorted(seen) == sorted(
        [("a", "beta one"), ("b", "alpha one"), ("b", "alpha two")]
        + [("c", q) for q in ("alpha one", "alpha two", "beta one")]
    )
    # The hash model has no calibrated floor, so every block holds all of the tenant's
    # memories: a: 3, b: 1, 1, c: 2, 2, 2.
    assert out["queries"] == 6 and out["avg_block_memories"] == round(11 / 6, 3)
    assert out["nonempty_rate"] == 100.0 and out["per_split"]["dev"]["queries"] == 6
    rows = [json.loads(line) for line in dump_path.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6 and all(r["set"] == "no_answer" and r["candidates"] for r in rows)
    assert no_answer(search, {"a": ["x"]}, per_tenant=0, split_of=str) == {"queries": 0}
    engine.close()


def test_engine_no_answer_searches_with_the_default_block_and_the_overrides() -> None:
    settings = Settings(_env_file=None, store="qdrant", qdrant_path=":memory:")  # type: ignore[call-arg]
    engine = MemoryEngine(settings, embedder=_HashEmbedder())  # type: ignore[arg-type]
    for tenant in ("a", "b"):
        requests = [
            WriteRequest(text=f"{tenant} note {i}", source=MemorySource.IMPORT, source_ref=str(i))
            for i in range(12)
        ]
        assert all(r.ok for r in engine.write_many(Scope.of(f"t-{tenant}"), requests, reason="t"))
    queries = {"a": ["first question"], "b": ["second question"]}

    def measure(overrides: dict[str, object]) -> dict[str, object]:
        return engine_no_answer(
            engine,
            overrides,
            queries,
            scope_of=lambda t: Scope.of(f"t-{t}"),
            per_tenant=0,
            split_of=lambda t: "dev" if t == "a" else "heldout",
        )

    # an unknown model vouches for every candidate: the default block (k = 10) is full
    full = measure({})
    assert full["queries"] == 2 and full["avg_block_memories"] == 10.0
    assert set(full["per_split"]) == {"dev", "heldout"}  # type: ignore[arg-type]
    assert measure({"k": 3})["avg_block_memories"] == 3.0
    engine.close()


def test_calibrated_floors_sets_the_constants_for_one_configuration_only() -> None:
    model = "all-MiniLM-L6-v2"

    multilingual = "universal-sentence-encoder-multilingual-3"

    def constants() -> tuple[float, float, float, float]:
        return (
            thresholds.CALIBRATED_MATCH_COSINE[model],
            thresholds.LATIN_MATCH_COSINE[multilingual],
            thresholds.MATCH_COSINE_PER_DOUBLING,
            thresholds.VOUCH_LEG_SHARE,
        )

    before = constants()
    config = {
        "k": 5,
        "calibrated_match_cosine": {model: 0.9},
        "latin_match_cosine": {multilingual: 0.7},
        "match_cosine_per_doubling": 0.0,
        "vouch_leg_share": 0.75,
    }
    with calibrated_floors(config) as options:
        assert options == {"k": 5}
        assert thresholds.CALIBRATED_MATCH_COSINE[model] == 0.9
        assert thresholds.match_cosine_for(model, None, query_terms=64) == 0.9
        assert thresholds.match_cosine_for(multilingual, None, cjk_share=0.0) == 0.7
        weights = {"dense": 1.0, "dense_ml": 0.5}
        assert thresholds.vouching_legs(weights, ["dense", "dense_ml"]) == {"dense"}
    assert constants() == before


def test_even_sample_spreads_over_the_list() -> None:
    assert even_sample(list(range(10)), 5) == [0, 2, 4, 6, 8]
    assert even_sample([1, 2], 0) == [1, 2] and even_sample([1, 2], 5) == [1, 2]
