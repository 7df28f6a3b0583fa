"""Maintenance throughput on a synthetic tenant (embedded PostgreSQL), printed as one JSON object.

Usage::

    python bench/maintenance.py [--size 10000] [--archived 300] [--expired 200]

One tenant gets ``size`` active memories (importance uniform in [0, 1], created 0-365 days
ago, deterministic hashing embedder, ``bulk_insert``), plus ``archived`` archived memories last
touched 60-400 days ago (purge candidates) and ``expired`` active memories whose
``valid_until`` has passed. Then, with the default policy (``decay``, half-life 30 days, floor
0.05, bottom 20 %, purge after 30 days):

* ``plan_s``: a dry run (scan every active and archived memory, rank, plan);
* ``run_s``: the real run (fresh read + version-checked write per change; every purge is a
  verified purge: embed + erase + redact + index probes + proof event);
* ``changes_per_s`` and ``scanned_per_s``; ``per_action_ms``: mean time per applied change;
* ``asof_state_s``: rebuilding the whole tenant as of now from its events afterwards.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import numpy as np
from pydantic import SecretStr

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from latency import HashEmbedder, make_text  # noqa: E402

from memory_engine import Memory, MemoryEngine, MemoryStatus, Scope, Settings, text  # noqa: E402
from memory_engine.stores.base import NewMemory  # noqa: E402
from memory_engine.stores.postgres.store import PostgresStore  # noqa: E402


def _memory(
    tenant: str, content: str, emb: HashEmbedder, when: datetime, **fields: Any
) -> tuple[Memory, str]:
    return (
        Memory(
            tenant_id=tenant,
            content=content,
            content_hash=text.content_hash(content),
            embedding_model=emb.model_name,
            created_at=when,
            updated_at=when,
            **fields,
        ),
        content,
    )


def run(size: int, archived: int, expired: int, base: Path) -> dict[str, Any]:
    import psycopg
    from psycopg.conninfo import make_conninfo

    from memory_engine.stores.postgres.embedded import embedded_url, start_embedded_server

    owner = embedded_url(start_embedded_server(base))
    db = f"bench_maint_{uuid.uuid4().hex[:6]}"
    with psycopg.connect(owner, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{db}"')
    settings = Settings(data_dir=base, trace_retention=0).model_copy(
        update={"database_url": SecretStr(make_conninfo(owner, dbname=db))}
    )
    store = PostgresStore(settings)
    emb = HashEmbedder()
    store.ensure_embedding(emb.model_name, emb.dim)
    engine = MemoryEngine(settings, store=store, embedder=emb, leg_embedders={})
    rng = np.random.default_rng(11)
    now = datetime.now(UTC)
    tenant = "bench-maint"
    rows: list[tuple[Memory, str]] = []
    for i in range(size):
        when = now - timedelta(days=float(rng.uniform(0, 365)))
        rows.append(
            _memory(tenant, f"{make_text(rng)} #{i}", emb, when, importance=float(rng.uniform()))
        )
    for i in range(archived):
        when = now - timedelta(days=float(rng.uniform(60, 400)))
        rows.append(
            _memory(tenant, f"{make_text(rng)} a{i}", emb, when, status=MemoryStatus.ARCHIVED)
        )
    for i in range(expired):
        rows.append(
            _memory(
                tenant,
                f"{make_text(rng)} e{i}",
                emb,
                now - timedelta(days=2),
                importance=1.0,
                valid_until=now - timedelta(days=1),
            )
        )
    t0 = time.perf_counter()
    vecs = emb.embed([c for _, c in rows])
    items = [
        NewMemory(memory=m, embedding=tuple(v), terms=tuple(text.tokenize(c)))
        for (m, c), v in zip(rows, vecs, strict=True)
    ]
    list(store.bulk_insert(items, scope=Scope.of(tenant), actor="bench"))
    insert_s = time.perf_counter() - t0

    scope = Scope.of(tenant)
    t0 = time.perf_counter()
    dry = engine.maintain(scope, dry_run=True)
    plan_s = time.perf_counter() - t0
    t0 = time.perf_counter()
    real = engine.maintain(scope)
    run_s = time.perf_counter() - t0
    agree = [(c.memory_id, c.action) for c in dry.plan.changes] == [
        (c.memory_id, c.action) for c in real.plan.changes
    ]
    t0 = time.perf_counter()
    state = engine.state_as_of(scope, datetime.now(UTC))
    asof_s = time.perf_counter() - t0
    applied = sum(real.applied.values())
    proofs = [
        e.details.get("ok")
        for e in store.events(scope=scope, limit=500).items
        if e.action.value == "purge_proof"
    ]
    store.close()
    scanned = real.plan.scanned_active + real.plan.scanned_archived
    return {
        "size_active": size + expired,
        "size_archived": archived,
        "insert_s": round(insert_s, 2),
        "planned": real.plan.counts(),
        "applied": real.applied,
        "skipped": len(real.skipped),
        "dry_run_equals_real_plan": agree,
        "plan_s": round(plan_s, 3),
        "run_s": round(run_s, 3),
        "scanned_per_s_plan": round(scanned / plan_s, 1),
        "changes_per_s": round(applied / max(run_s - plan_s, 1e-9), 1),
        "per_change_ms": round(1000 * (run_s - plan_s) / max(applied, 1), 2),
        "purge_proofs_ok_in_last_500_events": f"{sum(1 for p in proofs if p)}/{len(proofs)}",
        "asof_state_s": round(asof_s, 3),
        "asof_state_memories": len(state),
        "policy": real.plan.policy.model_dump(mode="json"),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--size", type=int, default=10_000)
    ap.add_argument("--archived", type=int, default=300)
    ap.add_argument("--expired", type=int, default=200)
    args = ap.parse_args()
    from memory_engine.stores.postgres.embedded import stop_embedded_server

    with tempfile.TemporaryDirectory(prefix="maint-bench-") as tmp:
        base = Path(tmp) / "pg"
        try:
            print(json.dumps(run(args.size, args.archived, args.expired, base)))
        finally:
            stop_embedded_server(base)


if __name__ == "__main__":
    main()
