"""Search latency on synthetic stores, compared with the exact numpy brute-force floor.

Usage::

    python bench/latency.py [--sizes 10000 100000] [--tenants 1 100] [--queries 200]
        [--warmup 50] [--multilingual-leg] [--load per-tenant|one-load]
        [--index-build-memory-mb 1024]

For every (size, tenants) pair a fresh database is filled with ``size`` synthetic memories
spread evenly over ``tenants`` tenants (deterministic hashing embedder, 384-d, so no model
download and no GPU; with ``--multilingual-leg`` also the second dense leg of the default
engine, 512-d synthetic vectors written by the server, see ``fill_leg_directly``). Prints one JSON object with, per configuration, p50/p95 (ms) of:

* ``store_hybrid``: store-level dense + keyword legs (k = 50 each, run concurrently on two
  pooled connections, as the engine runs them) and RRF fusion;
* ``store_sequential``: the same two legs one after the other (their summed cost);
* ``engine_search``: end-to-end ``MemoryEngine.search`` (embed, both legs, fuse, budget, block;
  trace not stored);
* ``numpy_floor``: exact top-10 by dot product over the same tenant's vectors in numpy;
* ``rows_returned_min``: the fewest dense rows any query got (must equal min(k, rows));
and the insert rate (rows/s, including text generation and embedding) of one
``PostgresStore.bulk_insert`` per tenant, with how many of them rebuilt the HNSW index.
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import json
import logging
import os
import statistics
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import SecretStr
from tqdm import tqdm

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_engine import Memory, MemoryEngine, Scope, Settings, text  # noqa: E402
from memory_engine.retrieval.fusion import rrf_fuse  # noqa: E402
from memory_engine.stores.base import NewMemory  # noqa: E402
from memory_engine.stores.postgres.store import PostgresStore  # noqa: E402

DIM = 384
VOCAB = [f"topic{i}" for i in range(3000)]


class HashEmbedder:
    """Deterministic bag-of-words hashing embedder (benchmark only): unit vectors, 384-d."""

    model_name = "bench-hash-384"
    dim = DIM
    max_input_chars = 10_000

    def __init__(self, dim: int = DIM, salt: str = "") -> None:
        self.dim, self.salt = dim, salt
        if dim != DIM or salt:
            self.model_name = f"bench-hash-{dim}{salt}"

    def embed(self, texts: list[str]) -> list[list[float]]:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in t.lower().split():
                word = (self.salt + w).encode()
                h = int.from_bytes(hashlib.blake2b(word, digest_size=8).digest(), "little")
                out[i, h % self.dim] += 1.0 if (h >> 20) & 1 else -1.0
        out /= np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)
        return out.tolist()


class _RebuildCounter(logging.Handler):
    """Counts bulk imports that rebuilt the HNSW index (from the store's INFO log)."""

    def __init__(self) -> None:
        super().__init__(logging.INFO)
        self.count = 0

    def emit(self, record: logging.LogRecord) -> None:
        if "HNSW index rebuilt" in record.getMessage():
            self.count += 1


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))], 3)


def make_text(rng: np.random.Generator) -> str:
    words = rng.choice(VOCAB, size=int(rng.integers(8, 16)))
    return "note about " + " ".join(words)


