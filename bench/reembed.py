"""``memory-engine reembed`` at scale: a store switched to another embedder, killed midway.

Usage::

    python bench/reembed.py [--memories 5000] [--stores postgres qdrant] [--batch 64]

For each store (the embedded PostgreSQL and Qdrant local mode, each in a fresh data folder):

1. ``--memories`` memories (Chinese and English, two tenants) are written with the old
   embedder (all-MiniLM-L6-v2) through ``MemoryEngine.write_many``.
2. ``MEMORY_EMBEDDER=use_m3`` is set and ``memory-engine reembed`` starts as a subprocess,
   as a user runs it. It is killed with SIGKILL in the middle: on PostgreSQL when half of the
   memories have staged vectors (watched from another connection); on Qdrant local mode (the
   running command holds the folder, nothing else can read it) after the time PostgreSQL took
   to reach half, and the staged count is read once the folder is free again; a run killed
   before it staged any vector is started again with twice the wait (``kill_attempts``).
3. ``memory-engine reembed --json`` runs again and must finish the switch and verify it.

Meanwhile a separate search process (``--search-loop``) searches a known memory of each
tenant again and again, from before the first run until after the second, opening the store
with the embedder the store records (a process started with the old embedder is restarted
after the switch, as the command's documentation says). On Qdrant local mode it can only open
the folder while no reembed process holds it (before, between the kill and the re-run, after);
the refused attempts are counted apart (``searches_refused_busy``), not as errors.

Prints one JSON object: ``{"memories", "from", "to", "stores": {store: {"memories", "seconds",
"memories_per_s", "kill_at", "resumed_ok", "searches_during", "search_errors", ...}}}``;
``seconds`` is the wall time of both reembed runs (the killed one and the re-run),
``memories_per_s`` = memories / seconds, ``kill_at`` the memories with staged vectors when the
first run was killed, ``resumed_ok`` the re-run's verified switch with every memory found,
``searches_during`` the searches answered between the first run's start and the re-run's
end, ``search_errors`` searches that failed or did not return the memory searched for (the first
three errors in ``search_error_samples``).
Stopped by SIGTERM (a time limit), it still prints the object: the stores measured so far,
the running one as ``{"incomplete": true}``, and ``"stopped_by": "SIGTERM"``. Progress lines
(one per phase, with seconds since the store's start) go to stderr.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

OLD_MODEL = "all-MiniLM-L6-v2"
NEW_MODEL = "universal-sentence-encoder-multilingual-3"
TENANTS = ("zh-chat", "en-notes")
#: Qdrant local mode: runs killed before staging anything are started again with twice the
#: wait, this many runs at most.
KILL_ATTEMPTS = 4


def _text(tenant: str, i: int) -> str:
    if tenant == "zh-chat":
        return f"第{i}条记忆：我喜欢第{i}种茶，周{i % 7}去第{i % 13}个公园散步。"
    return f"note {i}: I like tea number {i} and walk in park {i % 13} on day {i % 7}."


def _env(folder: Path, store: str, embedder: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        PYTHONPATH=str(REPO),
        MEMORY_DATA_DIR=str(folder / "data"),
        MEMORY_STORE=store,
        MEMORY_EMBEDDER=embedder,
        MEMORY_EMBEDDER_MULTILINGUAL="none",
        MEMORY_TRACE_RETENTION="0",
    )
    if store == "qdrant":
        env["MEMORY_QDRANT_PATH"] = str(folder / "qdrant")
    return env


def _engine(env: dict[str, str]) -> Any:
    from memory_engine.config import Settings
    from memory_engine.engine import MemoryEngine

    saved = dict(os.environ)
    try:
        os.environ.clear()
        os.environ.update(env)
        return MemoryEngine(Settings())
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _fill(env: dict[str, str], memories: int) -> float:
    from memory_engine.models import Scope
    from memory_engine.write.raw import WriteRequest

    started = time.perf_counter()
    engine = _engine(env)
    try:
        per = memories // len(TENANTS)
        for tenant in TENANTS:
            for start in range(0, per, 500):
                batch = [
                    WriteRequest(text=_text(tenant, i)) for i in range(start, min(per, start + 500))
                ]
                results = engine.write_many(Scope.of(tenant), batch)
                if not all(r.ok for r in results):
                    raise SystemExit(f"fill failed: {[r.error for r in results if not r.ok][:3]}")
    finally:
        engine.close()
    return time.perf_counter() - started


def _open_store(env: dict[str, str]) -> Any:
    from memory_engine.config import Settings
    from memory_engine.stores import build_store

    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        return build_store(Settings())
    finally:
        os.environ.clear()
        os.environ.update(saved)


def _staged(store: Any) -> int:
    """Memories with a staged (new-model) vector, over both tenants (0 when none is staged)."""
    from memory_engine.models import Scope
    from memory_engine.stores.base import STAGING_LEG

    legs = store.legs
    if STAGING_LEG not in legs.leg_records():
        return 0
    return sum(legs.leg_counts(STAGING_LEG, scope=Scope.of(t))[0] for t in TENANTS)


def _reembed(env: dict[str, str], batch: int, *, json_out: bool) -> subprocess.Popen[str]:
    """Start ``memory-engine reembed``. The run to be killed (``json_out`` false) writes its
    output (progress bar included) to nothing: an unread pipe would fill and stall it."""
    args = [sys.executable, "-m", "memory_engine.cli", "reembed", "--batch", str(batch)]
    if json_out:
        args.append("--json")
        out: int = subprocess.PIPE
    else:
        out = subprocess.DEVNULL
    return _started(subprocess.Popen(args, env=env, stdout=out, stderr=out, text=True))


#: Child processes and data folders of the running store, ended and removed when stopped.
_CHILDREN: list[subprocess.Popen[Any]] = []
_FOLDERS: list[tuple[Path, str]] = []


def _started(proc: subprocess.Popen[Any]) -> subprocess.Popen[Any]:
    _CHILDREN.append(proc)
    return proc


def _abandon() -> None:
    """Kill this run's child processes (by their own pid) and remove its data folders."""
    for proc in _CHILDREN:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)
    for folder, store in _FOLDERS:
        _cleanup(folder, store)


