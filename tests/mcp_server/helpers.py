"""Helpers of the MCP tests: SDK clients over stdio / streamable HTTP, raw malformed calls."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any, TextIO

import mcp_types as types
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client

from tests.mcp_server.conftest import server_cmd, server_env


@asynccontextmanager
async def stdio_client(
    db_url: str, tenant: str, errlog: TextIO, cwd: Path, **extra: str
) -> AsyncIterator[Client]:
    """The SDK client on a spawned ``memory-engine mcp --transport stdio --tenant <tenant>``."""
    cmd = server_cmd("stdio", "--tenant", tenant)
    params = StdioServerParameters(
        command=cmd[0], args=cmd[1:], env=server_env(db_url, **extra), cwd=cwd
    )
    async with Client(params, read_timeout_seconds=120) as client:
        yield client


@asynccontextmanager
async def http_client(url: str, token: str | None) -> AsyncIterator[Client]:
    """The SDK client on ``url`` with ``Authorization: Bearer <token>``."""
    headers = {"Authorization": f"Bearer {token}"} if token else None
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    async with Client(transport, read_timeout_seconds=120) as client:
        yield client


async def raw_call(client: Client, params: Any) -> types.CallToolResult:
    """Send ``tools/call`` with arbitrary (possibly malformed) ``params`` through the SDK session."""
    request = types.Request[Any, str](method="tools/call", params=params)
    return await client.session.send_request(request, types.CallToolResult)


def structured(result: types.CallToolResult) -> dict[str, Any]:
    assert not result.is_error, result.content
    assert result.structured_content is not None
    return dict(result.structured_content)


def text_of(result: types.CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, types.TextContent))