def run_config(
    size: int,
    tenants: int,
    queries: int,
    base: Path,
    rng: np.random.Generator,
    warmup: int = 0,
    series: list[dict[str, Any]] | None = None,
    second_leg: bool = False,
    server_url: str | None = None,
    load: str = "per-tenant",
    build_memory_mb: int = 1024,
) -> dict[str, Any]:
    # gc_freeze as in the MCP server and the dashboard (long-running processes); the library
    # default is off (see memory_engine.retrieval.gcfreeze)
    settings = Settings(
        data_dir=base,
        trace_retention=0,
        token_budget=0,
        record_access=False,
        gc_freeze=True,
        index_build_memory_mb=build_memory_mb,
    )
    db = f"bench_{size}_{tenants}_{uuid.uuid4().hex[:6]}"
    import psycopg
    from psycopg.conninfo import make_conninfo

    from memory_engine.stores.postgres.embedded import embedded_url, start_embedded_server

    # a separate server's owner login (CREATEDB), or the embedded server in ``base``
    owner = server_url or embedded_url(start_embedded_server(base))
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    settings = settings.model_copy(
        update={"database_url": SecretStr(make_conninfo(owner, dbname=db))}
    )
    store = PostgresStore(settings)
    emb = HashEmbedder()
    # the multilingual leg: a second hashing embedder of USE-m3's size, in its own column/index
    emb2 = HashEmbedder(512, salt="ml:") if second_leg else None
    if emb2 is not None:
        store.legs.ensure_leg("dense_ml", emb2.model_name, emb2.dim)
    store.ensure_embedding(emb.model_name, emb.dim)
    tenant_ids = [f"bench-t{i}" for i in range(tenants)]
    per_tenant = size // tenants
    vectors: dict[str, list[np.ndarray]] = {t: [] for t in tenant_ids}
    inserted = 0
    t0 = time.perf_counter()
    batch = 1000
    rebuilds = _RebuildCounter()
    store_log = logging.getLogger("memory_engine.stores.postgres.store")
    store_log.setLevel(logging.INFO)  # no handler prints INFO; the counter sees it
    store_log.addHandler(rebuilds)
    legs_in_rows = emb2 is not None and load == "one-load"
    leg_rng = np.random.default_rng(7)

    def ml_vectors(n: int) -> np.ndarray:
        m = leg_rng.standard_normal((n, 512)).astype(np.float32)
        return m / np.linalg.norm(m, axis=1, keepdims=True)

    with tqdm(total=size, desc=f"insert {size}/{tenants}", file=sys.stderr) as bar:

        def items_for(t: str) -> Iterator[NewMemory]:
            for start in range(0, per_tenant, batch):
                n = min(batch, per_tenant - start)
                texts = [make_text(rng) for _ in range(n)]
                vecs = emb.embed(texts)
                vectors[t].extend(np.asarray(v, dtype=np.float32) for v in vecs)
                # one-load: the leg's synthetic vectors travel in the rows (one index build)
                ml = ml_vectors(n) if legs_in_rows else None
                for j, (tx, v) in enumerate(zip(texts, vecs, strict=True)):
                    yield NewMemory(
                        memory=Memory(
                            tenant_id=t,
                            content=tx,
                            content_hash=text.content_hash(tx),
                            embedding_model=emb.model_name,
                        ),
                        embedding=tuple(v),
                        terms=tuple(text.tokenize(tx)),
                        legs={"dense_ml": tuple(ml[j].tolist())} if ml is not None else {},
                    )
                bar.update(n)

        if load == "one-load":  # every tenant in one bulk_load: one HNSW rebuild in all
            batches = ((Scope.of(t), items_for(t)) for t in tenant_ids)
            for outcomes in store.bulk_load(batches, actor="bench"):
                inserted += sum(out.memory_id is not None for out in outcomes)
        else:
            for t in tenant_ids:  # one bulk import per tenant (the ingest path)
                for out in store.bulk_insert(items_for(t), scope=Scope.of(t), actor="bench"):
                    inserted += out.memory_id is not None
    load_s = time.perf_counter() - t0
    leg_fill_s = 0.0
    if emb2 is not None and not legs_in_rows:
        t1 = time.perf_counter()
        fill_leg_directly(
            make_conninfo(owner, dbname=db),
            "embedding_ml",
            emb2.dim,
            seed=7,
            tenants=tenant_ids,
            rows=inserted,
            build_memory=f"{build_memory_mb}MB",
        )
        leg_fill_s = time.perf_counter() - t1
    store_log.removeHandler(rebuilds)
    insert_s = time.perf_counter() - t0
    mats = {t: np.vstack(v) for t, v in vectors.items()}
    # Keep no per-row Python objects around: the garbage collector's full collections scan
    # every tracked object, and 100k of them (ids, per-row arrays) cost the timed searches
    # 20-35 ms pauses every half second in the 100k x 100 run.
    vectors.clear()
    gc.collect()

    engine = MemoryEngine(
        settings,
        store=store,
        embedder=emb,
        leg_embedders={"dense_ml": emb2} if emb2 is not None else {},
    )
    store_ms: list[float] = []
    seq_ms: list[float] = []
    legs_pool = ThreadPoolExecutor(2)
    engine_ms: list[float] = []
    floor_ms: list[float] = []
    floor_queries: list[tuple[str, np.ndarray]] = []
    min_rows = 10**9
    for _ in range(warmup):  # untimed: pages of the fresh index move into shared buffers
        t = tenant_ids[int(rng.integers(0, tenants))]
        engine.search(Scope.of(t), make_text(rng), k=10, save_trace=False)

    def draw() -> tuple[Scope, str, np.ndarray, list[str], str]:
        t = tenant_ids[int(rng.integers(0, tenants))]
        q = make_text(rng)
        qv = np.asarray(emb.embed([q])[0], dtype=np.float32)
        return Scope.of(t), q, qv, text.query_terms(q), t

    # Every timed search gets its own fresh query: a query repeated right after another
    # measurement finds its index pages in the CPU caches and would flatter whichever
    # measurement comes second (about 10-15 % here).
    timed_start = time.perf_counter()
    starts = [0.0, 0.0, 0.0]
    for _ in tqdm(range(queries), desc="queries", file=sys.stderr):
        scope, q, qv, terms, t = draw()
        s0 = starts[0] = time.perf_counter()
        dense_f = legs_pool.submit(store.dense_search, qv.tolist(), scope=scope, k=50)
        kw_f = legs_pool.submit(store.keyword_search, terms, scope=scope, k=50)
        dense = dense_f.result()
        rrf_fuse({"dense": dense, "keyword": kw_f.result()})
        store_ms.append((time.perf_counter() - s0) * 1000)
        min_rows = min(min_rows, len(dense))
        floor_queries.append((t, qv))
        scope, q, qv, terms, t = draw()
        s0 = starts[1] = time.perf_counter()
        dense = store.dense_search(qv.tolist(), scope=scope, k=50)
        kw = store.keyword_search(terms, scope=scope, k=50)
        rrf_fuse({"dense": dense, "keyword": kw})
        seq_ms.append((time.perf_counter() - s0) * 1000)
        min_rows = min(min_rows, len(dense))
        scope, q, qv, terms, t = draw()
        s0 = starts[2] = time.perf_counter()
        engine.search(scope, q, k=10, save_trace=False)
        engine_ms.append((time.perf_counter() - s0) * 1000)
        if series is not None:
            for kind, values, start in (
                ("store_hybrid", store_ms, starts[0]),
                ("store_sequential", seq_ms, starts[1]),
                ("engine_search", engine_ms, starts[2]),
            ):
                series.append(
                    {
                        "size": size,
                        "tenants": tenants,
                        "kind": kind,
                        "at_s": round(start - timed_start, 3),
                        "ms": round(values[-1], 3),
                    }
                )
    legs_pool.shutdown()
    store.close()
    # The floor runs after every search: its matrix product runs on OpenBLAS threads, which
    # keep spinning for a while after each call and took a core from the searches that followed
    # (store hybrid p50 9-10 ms became 14-19 ms when interleaved).
    for t, qv in floor_queries:
        s0 = time.perf_counter()
        scores = mats[t] @ qv
        top = np.argpartition(-scores, min(10, len(scores) - 1))[:10]
        top[np.argsort(-scores[top])]
        floor_ms.append((time.perf_counter() - s0) * 1000)
    return {
        "size": size,
        "tenants": tenants,
        "rows_per_tenant": per_tenant,
        "rows_inserted": inserted,
        "warmup_queries": warmup,
        "insert_rows_per_s": round(size / insert_s, 1),
        "insert_path": "PostgresStore.bulk_load, every tenant in one call"
        if load == "one-load"
        else "PostgresStore.bulk_insert, one call per tenant",
        "load_s": round(load_s, 1),
        "index_build_memory_mb": build_memory_mb,
        "insert_hnsw_rebuilds": rebuilds.count,
        "multilingual_leg": emb2 is not None,
        "multilingual_leg_fill": None
        if emb2 is None
        else "synthetic unit vectors in the loaded rows"
        if legs_in_rows
        else "synthetic unit vectors, one UPDATE, HNSW rebuilt",
        "multilingual_leg_fill_s": round(leg_fill_s, 1),
        "store_hybrid_ms_p50": pct(store_ms, 50),
        "store_hybrid_ms_p95": pct(store_ms, 95),
        "store_sequential_ms_p50": pct(seq_ms, 50),
        "store_sequential_ms_p95": pct(seq_ms, 95),
        "engine_search_ms_p50": pct(engine_ms, 50),
        "engine_search_ms_p95": pct(engine_ms, 95),
        "numpy_floor_ms_p50": pct(floor_ms, 50),
        "numpy_floor_ms_p95": pct(floor_ms, 95),
        "ratio_store_to_floor_p50": round(
            statistics.median(store_ms) / max(statistics.median(floor_ms), 1e-6), 1
        ),
        "dense_rows_returned_min": min_rows,
        "dense_rows_expected": min(50, per_tenant),
    }


