"""Cold start of the CLI: ``memory-engine stats`` and ``memory-engine search`` in new processes.

Usage::

    flock /tmp/heavy.lock nice -n 10 python bench/cold_start.py [--rounds 5]
        [--source DIR] [--label after]

One data folder (a temp dir, only ``MEMORY_DATA_DIR`` set) is created by a first ``stats``
that is not timed (initdb), then ``rounds`` rounds each run ``stats`` and ``search`` on an
empty tenant, one after the other, each in a new Python process (``python -m
memory_engine.cli``), so both see the same machine load. ``--source`` runs the code of another
checkout (e.g. an export of an earlier commit) on ``PYTHONPATH``, for a before/after pair.
A last ``search`` runs with ``-X importtime``-free introspection: it reports which heavy
modules (torch, transformers, sentence_transformers, openai, mcp, jieba) a search imported.

Prints one JSON object: ``stats_s`` / ``search_s`` (median and min wall seconds),
``ratio`` (median search / median stats), ``heavy_modules_after_search``.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

#: A command that takes longer is a hang: the bench fails instead of waiting forever.
RUN_TIMEOUT_S = 180

HEAVY = ("torch", "transformers", "sentence_transformers", "openai", "mcp", "jieba", "scipy")

_PROBE = """
import json, sys
from memory_engine.cli import main
try:
    main()
except SystemExit:
    pass
heavy = [m for m in {heavy!r} if m in sys.modules]
print("HEAVY=" + json.dumps(heavy), file=sys.stderr)
"""


def _run(args: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", *args],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        timeout=RUN_TIMEOUT_S,
    )
    return time.perf_counter() - start


def _heavy_after_search(env: dict[str, str], query: str) -> list[str]:
    proc = subprocess.run(
        [sys.executable, "-c", _PROBE.format(heavy=HEAVY), "search", query, "--tenant", "bench"],
        env=env,
        check=True,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT_S,
    )
    line = next(ln for ln in proc.stderr.splitlines() if ln.startswith("HEAVY="))
    heavy: list[str] = json.loads(line.removeprefix("HEAVY="))
    return heavy


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5, help="timed stats+search pairs")
    ap.add_argument("--source", type=Path, default=Path(__file__).resolve().parents[1])
    ap.add_argument("--label", default="", help="free text copied into the output")
    ap.add_argument("--query", default="What does the user like to eat? 用户喜欢吃什么？")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="cold-start-") as tmp:
        env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")} | {
            "MEMORY_DATA_DIR": str(Path(tmp) / ".memory"),
            "PYTHONPATH": str(args.source),
        }
        _run(["stats"], env)  # initdb; not timed
        stats, search = [], []
        for _ in range(args.rounds):
            stats.append(_run(["stats"], env))
            search.append(_run(["search", args.query, "--tenant", "bench"], env))
        heavy = _heavy_after_search(env, args.query)
    med_stats, med_search = statistics.median(stats), statistics.median(search)
    print(
        json.dumps(
            {
                "label": args.label,
                "rounds": args.rounds,
                "stats_s": {"median": round(med_stats, 3), "min": round(min(stats), 3)},
                "search_s": {"median": round(med_search, 3), "min": round(min(search), 3)},
                "ratio": round(med_search / med_stats, 3),
                "heavy_modules_after_search": heavy,
                "load_avg_1m": round(os.getloadavg()[0], 2),
            }
        )
    )


if __name__ == "__main__":
    main()
