"""Concurrency torture: writers, version-checked editors, lifecycle maintenance and
consolidation, all at once on one engine.

Usage::

    python bench/soak.py [--store postgres|qdrant] [--writers 8] [--writes 100] [--editors 2]
                         [--edits 100] [--overlap 0.25] [--no-maintenance] [--no-consolidation]

``writers`` threads each write ``writes`` memories into one hot tenant; a fraction ``overlap``
of each writer's texts is also written by the next writer (same content at the same time, so
exactly one of the two may be created). Every ``LOW_EVERY``-th own text is written with a low
importance (so maintenance archives it), every ``TEMPORARY_EVERY``-th goes through extract mode
as a temporary fact ("for now ..."; the rules LLM gives it ``valid_until`` = +14 days, so
maintenance expires it). ``editors`` threads update random acknowledged memories with
``expected_version`` from a fresh read. Meanwhile one thread runs ``MemoryEngine.maintain``
(the API behind ``memory-engine maintain``) with its clock ``HORIZON_DAYS`` ahead, and one runs
``MemoryEngine.consolidate`` (near-duplicate merge), each over and over until the writers and
editors are done, then once more. Afterwards every invariant is checked against the store and
its audit events, and printed as JSON:

* ``lost_writes``: acknowledged ``created`` ids missing from the store with no purge event
  (must be 0); ``unexplained_changes``: acknowledged memories no longer active without an
  archive / merge / supersede event explaining it (must be 0);
* ``phantom_rows``: stored rows nobody was told were created (must be 0);
* ``duplicates``: active rows sharing one content hash (must be 0; an archived or merged row
  and a later active copy of the same text are not duplicates);
* ``lost_updates``: memories whose version differs from 1 + their changing events (update,
  archive, merge, supersede, ...), or whose editor ``update`` events differ from the
  acknowledged updates (must be 0);
* ``conflicts`` (editors), ``maintenance_conflicts`` and ``consolidation_conflicts``: changes
  refused with VersionConflictError (expected, reported, never lost); any other error is in
  ``typed_errors`` (MemoryEngineError codes) or ``untyped_errors`` (must be empty);
* what maintenance and consolidation did: ``archived_by_maintenance``,
  ``expired_by_maintenance``, ``merged_by_consolidation`` (members superseded by a merge),
  ``superseded_by_writes`` (extract-mode contradictions), ``final_status``;
plus throughput (writes/s) and run counts.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import Any, Literal, cast

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_engine import MemoryEngine, MemoryFilter, MemoryStatus, Scope  # noqa: E402
from memory_engine.errors import MemoryEngineError, VersionConflictError  # noqa: E402
from memory_engine.models import Memory, utcnow  # noqa: E402

#: Every LOW_EVERY-th own text of a writer gets importance LOW_IMPORTANCE.
LOW_EVERY, LOW_IMPORTANCE = 4, 0.05
#: Every TEMPORARY_EVERY-th own text is a temporary fact written in extract mode.
TEMPORARY_EVERY = 5
#: Maintenance runs with its clock this many days ahead (temporary facts expire after 14 days;
#: nothing is purged: archived memories are purged only after 30 days untouched).
HORIZON_DAYS = 20.0
#: Archive floor of the soak's maintenance (retention of an importance-0.5 memory at 20 days is
#: 0.31; of a LOW_IMPORTANCE one 0.03).
ARCHIVE_FLOOR = 0.1
Mode = Literal["raw", "extract"]
#: Reason of every editor update (tells them from a reinforce by a duplicate extract write).
EDIT_REASON = "soak editor"
#: Events that change a memory (each adds one to its version).
CHANGING = frozenset({"update", "archive", "restore", "merge", "supersede", "delete"})


def _texts(writer: int, writes: int, overlap: float, run: str) -> list[tuple[str, str, float]]:
    """(text, mode, importance) of one writer."""
    shared = int(writes * overlap)
    own: list[tuple[str, str, float]] = []
    for i in range(writes - shared):
        if i % TEMPORARY_EVERY == TEMPORARY_EVERY - 1:
            own.append((f"For now I prefer tea blend {writer}-{i} {run}", "extract", 0.5))
        elif i % LOW_EVERY == 1:
            own.append((f"writer {writer} note {i} 记忆 {run}", "raw", LOW_IMPORTANCE))
        else:
            own.append((f"writer {writer} note {i} 记忆 {run}", "raw", 0.5))
    # Shared texts: writer w writes the same texts as writer w+1 (collisions by construction).
    pair = min(writer, writer ^ 1)
    return own + [(f"shared pair {pair} item {i} 共享 {run}", "raw", 0.5) for i in range(shared)]


class _Tally:
    """Thread-safe counters of the run."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.created: dict[uuid.UUID, str] = {}
        self.acked_writes = 0
        self.duplicate_acks = 0
        self.updates: collections.Counter[uuid.UUID] = collections.Counter()
        self.conflicts = 0
        self.typed: list[str] = []
        self.untyped: list[str] = []
        self.jobs: collections.Counter[str] = collections.Counter()

    def guarded(self, fn: Callable[[], None]) -> None:
        """Run ``fn``; a typed error is counted by code, anything else is a defect."""
        try:
            fn()
        except VersionConflictError:
            with self.lock:
                self.conflicts += 1
        except MemoryEngineError as exc:
            with self.lock:
                self.typed.append(exc.code)
        except Exception as exc:  # noqa: BLE001 - counted as a defect
            with self.lock:
                self.untyped.append(repr(exc))