def _phase(store: str, what: str, started: float) -> None:
    """One progress line on stderr (stdout holds only the JSON object)."""
    print(f"[reembed {store}] {time.time() - started:7.1f} s  {what}", file=sys.stderr, flush=True)


def search_loop(folder: Path, store: str, log: Path, stop: Path, memories: int) -> None:
    """The separate search process: search, log one JSON line per attempt, until ``stop``."""
    from memory_engine.errors import EmbeddingMismatchError, StoreUnavailableError
    from memory_engine.models import Scope

    embedder = "minilm"
    engine = None
    i = 0
    per = memories // len(TENANTS)
    with log.open("a", encoding="utf-8") as out:
        while not stop.exists():
            tenant = TENANTS[i % len(TENANTS)]
            n = (i * 37) % per
            i += 1
            row: dict[str, Any] = {"t": time.time()}
            try:
                if engine is None:
                    engine = _engine(_env(folder, store, embedder))
                hit = engine.search(Scope.of(tenant), _text(tenant, n), k=5)
                row["ok"] = bool(hit.memories) and any(
                    c.memory.content == _text(tenant, n) for c in hit.memories
                )
                row["model"] = hit.trace.embedding_model
                if not row["ok"]:
                    row["error"] = "not found"
            except EmbeddingMismatchError:  # the switch committed: restart on the new model
                embedder = "use_m3" if embedder == "minilm" else "minilm"
                row.update(ok=False, restart=True)
                if engine is not None:
                    engine.close()
                engine = None
            except StoreUnavailableError as exc:  # Qdrant local: the folder is held
                row.update(ok=False, busy=True, error=exc.message[:120])
                engine = None
                time.sleep(0.2)
            except Exception as exc:  # noqa: BLE001 - every other failure is a search error
                row.update(ok=False, error=f"{type(exc).__name__}: {exc}"[:200])
                if engine is not None:
                    engine.close()
                engine = None
            if store == "qdrant" and engine is not None:
                engine.close()  # local mode: let the reembed process take the folder
                engine = None
            out.write(json.dumps(row) + "\n")
            out.flush()
    if engine is not None:
        engine.close()


