"""``memory-engine ingest`` stores the conversation structure a file has, and only that: an
OpenAI chat's turns get a session and turn index (``--session`` or the file's own), a Chinese
turn is stored as ``用户说：“…”``, an English one as ``user said, "…"``; a document's numbered
paragraphs get none. Starts like a user: an empty data folder, only ``MEMORY_DATA_DIR`` set,
the README's commands."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from memory_engine.stores.postgres.embedded import stop_embedded_server

REPO = Path(__file__).resolve().parents[2]


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip


def _search(env: dict[str, str], cwd: Path, query: str, tenant: str) -> list[dict[str, Any]]:
    run = _cli(env, cwd, "search", query, "--tenant", tenant, "--json")
    assert run.returncode == 0, run.stderr
    return list(json.loads(run.stdout)["memories"])


@pytest.fixture
def base() -> Iterator[Path]:
    """A fresh ``tempfile.mkdtemp`` folder (not ``tmp_path``: as root, pgserver runs postgres
    as another user, who cannot enter pytest's 0700 folders); the embedded server the CLI
    started in ``base/.memory`` is stopped before the folder is removed."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-ingest-structure-"))
    yield root
    stop_embedded_server(root / ".memory")
    shutil.rmtree(root, ignore_errors=True)


def test_ingest_keeps_the_structure_a_file_has(base: Path) -> None:
    tmp_path = base
    env = {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATA_DIR": str(tmp_path / ".memory"),
        "PYTHONPATH": str(REPO),
    }
    chat = tmp_path / "chat.json"
    messages = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": "我对花生过敏"},
        {"role": "assistant", "content": "好的，我记住了。"},
        {"role": "user", "content": "My flight to Lisbon is on 12 May"},
        {"role": "assistant", "content": "Noted, safe travels!"},
    ]
    chat.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
    ingest = _cli(env, tmp_path, "ingest", str(chat), "--tenant", "demo", "--format", "openai",
                  "--session", "support-7", "--json")  # fmt: skip
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout)["demo"]["created"] == 4
    found = _search(env, tmp_path, "我对什么过敏？", "demo")
    peanut = next(m for m in found if "花生" in m["content"])
    assert peanut["content"] == "用户说：“我对花生过敏”"
    assert (peanut["session_id"], peanut["metadata"]["turn"]) == ("support-7", 0)
    assert not any(m["content"].startswith("user said") and "花生" in m["content"] for m in found)
    flight = next(
        m for m in _search(env, tmp_path, "When is my flight?", "demo") if "Lisbon" in m["content"]
    )
    assert flight["content"] == 'user said, "My flight to Lisbon is on 12 May"'
    assert (flight["session_id"], flight["metadata"]["turn"]) == ("support-7", 2)

    doc = tmp_path / "runbook.txt"
    doc.write_text(
        "1. The database password rotation runs on the first Friday of each month at 02:00.\n\n"
        "2. Team lunch takes place every Thursday at noon.\n\n"
        "3. Office plants are watered by the facilities team on Mondays.\n",
        encoding="utf-8",
    )
    ingest = _cli(
        env, tmp_path, "ingest", str(doc), "--tenant", "docs", "--format", "text", "--json"
    )
    assert ingest.returncode == 0, ingest.stderr
    hits = _search(env, tmp_path, "When is the database password rotation?", "docs")
    assert "password rotation" in hits[0]["content"]
    for m in hits:  # paragraphs p0, p1, ... are references, not turns
        assert m["session_id"] is None and "turn" not in m["metadata"]
        assert m["scores"].get("session", m["scores"]["fused"]) == m["scores"]["fused"]
    wrong = _cli(env, tmp_path, "ingest", str(doc), "--tenant", "docs", "--format", "text",
                 "--session", "s1")  # fmt: skip
    assert wrong.returncode != 0 and "--session" in wrong.stderr