def _job_loop(stop: threading.Event, tally: _Tally, step: Callable[[], None]) -> None:
    """Run ``step`` until ``stop`` is set, then once more (so it also sees the final state)."""
    while True:
        last = stop.is_set()
        tally.guarded(step)
        if last:
            return
        stop.wait(0.5)


def run_soak(
    engine: MemoryEngine,
    *,
    writers: int = 8,
    writes: int = 50,
    editors: int = 2,
    edits: int = 50,
    overlap: float = 0.25,
    seed: int = 7,
    maintenance: bool = True,
    consolidation: bool = True,
) -> dict[str, Any]:
    """Run the torture on ``engine`` in a fresh tenant; returns the JSON-ready report."""
    run = uuid.uuid4().hex[:8]
    scope = Scope.of(f"soak-{run}")
    tally = _Tally()
    stop = threading.Event()

    def writer(w: int) -> None:
        for text, mode, importance in _texts(w, writes, overlap, run):

            def write(text: str = text, mode: str = mode, importance: float = importance) -> None:
                result = engine.write(scope, text, mode=cast(Mode, mode), importance=importance)
                with tally.lock:
                    tally.acked_writes += 1
                    for o in result.outcomes:
                        if o.status == "created":
                            tally.created[o.memory_id] = text
                        else:
                            tally.duplicate_acks += 1

            tally.guarded(write)

    def editor(e: int) -> None:
        rng = random.Random(seed + e)
        done = 0
        while done < edits:
            with tally.lock:
                ids = list(tally.created)
            if not ids:
                time.sleep(0.01)
                continue
            mid = rng.choice(ids)
            done += 1

            def edit(mid: uuid.UUID = mid) -> None:
                mem = engine.get(scope, mid)
                engine.update(
                    scope,
                    mid,
                    expected_version=mem.version,
                    reason=f"{EDIT_REASON} {e}",
                    importance=round(rng.random(), 3),
                )
                with tally.lock:
                    tally.updates[mid] += 1

            tally.guarded(edit)

    def maintain() -> None:
        policy = engine.maintenance_policy(
            floor=ARCHIVE_FLOOR, bottom_fraction=1.0, purge_after_days=365.0
        )
        report = engine.maintain(scope, now=utcnow() + timedelta(days=HORIZON_DAYS), policy=policy)
        with tally.lock:
            tally.jobs["maintenance_runs"] += 1
            for item in report.skipped:
                tally.jobs[f"maintenance_{item['why']}"] += 1

    def consolidate() -> None:
        report = engine.consolidate(scope, similarity=0.9, actor="consolidate")
        with tally.lock:
            tally.jobs["consolidation_runs"] += 1
            for c in report.conflicts:
                code = str(c["error"].get("error"))
                if code == VersionConflictError.code:
                    tally.jobs["consolidation_conflicts"] += 1
                else:
                    tally.typed.append(code)

    started = time.perf_counter()
    workers = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    workers += [threading.Thread(target=editor, args=(e,)) for e in range(editors)]
    jobs = [
        threading.Thread(target=_job_loop, args=(stop, tally, step))
        for step, on in ((maintain, maintenance), (consolidate, consolidation))
        if on
    ]
    for t in workers + jobs:
        t.start()
    for t in workers[:writers]:
        t.join()
    write_s = time.perf_counter() - started
    for t in workers[writers:]:
        t.join()
    stop.set()
    for t in jobs:
        t.join()
    total_s = time.perf_counter() - started
    report = {
        "store": engine.settings.storage.backend,
        "writers": writers,
        "writes_per_writer": writes,
        "editors": editors,
        "edits_per_editor": edits,
        "maintenance": maintenance,
        "consolidation": consolidation,
        "attempted_writes": writers * writes,
        "acked_writes": tally.acked_writes,
        "extract_writes": sum(
            1 for w in range(writers) for _, m, _ in _texts(w, writes, overlap, run) if m != "raw"
        ),
        "created_acks": len(tally.created),
        "duplicate_acks": tally.duplicate_acks,
        **_check(engine, scope, tally),
        "updates_acked": sum(tally.updates.values()),
        "conflicts": tally.conflicts,
        "maintenance_runs": tally.jobs["maintenance_runs"],
        "maintenance_conflicts": tally.jobs["maintenance_conflict"],
        "maintenance_skipped_changed": tally.jobs["maintenance_changed"],
        "consolidation_runs": tally.jobs["consolidation_runs"],
        "consolidation_conflicts": tally.jobs["consolidation_conflicts"],
        "typed_errors": dict(collections.Counter(tally.typed)),
        "untyped_errors": tally.untyped[:5],
        "writes_per_s": round(writers * writes / write_s, 1),
        "seconds": round(total_s, 2),
    }
    for mid in report.pop("_stored_ids"):  # leave nothing behind
        engine.purge(scope, mid, reason="soak cleanup", actor="soak")
    return report


