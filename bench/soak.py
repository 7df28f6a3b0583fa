"""Concurrency torture: concurrent writers and version-checked editors on one engine.

Usage::

    python bench/soak.py [--store postgres|qdrant] [--writers 8] [--writes 200] [--editors 2]
                         [--edits 200] [--overlap 0.25]

``writers`` threads each write ``writes`` memories into one hot tenant; a fraction ``overlap``
of each writer's texts is also written by the next writer (same content at the same time, so
exactly one of the two may be created). ``editors`` threads meanwhile update random
acknowledged memories with ``expected_version`` from a fresh read. Afterwards every invariant is
checked against the store and printed as JSON:

* ``lost_writes``: acknowledged ``created`` ids missing from the store (must be 0);
* ``phantom_rows``: stored rows nobody was told were created (must be 0);
* ``duplicates``: rows sharing one content hash (must be 0);
* ``lost_updates``: memories whose final version differs from 1 + acknowledged updates, or
  whose history has a different number of update events (must be 0);
* ``conflicts``: updates refused with VersionConflictError (expected, reported, never lost);
* ``untyped_errors``: exceptions that were not a MemoryEngineError (must be 0);
plus throughput (writes/s, updates/s).
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
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memory_engine import MemoryEngine, MemoryFilter, MemoryStatus, Scope  # noqa: E402
from memory_engine.errors import MemoryEngineError, VersionConflictError  # noqa: E402


def _texts(writer: int, writes: int, overlap: float, run: str) -> list[str]:
    shared = int(writes * overlap)
    own = [f"writer {writer} note {i} 记忆 {run}" for i in range(writes - shared)]
    # Shared texts: writer w writes the same texts as writer w+1 (collisions by construction).
    pair = min(writer, writer ^ 1)
    return own + [f"shared pair {pair} item {i} 共享 {run}" for i in range(shared)]


def run_soak(
    engine: MemoryEngine,
    *,
    writers: int = 8,
    writes: int = 50,
    editors: int = 2,
    edits: int = 50,
    overlap: float = 0.25,
    seed: int = 7,
) -> dict[str, Any]:
    """Run the torture on ``engine`` in a fresh tenant; returns the JSON-ready report."""
    run = uuid.uuid4().hex[:8]
    scope = Scope.of(f"soak-{run}")
    created: dict[uuid.UUID, str] = {}
    duplicate_acks = 0
    updates: collections.Counter[uuid.UUID] = collections.Counter()
    conflicts = 0
    untyped: list[str] = []
    typed: list[str] = []
    lock = threading.Lock()
    writers_done = threading.Event()

    def writer(w: int) -> None:
        nonlocal duplicate_acks
        for text in _texts(w, writes, overlap, run):
            try:
                result = engine.write(scope, text)
            except MemoryEngineError as exc:
                with lock:
                    typed.append(exc.code)
                continue
            except Exception as exc:  # noqa: BLE001 - counted as a defect
                with lock:
                    untyped.append(repr(exc))
                continue
            with lock:
                for o in result.outcomes:
                    if o.status == "created":
                        created[o.memory_id] = text
                    else:
                        duplicate_acks += 1

    def editor(e: int) -> None:
        nonlocal conflicts
        rng = random.Random(seed + e)
        done = 0
        while done < edits and not (writers_done.is_set() and done >= edits):
            with lock:
                ids = list(created)
            if not ids:
                time.sleep(0.01)
                continue
            mid = rng.choice(ids)
            done += 1
            try:
                mem = engine.get(scope, mid)
                engine.update(
                    scope,
                    mid,
                    expected_version=mem.version,
                    reason=f"soak editor {e}",
                    importance=round(rng.random(), 3),
                )
            except VersionConflictError:
                with lock:
                    conflicts += 1
                continue
            except MemoryEngineError as exc:
                with lock:
                    typed.append(exc.code)
                continue
            except Exception as exc:  # noqa: BLE001 - counted as a defect
                with lock:
                    untyped.append(repr(exc))
                continue
            with lock:
                updates[mid] += 1

    started = time.perf_counter()
    threads = [threading.Thread(target=writer, args=(w,)) for w in range(writers)]
    eds = [threading.Thread(target=editor, args=(e,)) for e in range(editors)]
    for t in threads + eds:
        t.start()
    for t in threads:
        t.join()
    write_s = time.perf_counter() - started
    writers_done.set()
    for t in eds:
        t.join()
    total_s = time.perf_counter() - started

    stored: dict[uuid.UUID, Any] = {}
    cursor = None
    while True:
        page = engine.list(
            scope, filters=MemoryFilter(statuses=tuple(MemoryStatus)), limit=500, cursor=cursor
        )
        stored.update({m.id: m for m in page.items})
        cursor = page.next_cursor
        if not cursor:
            break
    hashes = collections.Counter(m.content_hash for m in stored.values())
    lost_updates = 0
    for mid, mem in stored.items():
        history = engine.history(scope, mid).items
        n_updates = sum(1 for ev in history if ev.action.value == "update")
        if mem.version != 1 + updates[mid] or n_updates != updates[mid]:
            lost_updates += 1
    report = {
        "store": engine.settings.store,
        "writers": writers,
        "writes_per_writer": writes,
        "editors": editors,
        "edits_per_editor": edits,
        "attempted_writes": writers * writes,
        "created_acks": len(created),
        "duplicate_acks": duplicate_acks,
        "stored_rows": len(stored),
        "lost_writes": len(set(created) - set(stored)),
        "phantom_rows": len(set(stored) - set(created)),
        "duplicates": sum(n - 1 for n in hashes.values() if n > 1),
        "updates_acked": sum(updates.values()),
        "conflicts": conflicts,
        "lost_updates": lost_updates,
        "typed_errors": collections.Counter(typed),
        "untyped_errors": untyped[:5],
        "writes_per_s": round(writers * writes / write_s, 1),
        "seconds": round(total_s, 2),
    }
    for mid in stored:  # leave nothing behind
        engine.purge(scope, mid, reason="soak cleanup", actor="soak")
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--store", choices=("postgres", "qdrant"), default="postgres")
    parser.add_argument("--writers", type=int, default=8)
    parser.add_argument("--writes", type=int, default=200)
    parser.add_argument("--editors", type=int, default=2)
    parser.add_argument("--edits", type=int, default=200)
    parser.add_argument("--overlap", type=float, default=0.25)
    args = parser.parse_args()
    from memory_engine import Settings

    with tempfile.TemporaryDirectory() as tmp:
        if args.store == "qdrant":
            settings = Settings(store="qdrant", qdrant_path=f"{tmp}/qdrant", database_url=None)
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
            )
        finally:
            engine.close()
            if args.store == "postgres":
                from memory_engine.stores.pg_embedded import stop_embedded_server

                stop_embedded_server(Path(tmp))
    print(json.dumps(report, ensure_ascii=False))


if __name__ == "__main__":
    main()
