"""Qdrant local mode (qdrant-client, pure Python): insert rate and filtered query latency.

Usage::

    python bench/qdrant_local.py [--sizes 1000 10000] [--tenants 10] [--queries 30]

For every size a fresh local store (on disk in a temp folder, and ``:memory:``) is filled with
``size`` synthetic memories spread over ``tenants`` tenants (random 384-d unit vectors, 12
keyword terms each), in batches of 100 through ``QdrantStore.insert`` (each memory = pending
event + point + commit mark). Prints one JSON object with, per (size, location): the insert
rate (memories/s), p50/p95 (ms) of ``dense_search`` and ``keyword_search`` (k=10, one tenant,
active only), of a ``list`` page (50, newest first, with total), and the reopen time (s).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_engine import Memory, Scope, Settings  # noqa: E402
from memory_engine.stores.base import NewMemory  # noqa: E402
from memory_engine.stores.qdrant.store import QdrantStore  # noqa: E402

DIM = 384
VOCAB = [f"topic{i}" for i in range(3000)]


def _ms(samples: list[float]) -> dict[str, float]:
    qs = statistics.quantiles(samples, n=20)
    return {"p50": round(statistics.median(samples) * 1000, 2), "p95": round(qs[18] * 1000, 2)}


def _unit(rng: np.random.Generator, n: int) -> np.ndarray:
    v = rng.normal(size=(n, DIM)).astype(np.float32)
    return v / np.linalg.norm(v, axis=1, keepdims=True)


def run(size: int, tenants: int, queries: int, location: str) -> dict[str, Any]:
    rng = np.random.default_rng(size)
    settings = Settings(  # type: ignore[call-arg]
        _env_file=None, store="qdrant", qdrant_path=location, qdrant_local_warn_points=10**9
    )
    store = QdrantStore(settings)
    store.ensure_embedding("bench-random-384", DIM)
    names = [f"bench-{i}" for i in range(tenants)]
    start = time.perf_counter()
    for first in range(0, size, 100):
        n = min(100, size - first)
        tenant = names[(first // 100) % tenants]
        vectors = _unit(rng, n)
        items = []
        for j in range(n):
            terms = tuple(VOCAB[int(x)] for x in rng.integers(0, len(VOCAB), 12))
            mem = Memory(tenant_id=tenant, content=" ".join(terms), content_hash=f"{first + j}")
            items.append(NewMemory(memory=mem, embedding=tuple(vectors[j].tolist()), terms=terms))
        store.insert(items, scope=Scope.of(tenant), actor="bench")
    insert_s = time.perf_counter() - start
    scope = Scope.of(names[0])
    dense, keyword, listing = [], [], []
    for _ in range(queries):
        q = _unit(rng, 1)[0]
        t0 = time.perf_counter()
        got = store.dense_search(q, scope=scope, k=10)
        dense.append(time.perf_counter() - t0)
        assert len(got) == 10
        t0 = time.perf_counter()
        store.keyword_search([VOCAB[int(rng.integers(0, 3000))], "topic1"], scope=scope, k=10)
        keyword.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        store.list(scope=scope, limit=50)
        listing.append(time.perf_counter() - t0)
    store.close()
    reopen_s = None
    if location != ":memory:":
        t0 = time.perf_counter()
        QdrantStore(settings).close()
        reopen_s = round(time.perf_counter() - t0, 2)
    return {
        "size": size,
        "tenants": tenants,
        "location": "memory" if location == ":memory:" else "disk",
        "insert_per_s": round(size / insert_s, 1),
        "dense_search_ms": _ms(dense),
        "keyword_search_ms": _ms(keyword),
        "list_page_ms": _ms(listing),
        "reopen_s": reopen_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--tenants", type=int, default=10)
    parser.add_argument("--queries", type=int, default=30)
    args = parser.parse_args()
    results = []
    for size in args.sizes:
        with tempfile.TemporaryDirectory(prefix="qdrant-bench-") as folder:
            results.append(run(size, args.tenants, args.queries, folder))
        results.append(run(size, args.tenants, args.queries, ":memory:"))
    print(json.dumps({"benchmark": "qdrant_local", "results": results}, indent=2))


if __name__ == "__main__":
    main()
