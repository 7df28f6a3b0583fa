"""Short concurrency torture on both stores: writers, version-checked editors, lifecycle
maintenance and consolidation at once; accepted = stored (or its change explained by an event),
no duplicates, no lost updates, every conflict a VersionConflict.

The long run is ``bench/soak.py`` (prints JSON); this one uses the same runner, smaller.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from bench.soak import run_soak
from memory_engine import MemoryEngine


@pytest.fixture(params=["postgres", "qdrant"])
def soak_engine(
    request: pytest.FixtureRequest,
    tmp_path: Path,
    pg_settings_factory: Callable[..., Any],
    qdrant_settings_factory: Callable[..., Any],
) -> Iterator[MemoryEngine]:
    """A fresh engine (offline MiniLM, rules LLM) on a new database / Qdrant folder, with its
    write journal in this test's tmp folder."""
    journal = {"write_queue_path": tmp_path / "journal.sqlite3"}
    if request.param == "postgres":
        settings = pg_settings_factory(**journal)
    else:
        settings = qdrant_settings_factory("qdrant_path", **journal)
    engine = MemoryEngine(settings)
    yield engine
    engine.close()


def _assert_invariants(report: dict[str, Any], *, writers: int, writes: int) -> None:
    assert report["untyped_errors"] == [], report
    assert report["typed_errors"] == {}, report
    assert report["acked_writes"] == writers * writes, report
    assert report["lost_writes"] == 0, report
    assert report["unexplained_changes"] == 0, report
    assert report["phantom_rows"] == 0, report
    assert report["duplicates"] == 0, report
    assert report["lost_updates"] == 0, report


def test_writers_and_editors_alone_lose_nothing(soak_engine: MemoryEngine) -> None:
    report = run_soak(
        soak_engine,
        writers=8,
        writes=12,
        editors=2,
        edits=15,
        overlap=0.5,
        maintenance=False,
        consolidation=False,
    )
    _assert_invariants(report, writers=8, writes=12)
    # Shared texts collide by construction: half of each writer's texts are its pair's too,
    # so 8 x 6 own + 4 pairs x 6 shared rows; every other write is acknowledged a duplicate.
    assert report["created_acks"] == report["stored_rows"] == 8 * 6 + 4 * 6
    assert report["created_acks"] + report["duplicate_acks"] == 8 * 12
    assert report["updates_acked"] + report["conflicts"] == 2 * 15
    assert report["updates_acked"] > 0
    assert report["final_status"] == {"active": 8 * 6 + 4 * 6}


def test_maintenance_and_consolidation_during_writes_lose_nothing(
    soak_engine: MemoryEngine,
) -> None:
    report = run_soak(soak_engine, writers=8, writes=12, editors=2, edits=15, overlap=0.5)
    _assert_invariants(report, writers=8, writes=12)
    assert report["created_acks"] == report["stored_rows"]  # nothing purged at a 20-day horizon
    assert report["updates_acked"] + report["conflicts"] == 2 * 15
    # the jobs ran during the writes and once after, and each changed something
    assert report["maintenance_runs"] >= 2 and report["consolidation_runs"] >= 2
    assert report["archived_by_maintenance"] > 0, report
    assert report["expired_by_maintenance"] > 0, report
    assert report["merged_by_consolidation"] > 0, report
    assert sum(report["final_status"].values()) == report["stored_rows"]
    moved = sum(
        report[k]
        for k in (
            "archived_by_maintenance",
            "expired_by_maintenance",
            "merged_by_consolidation",
            "superseded_by_writes",
        )
    )
    assert moved == report["stored_rows"] - report["final_status"].get("active", 0)
