"""MADial-Bench memory recall benchmark (Chinese or English; He et al., NAACL 2025).

Usage::

    python bench/madial.py --data ../shared/data/madial_bench --lang zh [--users dev|all|1 2]
        [--embedder minilm|use_m3] [--set fusion=zscore] [--grid g.json]

One tenant per user (``madial-<lang>-u<user>``); each memory is written as one episodic memory:
content = ``event``, ``observed_at`` = ``time``, ``source_ref`` = the memory id. The candidates
of a dialogue are therefore exactly the memories of its user. Query = the dialogue lines before
the first ``test-turn`` (``<BOD>`` excluded), one per line as ``Name: utterance``.

Metrics, in percent, averaged over dialogues: ``r@k`` (k = 1, 3, 5, 10) = fraction of the
dialogue's ``relevant-id`` found in the top k; ``mrr@10`` = 1 / rank of the first relevant
memory (0 when none in the top 10); ``ndcg@10`` with binary gains and the ideal ranking of
min(|relevant|, 10) hits. With no option it measures the engine's default configuration and
prints one JSON object per configuration: the figures over all dialogues, under ``per_split``
for ``dev``, ``heldout`` and ``all``, and under ``no_answer`` the false recall of the no-answer
set (each user's memories against the other users' dialogues, with the default block).

The files are JSON Lines despite the ``.json`` extension; the English memory file has no
``user-id``, so it is taken from the Chinese memory with the same id. Data is MIT licensed:
pass its folder; never copy it into the repository. Tune only on the development split
(user 1); report user 2 (held out) separately.
"""

from __future__ import annotations

import argparse
import json
import math
import re
import statistics
import sys
import tempfile
import time
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
from memory_engine.models import MemorySource  # noqa: E402
from memory_engine.stores import build_store  # noqa: E402
from memory_engine.write.ingest import parse_time  # noqa: E402
from memory_engine.write.raw import WriteRequest  # noqa: E402

KS = (1, 3, 5, 10)
DEV_USERS = (1,)
_LINE_RE = re.compile(r'^\s*<([^>]+)>\s*:\s*"?(.*?)"?\s*$', re.S)


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    """One JSON object per non-blank line."""
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def load(data: Path, lang: str) -> tuple[dict[str, dict[str, Any]], list[dict[str, Any]]]:
    """(memory id -> memory with ``user-id``, dialogues) for ``lang``."""
    zh_users = {
        mid: int(m["user-id"])
        for row in read_jsonl(data / "MADial-Bench-zh-memory.json")
        for mid, m in row.items()
    }
    memories: dict[str, dict[str, Any]] = {}
    for row in read_jsonl(data / f"MADial-Bench-{lang}-memory.json"):
        for mid, m in row.items():
            memories[mid] = {**m, "user-id": int(m.get("user-id", zh_users[mid]))}
    return memories, read_jsonl(data / f"MADial-Bench-{lang}-dialogue.json")


def dialogue_lines(dialogue: dict[str, Any]) -> list[str]:
    """The lines before the first test turn, as ``Name: utterance``."""
    first = min(dialogue["test-turn"])
    lines = []
    for raw in dialogue["dialogue"][1:first]:
        m = _LINE_RE.match(raw.strip())
        lines.append(f"{m.group(1)}: {m.group(2).strip()}" if m else raw.strip())
    return [line for line in lines if line]


def dialogue_query(dialogue: dict[str, Any], mode: str = "joined") -> tuple[str, list[str]]:
    """(query, recent_turns): ``joined`` = all lines as one query; ``turns`` = the last line
    as the query and the earlier lines as recent turns (the engine's composite query)."""
    lines = dialogue_lines(dialogue)
    if mode == "turns" and len(lines) > 1:
        return lines[-1], lines[:-1]
    return "\n".join(lines), []