def _explained(history: list[Any]) -> str | None:
    """What took an acknowledged memory out of ``active``, from its events (None: nothing)."""
    for ev in reversed(history):
        after = ev.after or {}
        if ev.action.value == "archive" and (ev.reason or "").startswith("expire:"):
            return "expired_by_maintenance"
        if ev.action.value == "archive" and ev.actor == "maintenance":
            return "archived_by_maintenance"
        if ev.action.value == "merge" and after.get("status") == "superseded":
            return "merged_by_consolidation"
        if ev.action.value == "supersede":
            return "superseded_by_writes"
    return None


def _check(engine: MemoryEngine, scope: Scope, tally: _Tally) -> dict[str, Any]:
    """Invariants of the final state against the tally and the audit events."""
    stored: dict[uuid.UUID, Memory] = {}
    cursor = None
    while True:
        page = engine.list(
            scope, filters=MemoryFilter(statuses=tuple(MemoryStatus)), limit=500, cursor=cursor
        )
        stored.update({m.id: m for m in page.items})
        cursor = page.next_cursor
        if not cursor:
            break
    active_hashes = collections.Counter(
        m.content_hash for m in stored.values() if m.status is MemoryStatus.ACTIVE
    )
    causes: collections.Counter[str] = collections.Counter()
    lost_updates = unexplained = 0
    for mid, mem in stored.items():
        history = list(engine.history(scope, mid).items)
        changes = sum(1 for ev in history if ev.action.value in CHANGING)
        n_updates = sum(  # the editors' (a duplicate extract write may reinforce too)
            1
            for ev in history
            if ev.action.value == "update" and (ev.reason or "").startswith(EDIT_REASON)
        )
        if mem.version != 1 + changes or n_updates != tally.updates[mid]:
            lost_updates += 1
        if mem.status is not MemoryStatus.ACTIVE:
            cause = _explained(history)
            if cause is None:
                unexplained += 1
            else:
                causes[cause] += 1
    missing = set(tally.created) - set(stored)
    purged = {
        mid
        for mid in missing
        if any(ev.action.value == "purge" for ev in engine.history(scope, mid).items)
    }
    return {
        "stored_rows": len(stored),
        "lost_writes": len(missing - purged),
        "purged_by_maintenance": len(missing & purged),
        "phantom_rows": len(set(stored) - set(tally.created)),
        "duplicates": sum(n - 1 for n in active_hashes.values() if n > 1),
        "lost_updates": lost_updates,
        "unexplained_changes": unexplained,
        "archived_by_maintenance": causes["archived_by_maintenance"],
        "expired_by_maintenance": causes["expired_by_maintenance"],
        "merged_by_consolidation": causes["merged_by_consolidation"],
        "superseded_by_writes": causes["superseded_by_writes"],
        "final_status": dict(collections.Counter(m.status.value for m in stored.values())),
        "_stored_ids": list(stored),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", choices=("postgres", "qdrant"), default="postgres")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--writes", type=int, default=100)
    parser.add_argument("--editors", type=int, default=2)
    parser.add_argument("--edits", type=int, default=100)
    parser.add_argument("--overlap", type=float, default=0.25)
    parser.add_argument("--no-maintenance", action="store_true")
    parser.add_argument("--no-consolidation", action="store_true")
    args = parser.parse_args()
    from memory_engine import Settings

    with tempfile.TemporaryDirectory() as tmp:
        if args.store == "qdrant":
            settings = Settings(
                store="qdrant", qdrant_path=f"{tmp}/qdrant", database_url=None, data_dir=Path(tmp)
            )
        else:
            settings = Settings(data_dir=Path(tmp), database_url=None)
        engine = MemoryEngine(settings)
        try:
            report = run_soak(
                engine,
                writers=args.writers,
                writes=args.writes,
                editors=args.editors,
                edits=args.edits,
                overlap=args.overlap,
                maintenance=not args.no_maintenance,
                consolidation=not args.no_consolidation,
            )
        finally:
            engine.close()
            if args.store == "postgres":
                from memory_engine.stores.postgres.embedded import stop_embedded_server

                stop_embedded_server(Path(tmp))
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
