"""``memory-engine search --json`` explains the search: every memory's score waterfall, the
block accounting (lines with tokens, near misses with the rule that cut each, totals per
stage) and stale-fact warnings. Starts like a user: an empty data folder, only
``MEMORY_DATA_DIR`` set, the README's commands."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip


def test_search_json_carries_the_waterfall_and_the_block_accounting(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATA_DIR": str(tmp_path / ".memory"),
        "PYTHONPATH": str(REPO),
    }
    chat = tmp_path / "chat.json"
    turns = [
        {"role": "user", "content": f"我们第{i}次团队午餐在一家披萨店。", "timestamp": f"2024-03-0{i + 1}T09:00:00Z"}
        for i in range(5)
    ] + [{"role": "user", "content": "我对花生过敏", "timestamp": "2024-03-09T09:00:00Z"}]  # fmt: skip
    chat.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    ingest = _cli(env, tmp_path, "ingest", str(chat), "--tenant", "demo", "--format", "openai")
    assert ingest.returncode == 0, ingest.stderr
    run = _cli(env, tmp_path, "search", "花生过敏", "--tenant", "demo", "--k", "2", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    top = out["memories"][0]
    assert "花生" in top["content"]
    steps = top["waterfall"]
    assert [s["name"] for s in steps if s["stage"] == "leg"] == list(out["trace"]["legs"])
    fuse = next(s for s in steps if s["stage"] == "fuse")
    assert fuse["name"] == out["explain"]["waterfall"]["fusion"]
    assert fuse["value"] == top["scores"]["fused"] and fuse["rank"] == top["ranks"]["fused"]
    assert steps[-1]["stage"] == "final" and steps[-1]["rank"] == 1

    block = out["explain"]["block"]
    # at most k lines; the relevance floor may leave fewer (no padding with unrelated memories)
    assert [line["rank"] for line in block["lines"]] in ([1], [1, 2])
    assert all(line["tokens"] > 0 for line in block["lines"])
    assert block["used_tokens"] >= sum(line["tokens"] for line in block["lines"])
    assert block["near_misses"], "six memories, k=2: the next ones just missed"
    miss = block["near_misses"][0]
    # the pizza lunches share no term with the query: the relevance floor (a threshold rule)
    # cuts them before k does; with two lines the next one is cut by k
    if len(block["lines"]) == 1:
        assert miss["rule"] == "threshold" and miss["tokens"] > 0
    else:
        assert miss["rule"] == "k" and miss["needs"] == {"k": 3} and miss["tokens"] > 0
    totals = {s["stage"]: s for s in block["stages"]}
    assert totals["block"]["candidates"] == len(block["lines"])
    assert totals["legs"]["candidates"] >= totals["block"]["candidates"]
    assert out["explain"]["stale_facts"] == []  # conversation turns are events, not facts