def _searcher(store: str, folder: Path, memories: int) -> subprocess.Popen[bytes]:
    """Start the separate search process (:func:`search_loop`) on ``folder``."""
    args = ["--search-loop", store, str(folder), "--memories", str(memories)]
    return _started(
        subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), *args],
            env={**os.environ, "PYTHONPATH": str(REPO)},
        )
    )


def _run_store(store: str, memories: int, batch: int, kill_after_s: float | None) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix=f"bench-reembed-{store}-"))
    _FOLDERS.append((folder, store))
    old, new = _env(folder, store, "minilm"), _env(folder, store, "use_m3")
    t0 = time.time()
    _phase(store, f"filling {memories} memories", t0)
    fill_s = _fill(old, memories)
    _phase(store, "filled; searcher starts", t0)
    log, stop = folder / "searches.jsonl", folder / "stop"
    searcher = _searcher(store, folder, memories)
    time.sleep(8.0 if store == "postgres" else 4.0)  # the searcher answers before the run
    if store == "qdrant":  # let the searcher release the folder before the command opens it
        stop.touch()
        searcher.wait(timeout=60)
    started = time.time()
    _phase(store, "first reembed run starts", t0)
    first = _reembed(new, batch, json_out=False)
    half = memories // 2
    staged_at_kill = 0
    attempts = 1
    if store == "postgres":
        watcher = _open_store(old)
        try:
            while first.poll() is None:
                staged_at_kill = _staged(watcher)
                if staged_at_kill >= half:
                    break
                time.sleep(0.2)
        finally:
            watcher.close()
        to_half = time.time() - started
        killed_alive = first.poll() is None
        first.send_signal(signal.SIGKILL)
        first.wait(timeout=60)
    else:  # the folder is the running command's: kill on time, then count what it staged
        wait = kill_after_s or 60.0
        while True:
            time.sleep(wait)
            to_half = time.time() - started
            killed_alive = first.poll() is None
            first.send_signal(signal.SIGKILL)
            first.wait(timeout=60)
            watcher = _open_store(new)
            try:
                staged_at_kill = _staged(watcher)
            finally:
                watcher.close()
            if staged_at_kill > 0 or not killed_alive or attempts >= KILL_ATTEMPTS:
                break
            wait *= 2  # killed before it staged anything: no resume to test, start again
            attempts += 1
            _phase(
                store, f"killed before any vector was staged; again, kill after {wait:.0f} s", t0
            )
            first = _reembed(new, batch, json_out=False)
    first_s = time.time() - started
    _phase(store, f"first run killed ({'running' if killed_alive else 'had ended'})", t0)
    if store == "qdrant":
        stop.unlink()
        searcher = _searcher(store, folder, memories)
        time.sleep(6.0)  # searches between the kill and the re-run
        stop.touch()
        searcher.wait(timeout=60)
    rerun_started = time.time()
    _phase(store, f"re-run starts ({staged_at_kill} staged at the kill)", t0)
    second = _reembed(new, batch, json_out=True)
    stdout, stderr = second.communicate(timeout=3600)
    rerun_s = time.time() - rerun_started
    _phase(store, f"re-run ended (exit {second.returncode})", t0)
    ended = time.time()
    if store == "qdrant":
        stop.unlink()
        searcher = _searcher(store, folder, memories)
    time.sleep(8.0)  # searches after the switch (the searcher restarts on the new model)
    stop.touch()
    searcher.wait(timeout=120)
    report: dict[str, Any] = {}
    try:
        report = json.loads(stdout)
    except json.JSONDecodeError:
        report = {"error": stderr[-500:]}
    runs = report.get("legs") or []
    after_store = _open_store(new)
    try:
        from memory_engine.models import Scope

        switched_to = after_store.embedding_info()
        kept = sum(after_store.count(scope=Scope.of(t)) for t in TENANTS)
    finally:
        after_store.close()
    # a kill after the switch committed leaves the re-run nothing to do (``legs`` empty)
    resumed_ok = bool(
        second.returncode == 0
        and report.get("ok")
        and switched_to == (NEW_MODEL, 512)
        and kept == memories
        and all(
            r["action"] == "switched" and all(v["ok"] for v in r["verified"].values()) for r in runs
        )
    )
    rows = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    during = [r for r in rows if started <= r["t"] <= ended]
    after = [r for r in rows if r["t"] > ended]
    seconds = first_s + rerun_s
    out: dict[str, Any] = {
        "memories": memories,
        "seconds": round(seconds, 1),
        "memories_per_s": round(memories / seconds, 1),
        "kill_at": staged_at_kill,
        "killed_while_running": killed_alive,
        "seconds_to_kill": round(to_half, 1),
        "kill_attempts": attempts,
        "rerun_seconds": round(rerun_s, 1),
        "rerun_embedded": runs[0]["embedded"] if runs else 0,
        "resumed_ok": resumed_ok,
        "searches_during": sum(1 for r in during if r.get("ok")),
        "search_errors": sum(
            1 for r in during + after if not r.get("ok") and not r.get("busy") and not r.get("restart")
        ),
        "search_error_samples": [
            r.get("error") for r in during + after
            if not r.get("ok") and not r.get("busy") and not r.get("restart")
        ][:3],
        "searches_refused_busy": sum(1 for r in during if r.get("busy")),
        "searcher_restarts": sum(1 for r in rows if r.get("restart")),
        "searches_after_switch": sum(1 for r in after if r.get("ok") and r.get("model") == NEW_MODEL),
        "searches_before_switch_model": sorted({r["model"] for r in during if r.get("model")}),
        "fill_seconds": round(fill_s, 1),
    }  # fmt: skip
    if not resumed_ok:
        out["rerun_report"] = report
    _cleanup(folder, store)
    _FOLDERS.remove((folder, store))
    return out


