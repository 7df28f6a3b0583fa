"""The MCP server on a user's first run: only ``MEMORY_DATA_DIR`` (an empty folder) set, no
database URL (issue 15, item 1; the engine side: tests/engine/test_fresh_data_dir.py).

``memory_write`` has no extract mode (the tool stores the fact as given), so this checks the
server's own start on an empty folder and a write and search through it."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memory_engine.config.layout import POSTGRES_DIR
from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import REPO, server_cmd
from tests.mcp_server.helpers import structured


def test_stdio_write_and_search_in_an_empty_data_dir() -> None:
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-mcp-fresh-"))
    (root / "cwd").mkdir()
    data = root / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(MEMORY_DATA_DIR=str(data), PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    cmd = server_cmd("stdio", "--tenant", new_tenant_id("mcp"))
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=root / "cwd")

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            w = structured(await client.call_tool("memory_write", {"content": "我对花生过敏"}))
            assert w["created"] == 1
            found = structured(await client.call_tool("memory_search", {"query": "花生"}))
            assert "我对花生过敏" in [m["content"] for m in found["memories"]]

    try:
        anyio.run(main)
        assert (data / POSTGRES_DIR / "PG_VERSION").exists()
        assert not (data / "PG_VERSION").exists()
    finally:
        deadline = time.monotonic() + 30  # the exiting server process stops postgres
        while (data / POSTGRES_DIR / "postmaster.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)
