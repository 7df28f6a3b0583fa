"""Short concurrency torture on both stores: accepted = stored, no duplicates, no lost updates.

The long run is ``bench/soak.py`` (prints JSON); this one uses the same runner, smaller.
"""

from __future__ import annotations

from bench.soak import run_soak
from memory_engine import MemoryEngine
from tests.engine.conftest import engine  # noqa: F401  (session engine on both stores)


def test_concurrent_writers_and_editors_lose_nothing(engine: MemoryEngine) -> None:  # noqa: F811
    report = run_soak(engine, writers=8, writes=12, editors=2, edits=15, overlap=0.5)
    assert report["untyped_errors"] == [], report
    assert report["lost_writes"] == 0, report
    assert report["phantom_rows"] == 0, report
    assert report["duplicates"] == 0, report
    assert report["lost_updates"] == 0, report
    # Shared texts collide by construction: half of each writer's texts are its pair's too.
    assert report["created_acks"] == report["stored_rows"] == 8 * 6 + 4 * 6
    assert report["created_acks"] + report["duplicate_acks"] == 8 * 12
    assert report["updates_acked"] + report["conflicts"] == 2 * 15
    assert report["updates_acked"] > 0
