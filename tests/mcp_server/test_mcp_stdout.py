"""docs/architecture.md#f12-mcp: in stdio mode every stdout byte is JSON-RPC, logs go to stderr."""

from __future__ import annotations

import json
import queue
import socket
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import server_cmd, server_env


def _call(i: int, arguments: Any, name: str = "memory_search") -> dict[str, Any]:
    params: dict[str, Any] = {"name": name}
    if arguments != "<absent>":
        params["arguments"] = arguments
    return {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("model", ["working", "failing"])
def test_stdout_carries_only_jsonrpc_with_debug_logging(
    model: str, mcp_db_url: str, make_pg_database: Callable[[str], str], tmp_path: Path
) -> None:
    """DEBUG logging on; with ``failing`` the embedding model endpoint refuses every call
    (retries, then EmbeddingError), so the write and the search fail inside the engine."""
    tenant = new_tenant_id("raw")
    extra = {"MEMORY_LOG_LEVEL": "DEBUG"}
    db_url = mcp_db_url
    if model == "failing":
        db_url = make_pg_database("mcpfail")
        extra.update(
            MEMORY_EMBEDDER="openai_compat",
            MEMORY_EMBEDDING_BASE_URL=f"http://127.0.0.1:{_closed_port()}/v1",
            MEMORY_EMBEDDING_MODEL="down-model",
            MEMORY_EMBEDDING_DIM="8",
        )
    messages: list[dict[str, Any] | str] = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {},
                "clientInfo": {"name": "raw-test", "version": "0"},
            },
        },
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
        _call(3, {"content": "Bob prefers tea over coffee"}, "memory_write"),
        _call(4, '{"query": "tea"}'),
        _call(5, ["query", "tea"]),
        _call(6, None),
        _call(7, {"query": "tea", "tenant": "someone-else"}),
        _call(8, {"content": "   "}, "memory_write"),
        "this line is not JSON",
        # a lone UTF-16 surrogate escape: Python's json reads it, the SDK's parser does not
        '{"jsonrpc": "2.0", "id": 10, "method": "tools/call", "params": {"name":'
        ' "memory_search", "arguments": {"query": "tea\\ud800"}}}',
        {"id": 11, "method": "tools/list"},  # no "jsonrpc": not a JSON-RPC 2.0 message
        _call(9, {"query": "what does Bob drink"}),
    ]
    expected_ids = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11}
    err_path = tmp_path / "stderr.log"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            server_cmd("stdio", "--tenant", tenant),
            env=server_env(db_url, **extra),
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    assert proc.stdin is not None and proc.stdout is not None
    lines: queue.Queue[bytes] = queue.Queue()
    raw_stdout: list[bytes] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            raw_stdout.append(line)
            lines.put(line)

    reader = threading.Thread(target=pump, daemon=True)
    reader.start()
    responses: dict[int, dict[str, Any]] = {}
    try:
        # Requests run concurrently: send the search (id 9) once the write (id 3) answered.
        for batch, wait_for in ((messages[:-1], expected_ids - {9}), (messages[-1:], expected_ids)):
            for msg in batch:
                text = msg if isinstance(msg, str) else json.dumps(msg)
                proc.stdin.write(text.encode() + b"\n")
                proc.stdin.flush()
            deadline = time.monotonic() + 120
            while not wait_for <= set(responses) and time.monotonic() < deadline:
                try:
                    line = lines.get(timeout=1)
                except queue.Empty:
                    continue
                reply = json.loads(line)
                if isinstance(reply.get("id"), int):
                    responses[reply["id"]] = reply
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        reader.join(timeout=10)

    assert expected_ids <= set(responses), (
        f"missing replies; stderr: {err_path.read_text()[-2000:]}"
    )
    for line in raw_stdout:  # every byte on stdout is one JSON-RPC message per line
        assert line.endswith(b"\n")
        msg = json.loads(line)
        assert msg["jsonrpc"] == "2.0"
        assert ("result" in msg) or ("error" in msg) or ("method" in msg)
    for i in (4, 5):  # arguments that are no JSON object: the protocol refuses the call
        assert responses[i]["error"]["code"] == -32602, responses[i]
    for i in (6, 7):  # null arguments, an unknown key: a tool error the model can correct
        assert responses[i]["result"]["isError"] is True, responses[i]
        assert responses[i]["result"]["structuredContent"]["error"] == "invalid_input"
    assert responses[8]["result"]["isError"] is True
    assert responses[10]["error"]["code"] == -32700, responses[10]  # answered, not dropped
    assert "surrogate" in responses[10]["error"]["message"]
    assert responses[11]["error"]["code"] == -32600, responses[11]
    null_id = [json.loads(x) for x in raw_stdout if json.loads(x).get("id", 0) is None]
    assert [m["error"]["code"] for m in null_id] == [-32700]  # "this line is not JSON"
    if model == "working":
        assert responses[3]["result"]["structuredContent"]["created"] == 1
        found = responses[9]["result"]["structuredContent"]["memories"]
        assert [m["content"] for m in found] == ["Bob prefers tea over coffee"]
    else:
        for i in (3, 9):
            assert responses[i]["result"]["isError"] is True
            assert responses[i]["result"]["structuredContent"]["error"] == "embedding_error"
    stderr = err_path.read_text(encoding="utf-8", errors="replace")
    assert "DEBUG" in stderr  # logs exist, and went to stderr
