"""The MCP server on a user's first run: only ``MEMORY_DATA_DIR`` (an empty folder) set, no
database URL (issue 15, item 1; the engine side: tests/engine/test_fresh_data_dir.py): the
server's own start on an empty folder, a raw ``memory_write`` and a search through it, and a
``memory_write`` in extract mode with the default offline provider."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path

import anyio
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memory_engine.config.layout import POSTGRES_DIR
from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import REPO, server_cmd
from tests.mcp_server.helpers import structured


def _run_in_an_empty_data_dir(session: Callable[[Client], Awaitable[None]]) -> None:
    """Start the stdio server as a user does (only ``MEMORY_DATA_DIR``, an empty folder, set)
    and run ``session`` against it with the real MCP SDK client."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-mcp-fresh-"))
    (root / "cwd").mkdir()
    data = root / "data"
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(MEMORY_DATA_DIR=str(data), PYTHONPATH=str(REPO), PYTHONUNBUFFERED="1")
    cmd = server_cmd("stdio", "--tenant", new_tenant_id("mcp"))
    params = StdioServerParameters(command=cmd[0], args=cmd[1:], env=env, cwd=root / "cwd")

    async def main() -> None:
        async with Client(params, read_timeout_seconds=120) as client:
            await session(client)

    try:
        anyio.run(main)
        assert (data / POSTGRES_DIR / "PG_VERSION").exists()
        assert not (data / "PG_VERSION").exists()
    finally:
        deadline = time.monotonic() + 30  # the exiting server process stops postgres
        while (data / POSTGRES_DIR / "postmaster.pid").exists() and time.monotonic() < deadline:
            time.sleep(0.2)
        shutil.rmtree(root, ignore_errors=True)


def test_stdio_write_and_search_in_an_empty_data_dir() -> None:
    async def session(client: Client) -> None:
        w = structured(await client.call_tool("memory_write", {"content": "我对花生过敏"}))
        assert w["created"] == 1
        found = structured(await client.call_tool("memory_search", {"query": "花生"}))
        assert "我对花生过敏" in [m["content"] for m in found["memories"]]

    _run_in_an_empty_data_dir(session)


def test_stdio_extract_mode_write_in_an_empty_data_dir() -> None:
    """The README's extract example through MCP: a fact is distilled (third person, not the
    utterance), small talk is not stored, and the stored fact is found."""

    async def session(client: Client) -> None:
        args = {"content": "我对花生过敏", "mode": "extract"}
        w = structured(await client.call_tool("memory_write", args))
        assert w["remembered"] is True and w["created"] == 1, w
        assert w["write_id"] and [a["action"] for a in w["actions"]] == ["create"]
        hello = structured(
            await client.call_tool("memory_write", {"content": "你好", "mode": "extract"})
        )
        assert hello["remembered"] is False and hello["created"] == 0 and hello["reason"]
        found = structured(await client.call_tool("memory_search", {"query": "花生过敏"}))
        (fact,) = [m for m in found["memories"] if "花生" in m["content"]]
        assert fact["id"] == w["stored"][0]["memory_id"]
        assert fact["content"] != "我对花生过敏" and "我" not in fact["content"]
        assert fact["status"] == "active"

    _run_in_an_empty_data_dir(session)