def metrics(ranked: list[str], gold: set[str]) -> dict[str, float]:
    """r@k, mrr@10, ndcg@10 of one ranking (fractions, not percent)."""
    out = {f"r@{k}": len(set(ranked[:k]) & gold) / len(gold) for k in KS}
    first = next((i for i, r in enumerate(ranked[:10], start=1) if r in gold), None)
    out["mrr@10"] = 1.0 / first if first else 0.0
    dcg = sum(1.0 / math.log2(i + 1) for i, r in enumerate(ranked[:10], start=1) if r in gold)
    ideal = sum(1.0 / math.log2(i + 1) for i in range(1, min(len(gold), 10) + 1))
    out["ndcg@10"] = dcg / ideal
    return out


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--data", required=True, type=Path, help="folder of the MADial-Bench files")
    ap.add_argument("--lang", choices=["zh", "en"], default="zh")
    ap.add_argument(
        "--users", nargs="*", default=["all"], help="user ids, 'dev' (user 1), 'heldout' or 'all'"
    )
    ap.add_argument(
        "--data-dir", type=Path, help="embedded PostgreSQL folder (default: a temp dir)"
    )
    ap.add_argument(
        "--query-mode",
        choices=["joined", "turns"],
        default="joined",
        help="joined: the lines as one query; turns: last line + recent_turns",
    )
    add_common_args(ap)
    args = ap.parse_args()
    configs = configurations(args)

    memories, dialogues = load(args.data, args.lang)
    all_users = sorted({m["user-id"] for m in memories.values()})
    if args.users == ["all"]:
        users = all_users
    elif args.users == ["dev"]:
        users = list(DEV_USERS)
    elif args.users == ["heldout"]:
        users = [u for u in all_users if u not in DEV_USERS]
    else:
        users = [int(u) for u in args.users]

    tmp = None
    data_dir = args.data_dir
    if data_dir is None:
        tmp = tempfile.TemporaryDirectory(prefix="madial-bench-")
        data_dir = Path(tmp.name)
    settings = Settings(data_dir=data_dir, trace_retention=0, **settings_args(args))
    store = CachingStore(build_store(settings))
    engine = MemoryEngine(
        settings,
        store=store,  # type: ignore[arg-type]
        embedder=CachingEmbedder(build_embedder(settings)),
        leg_embedders=leg_embedders(args, settings),
    )
    dump = Dump(args.dump, store.source_ref)

    t0 = time.perf_counter()
    for user in users:
        scope = Scope.of(f"madial-{args.lang}-u{user}")
        if engine.store.count(scope=scope) == 0:
            requests = [
                WriteRequest(
                    text=m["event"],
                    source=MemorySource.IMPORT,
                    source_ref=mid,
                    observed_at=parse_time(m.get("time")),
                    metadata={"scene": m.get("scene"), "emotion": m.get("emotion")},
                )
                for mid, m in memories.items()
                if m["user-id"] == user
            ]
            results = engine.write_many(scope, requests, reason="madial bench")
            failed = [r.error for r in results if not r.ok]
            if failed:
                raise SystemExit(f"ingest failed: {failed[:3]}")
    ingest_s = time.perf_counter() - t0

    cases = [d for d in dialogues if int(d["user-id"]) in users]
    prefill_queries(engine, [dialogue_query(d, args.query_mode)[0] for d in cases])
    for label, measured, overrides in measurements(engine, args, configs):
        with calibrated_floors(overrides) as chosen:
            options = measured.search_options(**(recall_params(args, max(KS)) | chosen))
            out, latencies = recall_figures(measured, cases, options, args, dump)
            if args.no_answer >= 0:
                out["no_answer"] = engine_no_answer(
                    measured,
                    chosen,
                    {
                        str(u): [dialogue_query(d)[0] for d in cases if int(d["user-id"]) == u]
                        for u in users
                    },
                    scope_of=lambda u: Scope.of(f"madial-{args.lang}-u{u}"),
                    per_tenant=args.no_answer,
                    split_of=lambda u: "dev" if int(u) in DEV_USERS else "heldout",
                    dump=dump,
                )
        out.update(
            {
                "dialogues": len(cases),
                "users": users,
                "lang": args.lang,
                "memories": sum(1 for m in memories.values() if m["user-id"] in users),
                "embedder": engine.embedder.model_name,
                "multilingual": label,
                "legs": list(options.legs),
                "candidates_per_leg": options.candidates_per_leg,
                "options": overrides,
                "query_mode": args.query_mode,
                "ingest_s": round(ingest_s, 1),
                "search_ms_p50": round(statistics.median(latencies), 2) if latencies else 0.0,
            }
        )
        print(json.dumps(out, ensure_ascii=False), flush=True)
    dump.close()
    engine.close()
    if tmp:
        from memory_engine.stores.postgres.embedded import stop_embedded_server

        stop_embedded_server(data_dir)
        tmp.cleanup()


def recall_figures(
    engine: MemoryEngine,
    cases: list[dict[str, Any]],
    options: Any,
    args: argparse.Namespace,
    dump: Dump,
) -> tuple[dict[str, Any], list[float]]:
    """Search every dialogue of ``cases`` with ``options``; returns (the figures in percent
    with ``per_split``, the search latencies in ms)."""
    per: dict[str, list[float]] = {}
    per_split: dict[str, dict[str, list[float]]] = {}
    latencies = []
    for d in tqdm(cases, desc="dialogues", file=sys.stderr):
        scope = Scope.of(f"madial-{args.lang}-u{int(d['user-id'])}")
        t = time.perf_counter()
        query, turns = dialogue_query(d, args.query_mode)
        opts = options.model_copy(update={"recent_turns": tuple(turns)}) if turns else options
        res = engine.search(scope, query, options=opts, save_trace=False)
        latencies.append((time.perf_counter() - t) * 1000)
        ranked = [c.memory.source_ref or "" for c in res.memories]
        gold = {str(r) for r in d["relevant-id"]}
        dump.write("recall", str(d["user-id"]), query, res, gold)
        for name, value in metrics(ranked, gold).items():
            per.setdefault(name, []).append(value)
            split = "dev" if int(d["user-id"]) in DEV_USERS else "heldout"
            per_split.setdefault(split, {}).setdefault(name, []).append(value)
            per_split.setdefault("all", {}).setdefault(name, []).append(value)
    out: dict[str, Any] = {name: round(100 * statistics.fmean(v), 2) for name, v in per.items()}
    out["per_split"] = {
        split: {name: round(100 * statistics.fmean(v), 2) for name, v in m.items()}
        | {"n": len(next(iter(m.values())))}
        for split, m in sorted(per_split.items())
    }
    return out, latencies


if __name__ == "__main__":
    main()
