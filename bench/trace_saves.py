"""Cost of storing a search trace under the retention bounds, as the history grows.

Usage::

    python bench/trace_saves.py [--stores postgres qdrant] [--traces 3000] [--retention 500]

A fresh store per kind (embedded PostgreSQL in a temp folder, Qdrant local mode), one tenant,
three clients (the tenant itself, a user, a user's agent) taking turns. ``--traces`` saves with
``trace_retention = --retention`` per client (so the bounds delete from the first third on)
and ``trace_retention_tenant = 2 * --retention``. Prints one JSON object: per store, p50/p95
(ms) of ``save_trace`` over the first and the last 10 % of the saves, and the traces kept.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_engine.config import Settings  # noqa: E402
from memory_engine.models import (  # noqa: E402
    MemorySource,
    MemoryType,
    Scope,
    Trace,
    TraceCandidate,
)
from memory_engine.stores import build_store  # noqa: E402


def _trace(scope: Scope, i: int) -> Trace:
    cands = [
        TraceCandidate(
            memory_id=uuid.uuid4(),
            content=f"记忆 {i} memory {j}",
            memory_type=MemoryType.EPISODIC,
            source=MemorySource.CONVERSATION,
            scores={"rrf": 0.03, "fused": 0.5},
            ranks={"dense": j + 1, "final": j + 1},
        )
        for j in range(10)
    ]
    return Trace(
        tenant_id=scope.tenant_id,
        scope=scope,
        query=f"query {i}",
        created_at=datetime(2026, 6, 1, tzinfo=UTC) + timedelta(seconds=i),
        candidates=cands,
        legs={"dense": cands},
    )


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return round(ordered[min(len(ordered) - 1, int(len(ordered) * q / 100))], 3)


def run(kind: str, base: Path, traces: int, retention: int) -> dict[str, Any]:
    values: dict[str, Any] = {
        "data_dir": base / kind,
        "trace_retention": retention,
        "trace_retention_tenant": 2 * retention,
        "trace_retention_days": 0,
    }
    if kind == "qdrant":
        values.update(store="qdrant", qdrant_path=str(base / "qdrant"), qdrant_url=None)
    else:
        values.update(store="postgres")
    store = build_store(Settings(_env_file=None, **values))  # type: ignore[call-arg]
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    clients = [
        Scope.of(tenant),
        Scope.of(tenant, user_id="alice"),
        Scope.of(tenant, user_id="alice", agent_id="bot"),
    ]
    ms: list[float] = []
    try:
        for i in range(traces):
            scope = clients[i % len(clients)]
            trace = _trace(scope, i)
            t0 = time.perf_counter()
            store.save_trace(trace, scope=Scope.of(tenant))
            ms.append((time.perf_counter() - t0) * 1000)
        kept = store.list_traces(scope=Scope.of(tenant), limit=1).total
    finally:
        store.close()
    tenth = max(1, traces // 10)
    return {
        "store": kind,
        "traces_saved": traces,
        "traces_kept": kept,
        "save_ms_p50_first_10pct": _pct(ms[:tenth], 50),
        "save_ms_p95_first_10pct": _pct(ms[:tenth], 95),
        "save_ms_p50_last_10pct": _pct(ms[-tenth:], 50),
        "save_ms_p95_last_10pct": _pct(ms[-tenth:], 95),
        "save_ms_mean": round(statistics.fmean(ms), 3),
    }


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--stores", nargs="+", choices=("postgres", "qdrant"), default=["qdrant"])
    ap.add_argument("--traces", type=int, default=3000)
    ap.add_argument("--retention", type=int, default=500)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="trace-saves-") as tmp:
        results = [run(kind, Path(tmp), args.traces, args.retention) for kind in args.stores]
    print(json.dumps({"configs": results}))


if __name__ == "__main__":
    main()