def fill_leg_directly(
    dsn: str,
    column: str,
    dim: int,
    *,
    seed: int,
    tenants: list[str],
    rows: int,
    build_memory: str = "1GB",
) -> int:
    """Give every row of ``memories`` a synthetic unit vector in the leg column ``column``.

    Latency only needs the second leg's column and HNSW index filled to size, not meaningful
    vectors; embedding 100k texts and writing them batch by batch (each UPDATE re-inserts
    the row into both HNSW indexes) took over 9 minutes. Here, as the owner: drop the HNSW
    indexes of ``memories``, fill the column with random unit vectors in one UPDATE
    (generated by the server), rebuild the indexes from their own definitions with
    ``maintenance_work_mem = build_memory`` (as a bulk import does), VACUUM ANALYZE.

    Args:
        dsn: owner connection string of the benchmark database.
        column: the leg's vector column (``embedding_ml``).
        dim: the leg's dimension.
        seed: seed of the server's ``random()`` (reproducible runs).
        tenants: the tenant ids to fill, one UPDATE each under its ``app.tenant_id``: the
            row-level security of ``memories`` is forced, so an owner login that is not a
            superuser (a separate server) sees no row without it.
        rows: rows the store holds; fewer filled raises.

    Returns:
        Rows filled.

    Raises:
        RuntimeError: fewer than ``rows`` rows were filled (the leg would be searched empty).
    """
    import psycopg
    from psycopg import sql

    with psycopg.connect(dsn, autocommit=True) as conn:
        hnsw = conn.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memories' "
            "AND indexdef ILIKE '% USING hnsw %'"
        ).fetchall()
        for name, _ in hnsw:
            conn.execute(sql.SQL("DROP INDEX {}").format(sql.Identifier(name)))
        conn.execute("SELECT setseed(%s)", [(seed % 1000) / 1000])
        update = sql.SQL(
            "UPDATE memories SET {col} = l2_normalize((SELECT array_agg(random() - 0.5) "
            "FROM generate_series(1, {dim}) WHERE memories.id IS NOT NULL)::vector({dim})) "
            "WHERE {col} IS NULL AND tenant_id = %s"
        ).format(col=sql.Identifier(column), dim=sql.Literal(dim))
        filled = 0
        for tenant in tenants:
            conn.execute("SELECT set_config('app.tenant_id', %s, false)", [tenant])
            filled += conn.execute(update, [tenant]).rowcount
        if filled < rows:
            raise RuntimeError(f"{column}: {filled} of {rows} rows filled")
        conn.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(build_memory)))
        for _, definition in hnsw:
            conn.execute(definition)
        conn.execute("VACUUM ANALYZE memories")
    return filled


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000, 100_000])
    ap.add_argument("--tenants", nargs="+", type=int, default=[1, 100])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument(
        "--warmup", type=int, default=50, help="untimed engine searches before the timed ones"
    )
    ap.add_argument("--data-dir", type=Path, help="embedded PostgreSQL folder (default: temp dir)")
    ap.add_argument(
        "--series",
        type=Path,
        help="also write every timed query (size, tenants, kind, at_s, ms) to this JSON Lines file",
    )
    ap.add_argument(
        "--multilingual-leg",
        action="store_true",
        help="also store and search a second dense leg (dense_ml, 512-d, in its own column and "
        "HNSW index), as the default engine does with USE-m3: stored vectors are synthetic "
        "(see fill_leg_directly), queries are embedded by a 512-d hashing embedder",
    )
    ap.add_argument(
        "--load",
        choices=("per-tenant", "one-load"),
        default="per-tenant",
        help="per-tenant: one PostgresStore.bulk_insert per tenant (the ingest path); one-load: "
        "one PostgresStore.bulk_load of every tenant (one HNSW rebuild; for 1M-row stores)",
    )
    ap.add_argument(
        "--index-build-memory-mb",
        type=int,
        default=1024,
        help="MEMORY_INDEX_BUILD_MEMORY_MB of the load's HNSW rebuild (1M rows want about 3000)",
    )
    ap.add_argument(
        "--database-url",
        default=os.environ.get("MEMORY_DATABASE_URL"),
        help="owner login of a separate PostgreSQL server with pgvector (needs CREATEDB; each "
        "configuration gets a new database); default: MEMORY_DATABASE_URL, else the embedded server",
    )
    args = ap.parse_args()
    series: list[dict[str, Any]] | None = [] if args.series else None
    rng = np.random.default_rng(7)
    tmp = tempfile.TemporaryDirectory(prefix="latency-bench-") if args.data_dir is None else None
    base = Path(tmp.name) if tmp else args.data_dir
    results = [
        run_config(
            size,
            t,
            args.queries,
            base,
            rng,
            args.warmup,
            series,
            args.multilingual_leg,
            server_url=args.database_url,
            load=args.load,
            build_memory_mb=args.index_build_memory_mb,
        )
        for size in args.sizes
        for t in args.tenants
    ]
    print(json.dumps({"configs": results, "k": 10, "candidates_per_leg": 50, "dim": DIM}))
    if args.series and series is not None:
        args.series.write_text("".join(json.dumps(row) + "\n" for row in series))
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
