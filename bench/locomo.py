"""LoCoMo evidence recall benchmark (raw mode: one episodic memory per turn).

Usage::

    python bench/locomo.py --data ../shared/data/locomo/locomo10.json [--conversations dev]
        [--embedder minilm|use_m3] [--set fusion=zscore --set session_weight=0.3] [--grid g.json]

With no option it measures the engine's default configuration. Prints one JSON object per
configuration (one line each; see bench/harness.py): the figures over all questions, under
``per_split`` for ``dev``, ``heldout`` and ``all``, and under ``no_answer`` the false recall
of the no-answer set (each conversation's memories against the other conversations'
questions, with the default block). Metrics (LoCoMo paper, Maharana et al. 2024): for each question with at
least one valid evidence id, r@k = fraction of its evidence turns found among the top-k
memories; averaged over questions, in percent (category 5 included). ``recall_any@k`` = percent
of questions with at least one evidence turn in the top k. Query = the question verbatim.

The data is CC BY-NC: pass its path; never copy it into the repository. Tune only on the
development split conv-26, conv-30, conv-41, conv-42, conv-43.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.harness import (  # noqa: E402
    CachingEmbedder,
    CachingStore,
    Dump,
    add_common_args,
    calibrated_floors,
    configurations,
    engine_no_answer,
    leg_embedders,
    measurements,
    prefill_queries,
    recall_params,
    settings_args,
)
from memory_engine import MemoryEngine, Scope, Settings  # noqa: E402
from memory_engine.embedding import build_embedder  # noqa: E402
from memory_engine.stores import build_store  # noqa: E402
from memory_engine.write.ingest import read_locomo  # noqa: E402

KS = (5, 10, 25, 50)
DEV_SPLIT = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")


def normalise_evidence(raw: list[Any], valid: set[str]) -> list[str]:
    """Split on ``;`` ``,`` and spaces; ``D:11:26`` -> ``D11:26``; ``D30:05`` -> ``D30:5``;
    drop ids matching no turn; keep order, no duplicates."""
    out: list[str] = []
    for item in raw:
        for tok in re.split(r"[;,\s]+", str(item)):
            m = re.fullmatch(r"D:?(\d+):0*(\d+)", tok.strip())
            if not m:
                continue
            did = f"D{int(m.group(1))}:{int(m.group(2))}"
            if did in valid and did not in out:
                out.append(did)
    return out


def percentile(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    idx = min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))
    return ordered[idx]


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", required=True, type=Path, help="path to locomo10.json")
    ap.add_argument(
        "--conversations", nargs="*", help="sample ids (default: all); 'dev' = dev split"
    )
    ap.add_argument(
        "--data-dir", type=Path, help="embedded PostgreSQL folder (default: a temp dir)"
    )
    ap.add_argument(
        "--store",
        choices=["postgres", "qdrant"],
        default="postgres",
        help="store backend (qdrant: local mode in DATA_DIR/qdrant)",
    )
    ap.add_argument(
        "--ingest-only", action="store_true", help="measure the ingest throughput block only"
    )
    add_common_args(ap)
    args = ap.parse_args()
    configs = configurations(args)

    convs = read_locomo(args.data)
    wanted = args.conversations or sorted(convs)
    if wanted == ["dev"]:
        wanted = list(DEV_SPLIT)
    elif wanted == ["heldout"]:
        wanted = [c for c in sorted(convs) if c not in DEV_SPLIT]
    samples = {s["sample_id"]: s for s in json.loads(args.data.read_text(encoding="utf-8"))}

    tmp = None
    data_dir = args.data_dir
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="locomo-bench-")
        data_dir = Path(tmp.name)
    common: dict[str, Any] = {"trace_retention": 0, **settings_args(args)}
    settings = Settings(data_dir=data_dir, **common)
    if args.store == "qdrant":
        settings = Settings(
            store="qdrant",
            qdrant_path=str(data_dir.parent / f"{data_dir.name}-qdrant"),
            qdrant_local_warn_points=10**9,
            **common,
        )
    store = CachingStore(build_store(settings))
    engine = MemoryEngine(
        settings,
        store=store,  # type: ignore[arg-type]
        embedder=CachingEmbedder(build_embedder(settings)),
        leg_embedders=leg_embedders(args, settings),
    )
    dump = Dump(args.dump, store.source_ref)

    ingest_s, n_turns, throughput = ingest(engine, convs, wanted)
    if args.ingest_only:
        print(json.dumps({"conversations": wanted, "turns": n_turns, **throughput}), flush=True)
        configs = []

    questions = [(cid, qa) for cid in wanted for qa in samples[cid]["qa"]]
    prefill_queries(engine, [qa["question"] for _, qa in questions])
    for label, measured, overrides in measurements(engine, args, configs):
        with calibrated_floors(overrides) as options:
            out = run_config(
                measured, convs, questions, recall_params(args, max(KS)), options, dump
            )
            if args.no_answer >= 0:
                out["no_answer"] = engine_no_answer(
                    measured,
                    options,
                    {cid: [qa["question"] for qa in samples[cid]["qa"]] for cid in wanted},
                    scope_of=lambda cid: Scope.of(f"locomo-{cid}"),
                    per_tenant=args.no_answer,
                    split_of=lambda cid: "dev" if cid in DEV_SPLIT else "heldout",
                    dump=dump,
                )
        out["options"] = overrides
        out.update(
            {
                "conversations": wanted,
                "turns": n_turns,
                "embedder": engine.embedder.model_name,
                "multilingual": label,
                "store": args.store,
                "ingest_s": round(ingest_s, 1),
                **throughput,
            }
        )
        print(json.dumps(out, ensure_ascii=False), flush=True)
    dump.close()
    engine.close()
    if tmp:
        if args.store == "postgres":
            from memory_engine.stores.postgres.embedded import stop_embedded_server

            stop_embedded_server(data_dir)  # stop the server before its folder is removed
        tmp.cleanup()


def ingest(
    engine: MemoryEngine, convs: dict[str, Any], wanted: list[str]
) -> tuple[float, int, dict[str, Any]]:
    """Ingest the wanted conversations not stored yet; returns (seconds, turns, the
    ``ingest_throughput`` block).

    Before each conversation is ingested, the bare embedder (no cache) embeds the same turn
    texts in one call: ``embedder_only_per_s`` is that rate, measured interleaved with the
    ingest in the same run, and ``ratio`` = ingest memories/s over it.
    """
    embedder = engine.embedder
    bare = embedder.inner if isinstance(embedder, CachingEmbedder) else embedder
    t0 = time.perf_counter()
    n_turns = embedded = 0
    embed_s = ingest_s = 0.0
    for cid in wanted:
        scope = Scope.of(f"locomo-{cid}")
        if engine.store.count(scope=scope) == 0:
            texts = [t.content() for t in convs[cid]]
            t = time.perf_counter()
            bare.embed(texts)
            embed_s += time.perf_counter() - t
            t = time.perf_counter()
            with tqdm(total=len(convs[cid]), desc=f"ingest {cid}", file=sys.stderr) as bar:
                engine.ingest(scope, convs[cid], progress=lambda n, bar=bar: bar.update(n - bar.n))
            ingest_s += time.perf_counter() - t
            embedded += len(texts)
        n_turns += len(convs[cid])
    seconds = time.perf_counter() - t0
    block: dict[str, Any] = {}
    if embedded:
        ingest_rate, embed_rate = embedded / ingest_s, embedded / embed_s
        block = {
            "ingest_throughput": {
                "memories": embedded,
                "ingest_memories_per_s": round(ingest_rate, 1),
                "embedder_only_per_s": round(embed_rate, 1),
                "ratio": round(ingest_rate / embed_rate, 3),
            }
        }
    return seconds - embed_s, n_turns, block


def run_config(
    engine: MemoryEngine,
    convs: dict[str, Any],
    questions: list[tuple[str, dict[str, Any]]],
    params: dict[str, Any],
    overrides: dict[str, Any],
    dump: Dump,
) -> dict[str, Any]:
    """Measure one configuration over ``questions``; returns the metrics dict."""
    options = engine.search_options(**(params | overrides))
    recall: dict[int, list[float]] = {k: [] for k in KS}
    anyhit: dict[int, list[float]] = {k: [] for k in KS}
    per_cat: dict[str, dict[int, list[float]]] = defaultdict(lambda: {k: [] for k in KS})
    per_split: dict[str, dict[int, list[float]]] = defaultdict(lambda: {k: [] for k in KS})
    latencies: list[float] = []
    skipped = 0
    valid_ids = {cid: {t.turn_id for t in turns if t.turn_id} for cid, turns in convs.items()}
    for cid, qa in tqdm(questions, desc="questions", file=sys.stderr):
        evidence = normalise_evidence(qa.get("evidence", []), valid_ids[cid])
        if not evidence:
            skipped += 1
            continue
        scope = Scope.of(f"locomo-{cid}")
        t = time.perf_counter()
        res = engine.search(scope, qa["question"], options=options, save_trace=False)
        latencies.append((time.perf_counter() - t) * 1000)
        dump.write("recall", cid, qa["question"], res, set(evidence))
        refs = [c.memory.source_ref for c in res.memories]
        for k in KS:
            found = len(set(refs[:k]) & set(evidence))
            recall[k].append(found / len(evidence))
            anyhit[k].append(1.0 if found else 0.0)
            per_cat[str(qa.get("category"))][k].append(found / len(evidence))
            split = "dev" if cid in DEV_SPLIT else "heldout"
            per_split[split][k].append(found / len(evidence))
            per_split["all"][k].append(found / len(evidence))

    def pct(v: list[float]) -> float:
        return round(100 * statistics.fmean(v), 2) if v else 0.0

    out: dict[str, Any] = {f"r@{k}": pct(recall[k]) for k in KS}
    out.update({f"recall_any@{k}": pct(anyhit[k]) for k in KS})
    out["per_category"] = {
        cat: {f"r@{k}": pct(v[k]) for k in KS} | {"n": len(v[KS[0]])}
        for cat, v in sorted(per_cat.items())
    }
    out["per_split"] = {
        split: {f"r@{k}": pct(v[k]) for k in KS} | {"n": len(v[KS[0]])}
        for split, v in sorted(per_split.items())
    }
    out.update(
        {
            "qa": len(recall[KS[0]]),
            "qa_skipped_no_valid_evidence": skipped,
            "legs": list(options.legs),
            "candidates_per_leg": options.candidates_per_leg,
            "options": overrides,
            # with a grid, legs are cached after the first configuration: only the first
            # configuration's latency includes the store
            "search_ms_p50": round(percentile(latencies, 50), 2),
            "search_ms_p95": round(percentile(latencies, 95), 2),
        }
    )
    return out


if __name__ == "__main__":
    main()