def _cleanup(folder: Path, store: str) -> None:
    import shutil

    if store == "postgres":
        from memory_engine.stores.postgres.embedded import embedded_pg_folder, stop_embedded_server

        try:
            stop_embedded_server(embedded_pg_folder(folder / "data"))
        except Exception:  # noqa: BLE001 - best effort: the folder is removed anyway
            pass
    shutil.rmtree(folder, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memories", type=int, default=5000)
    parser.add_argument("--stores", nargs="+", default=["postgres", "qdrant"])
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument(
        "--kill-after",
        type=float,
        default=None,
        help="Qdrant only: seconds before the kill (default: PostgreSQL's time to half-way "
        "when it runs first, else 60)",
    )
    parser.add_argument("--search-loop", nargs=2, metavar=("STORE", "FOLDER"))
    args = parser.parse_args()
    if args.search_loop:
        store, folder = args.search_loop
        search_loop(Path(folder), store, Path(folder) / "searches.jsonl", Path(folder) / "stop",
                    args.memories)  # fmt: skip
        return
    result: dict[str, Any] = {"memories": args.memories, "from": OLD_MODEL, "to": NEW_MODEL}
    stores: dict[str, Any] = {}
    result["stores"] = stores
    kill_after: float | None = args.kill_after

    def stopped(signum: int, _frame: object) -> None:
        raise _Stopped(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, stopped)  # a time limit (``timeout``) still gets the JSON
    try:
        for store in args.stores:
            stores[store] = {"incomplete": True}
            stores[store] = _run_store(store, args.memories, args.batch, kill_after)
            if store == "postgres":
                kill_after = stores[store]["seconds_to_kill"]
    except _Stopped as exc:
        result["stopped_by"] = str(exc)
        _abandon()
    print(json.dumps(result, ensure_ascii=False))


class _Stopped(Exception):
    """SIGTERM arrived: the stores measured so far are printed, the running one as
    ``{"incomplete": true}``."""


if __name__ == "__main__":
    main()
