"""``memory-engine search`` in a new process finds Chinese and English memories without
importing torch, transformers or sentence-transformers (nor the openai client or the MCP SDK,
which the default configuration does not use): the cold start stays a few seconds.

Starts like a user: an empty data folder, only ``MEMORY_DATA_DIR`` set, the README's commands.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
UNUSED = ["torch", "transformers", "sentence_transformers", "openai", "mcp"]

# Runs the real CLI entry point in this process, then reports which modules it imported.
_PROBE = """
import json, sys
from memory_engine.cli import main
try:
    main()
except SystemExit as exc:
    code = exc.code
else:
    code = 0
print("MODULES=" + json.dumps([m for m in {unused!r} if m in sys.modules]), file=sys.stderr)
sys.exit(code)
"""


def test_search_in_a_new_process_imports_no_torch(tmp_path: Path) -> None:
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATA_DIR": str(tmp_path / ".memory"),
        "PYTHONPATH": str(REPO),
    }
    chat = tmp_path / "chat.json"
    turns = [
        {"role": "user", "content": "我对花生过敏", "timestamp": "2024-03-01T09:00:00Z"},
        {
            "role": "user",
            "content": "My flight to Lisbon is on 12 May",
            "timestamp": "2024-03-01T09:01:00Z",
        },
    ]
    chat.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    ingest = subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", "ingest", str(chat), "--tenant", "demo",
         "--format", "openai", "--json"],
        capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
    )  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    for query, want in (("花生", "我对花生过敏"), ("When is my flight?", "Lisbon")):
        run = subprocess.run(
            [sys.executable, "-c", _PROBE.format(unused=UNUSED), "search", query,
             "--tenant", "demo", "--json"],
            capture_output=True, text=True, env=env, cwd=tmp_path, timeout=300,
        )  # fmt: skip
        assert run.returncode == 0, run.stderr
        contents = [m["content"] for m in json.loads(run.stdout)["memories"]]
        assert any(want in c for c in contents), (query, contents)
        line = next(ln for ln in run.stderr.splitlines() if ln.startswith("MODULES="))
        assert json.loads(line.removeprefix("MODULES=")) == [], query
