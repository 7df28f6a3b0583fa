"""Copy throughput of ``memory-engine copy``: PostgreSQL -> Qdrant local mode -> PostgreSQL.

Usage::

    python bench/copy_stores.py [--memories 5000] [--tenants 5] [--batch 200] [--dim 384]

Fills a fresh embedded PostgreSQL database with ``--memories`` synthetic memories (random unit
vectors, tokenized text) spread over ``--tenants`` tenants (``bulk_insert``; every 10th memory
updated once so there are update events too), copies every tenant to a fresh Qdrant local-mode
folder, then back into a second fresh database, and verifies each copy. Prints one JSON
object: per direction the copy rate (memory records/s, copy phase only), the copy and verify
wall times (s) and whether the verification passed. The embedded server is stopped and the
temp folder removed at the end.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_engine import Memory, Scope, Settings, text  # noqa: E402
from memory_engine.stores.base import MemoryStore, NewMemory  # noqa: E402
from memory_engine.stores.postgres.store import PostgresStore  # noqa: E402
from memory_engine.stores.qdrant.store import QdrantStore  # noqa: E402
from memory_engine.stores.transfer import copy_stores  # noqa: E402

WORDS = "tea hiking 北京 travel project codename falcon meeting budget 花生 过敏 deploy".split()


def _database(owner: str, base: Settings) -> Settings:
    import psycopg
    from psycopg.conninfo import make_conninfo

    name = f"bench_copy_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return base.model_copy(update={"database_url": SecretStr(make_conninfo(owner, dbname=name))})


def _fill(store: PostgresStore, memories: int, tenants: int, dim: int) -> None:
    rng = np.random.default_rng(7)
    store.ensure_embedding("bench-random", dim)
    per = memories // tenants
    for t in range(tenants):
        tenant = f"bench-copy-{t}"
        items = []
        for i in range(per):
            words = " ".join(rng.choice(WORDS, size=8))
            content = f"memory {i} of {tenant}: {words}"
            v = rng.normal(size=dim)
            items.append(
                NewMemory(
                    memory=Memory(tenant_id=tenant, content=content, content_hash=content),
                    embedding=tuple((v / np.linalg.norm(v)).tolist()),
                    terms=tuple(text.tokenize(content)),
                )
            )
        outcomes = store.bulk_insert(items, scope=Scope.of(tenant), actor="bench")
        s = Scope.of(tenant)
        for o in outcomes[::10]:
            store.update(
                o.memory_id, scope=s, expected_version=1, changes={"importance": 0.7}, actor="bench"
            )


def _direction(source: MemoryStore, target: MemoryStore, batch: int) -> dict[str, Any]:
    t0 = time.perf_counter()
    report = copy_stores(source, target, batch=batch, verify=False)
    copy_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    verified = copy_stores(source, target, batch=batch, verify=True)  # re-run: all unchanged
    verify_s = time.perf_counter() - t1
    return {
        "records": report["totals"]["copied"],
        "events": report["totals"]["events_copied"],
        "records_per_s": round(report["totals"]["copied"] / copy_s, 1),
        "copy_s": round(copy_s, 2),
        "rerun_and_verify_s": round(verify_s, 2),
        "rerun_unchanged": verified["totals"]["unchanged"],
        "verified": verified["ok"],
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--memories", type=int, default=5000)
    ap.add_argument("--tenants", type=int, default=5)
    ap.add_argument("--batch", type=int, default=200)
    ap.add_argument("--dim", type=int, default=384)
    args = ap.parse_args()
    from memory_engine.stores.postgres.embedded import (
        embedded_url,
        start_embedded_server,
        stop_embedded_server,
    )

    tmp = Path(tempfile.mkdtemp(prefix="copy-bench-"))
    data = tmp / "pg"
    base = Settings(_env_file=None, data_dir=data, list_max_limit=max(500, args.batch))  # type: ignore[call-arg]
    owner = embedded_url(start_embedded_server(data))
    stores: list[MemoryStore] = []
    try:
        source = PostgresStore(_database(owner, base))
        stores.append(source)
        t0 = time.perf_counter()
        _fill(source, args.memories, args.tenants, args.dim)
        fill_s = time.perf_counter() - t0
        qsettings = base.model_copy(update={"store": "qdrant", "qdrant_path": str(tmp / "qdrant")})
        qdrant = QdrantStore(qsettings)
        stores.append(qdrant)
        back = PostgresStore(_database(owner, base))
        stores.append(back)
        result = {
            "memories": args.memories,
            "tenants": args.tenants,
            "dim": args.dim,
            "batch": args.batch,
            "fill_s": round(fill_s, 2),
            "postgres_to_qdrant_local": _direction(source, qdrant, args.batch),
            "qdrant_local_to_postgres": _direction(qdrant, back, args.batch),
        }
    finally:
        for store in stores:
            store.close()
        stop_embedded_server(data)
        import shutil

        shutil.rmtree(tmp, ignore_errors=True)
    print(json.dumps(result))


if __name__ == "__main__":
    main()
