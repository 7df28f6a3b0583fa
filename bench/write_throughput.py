"""Write throughput (memories/s) of raw and extract (``rules`` LLM) modes on one store.

    python bench/write_throughput.py [--store postgres|qdrant] [--n 300]

Fresh store in a temp folder (embedded PostgreSQL, or Qdrant local mode), deterministic hashing
embedder (bench/latency.py, 384-d; no model download), one tenant. Inputs are short zh/en
sentences with a preference, a fact or chit-chat (1 in 5), all distinct. Measured, each on a
fresh tenant:

* ``raw_single``: ``engine.write(text)`` one by one (one transaction each);
* ``raw_batch``: ``engine.write_many`` of all inputs (embedding batches of 32);
* ``extract_rules``: ``engine.write(text, mode="extract")`` one by one: guard, rules
  extraction, embed, candidates (dense + keyword), rules judge, commit, journal + trail.
  The per-session rate limit is raised for this run (default 30/s would cap it);
* ``extract_queued``: ``write(..., wait=False)`` for all, then until the queue is drained.

Prints one JSON object: per mode the inputs, memories stored, seconds and memories/s (and
inputs/s).

``--bulk ROWS TENANTS`` (PostgreSQL) measures a bulk load instead: ROWS synthetic memories
(bench/latency.py's texts and hashing embedder) spread over TENANTS tenants of a fresh store,
``--bulk-mode per-tenant`` = one ``PostgresStore.bulk_insert`` per tenant, each into a store
already holding the tenants before it; ``one-load`` = one ``PostgresStore.bulk_load`` of every
tenant (one transaction; the HNSW index is rebuilt once). Prints rows, seconds, rows/s and
how many calls rebuilt the index.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from latency import VOCAB, HashEmbedder  # noqa: E402

from memory_engine import MemoryEngine, Scope, Settings, WriteRequest  # noqa: E402

ZH = ["我喜欢{x}", "我不喜欢{x}", "我对{x}过敏", "以后都用{x}回复我", "我住在{x}"]
EN = [
    "I like {x}",
    "I hate {x}",
    "I'm allergic to {x}",
    "Always use {x} in reports",
    "My {x} is blue",
]
CHAT = ["你好", "谢谢！", "ok", "Thanks a lot", "好的"]


def inputs(n: int) -> list[str]:
    out = []
    for i in range(n):
        if i % 5 == 4:
            out.append(CHAT[i % len(CHAT)])
        elif i % 2:
            out.append(ZH[i % len(ZH)].format(x=f"东西{i}号"))
        else:
            out.append(EN[i % len(EN)].format(x=f"thing{i}"))
    return out


def run(engine: MemoryEngine, mode: str, texts: list[str]) -> dict[str, Any]:
    scope = Scope.of(f"bench-{mode}-{uuid.uuid4().hex[:6]}")
    t0 = time.perf_counter()
    if mode == "raw_single":
        for t in texts:
            engine.write(scope, t)
    elif mode == "raw_batch":
        engine.write_many(scope, [WriteRequest(text=t) for t in texts])
    elif mode == "extract_rules":
        for t in texts:
            engine.write(scope, t, mode="extract")
    else:
        ids = [str(engine.write(scope, t, mode="extract", wait=False).write_id) for t in texts]
        engine.wait_for_writes(ids, scope, timeout=3600)
    seconds = time.perf_counter() - t0
    stored = engine.store.count(scope=scope)
    return {
        "inputs": len(texts),
        "memories": stored,
        "seconds": round(seconds, 3),
        "memories_per_s": round(stored / seconds, 1),
        "inputs_per_s": round(len(texts) / seconds, 1),
    }


def bulk(base: Path, rows: int, tenants: int, mode: str) -> dict[str, Any]:
    """Bulk-load ``rows`` memories into ``tenants`` tenants of a fresh PostgreSQL store."""
    import logging

    import numpy as np

    from memory_engine import text
    from memory_engine.models import Memory
    from memory_engine.stores.base import NewMemory
    from memory_engine.stores.postgres.store import PostgresStore

    settings = Settings(_env_file=None, data_dir=base / "pg", trace_retention=0)  # type: ignore[call-arg]
    store = PostgresStore(settings)
    emb = HashEmbedder()
    store.ensure_embedding(emb.model_name, emb.dim)
    rng = np.random.default_rng(7)
    per_tenant = rows // tenants
    rebuilt: list[str] = []

    class Counter(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            if "rebuilt" in record.getMessage():
                rebuilt.append(record.getMessage())

    log = logging.getLogger("memory_engine.stores.postgres.store")
    log.setLevel(logging.INFO)
    log.addHandler(Counter())

    vocab = np.asarray(VOCAB)

    def make_text() -> str:  # bench/latency.py's texts, ~50x faster to draw
        return "note about " + " ".join(vocab[rng.integers(0, len(vocab), rng.integers(8, 16))])

    def items(tenant: str) -> Any:
        for start in range(0, per_tenant, 500):
            texts = [make_text() for _ in range(min(500, per_tenant - start))]
            for tx, v in zip(texts, emb.embed(texts), strict=True):
                memory = Memory(
                    tenant_id=tenant,
                    content=tx,
                    content_hash=text.content_hash(tx),
                    embedding_model=emb.model_name,
                )
                yield NewMemory(memory=memory, embedding=tuple(v), terms=tuple(text.tokenize(tx)))

    names = [f"bulk-t{i}" for i in range(tenants)]
    t0 = time.perf_counter()
    try:
        if mode == "per-tenant":
            created = sum(
                o.status == "created"
                for t in names
                for o in store.bulk_insert(items(t), scope=Scope.of(t), actor="bench")
            )
        else:
            created = sum(
                o.status == "created"
                for batch in store.bulk_load(
                    ((Scope.of(t), items(t)) for t in names), actor="bench"
                )
                for o in batch
            )
        seconds = time.perf_counter() - t0
    finally:
        store.close()
    return {
        "mode": mode,
        "rows": rows,
        "tenants": tenants,
        "created": created,
        "seconds": round(seconds, 1),
        "rows_per_s": round(created / seconds, 1),
        "index_rebuilds": len(rebuilt),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", choices=("postgres", "qdrant"), default="postgres")
    parser.add_argument("--n", type=int, default=300)
    parser.add_argument("--bulk", nargs=2, type=int, metavar=("ROWS", "TENANTS"))
    parser.add_argument("--bulk-mode", choices=("per-tenant", "one-load"), default="one-load")
    args = parser.parse_args()
    base = Path(tempfile.mkdtemp(prefix="write-bench-"))
    if args.bulk:
        from memory_engine.stores.postgres.embedded import stop_embedded_server

        try:
            result = bulk(base, args.bulk[0], args.bulk[1], args.bulk_mode)
        finally:
            stop_embedded_server(base / "pg")
            shutil.rmtree(base, ignore_errors=True)
        print(json.dumps(result, indent=2))
        return
    values: dict[str, Any] = {
        "data_dir": base / "pg",
        "write_queue_path": base / "journal.sqlite3",
        "write_rate_per_session": 1e6,
        "trace_retention": 0,
    }
    if args.store == "qdrant":
        values.update(store="qdrant", qdrant_path=str(base / "qdrant"))
    settings = Settings(_env_file=None, **values)  # type: ignore[call-arg]
    engine = MemoryEngine(settings, embedder=HashEmbedder(), leg_embedders={})  # type: ignore[arg-type]
    texts = inputs(args.n)
    out: dict[str, Any] = {"store": args.store, "n": args.n, "llm": "rules", "modes": {}}
    try:
        engine.write(Scope.of("bench-warmup"), "warm up the pool and the embedding check")
        for mode in ("raw_single", "raw_batch", "extract_rules", "extract_queued"):
            out["modes"][mode] = run(engine, mode, texts)
    finally:
        engine.close()
        if args.store == "postgres":
            from memory_engine.stores.postgres.embedded import stop_embedded_server

            stop_embedded_server(base / "pg")
        shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
