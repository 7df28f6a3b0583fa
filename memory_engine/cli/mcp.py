"""``memory-engine mcp``: run the MCP server.

Nothing but JSON-RPC is written to stdout in stdio mode; errors and logs go to stderr.
"""

from __future__ import annotations

import json
import logging
import signal
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer

from memory_engine.cli.common import app
from memory_engine.config import Settings
from memory_engine.errors import ConfigError, MemoryEngineError


class Transport(StrEnum):
    stdio = "stdio"
    http = "http"


@app.command("mcp")
def mcp_command(
    transport: Annotated[Transport, typer.Option(help="stdio (one client) or http.")] = (
        Transport.stdio
    ),
    tenant: Annotated[
        str | None, typer.Option(help="Tenant every call acts for (default MEMORY_MCP_TENANT).")
    ] = None,
    user: Annotated[str | None, typer.Option(help="User id narrowing the tenant.")] = None,
    agent: Annotated[str | None, typer.Option(help="Agent id narrowing the tenant.")] = None,
    host: Annotated[str | None, typer.Option(help="http: bind host (MEMORY_MCP_HOST).")] = None,
    port: Annotated[
        int | None, typer.Option(help="http: port, 0 = any free one (MEMORY_MCP_PORT).")
    ] = None,
) -> None:
    """Serve the memory tools over MCP (memory_write, memory_search, memory_update, ...)."""
    try:
        overrides: dict[str, Any] = {}
        if tenant is not None:  # a new tenant: user/agent of the environment do not carry over
            overrides.update(mcp_tenant=tenant, mcp_user_id=user, mcp_agent_id=agent)
        else:  # MEMORY_MCP_TENANT: --user/--agent still narrow it (never silently dropped)
            if user is not None:
                overrides["mcp_user_id"] = user
            if agent is not None:
                overrides["mcp_agent_id"] = agent
        settings = Settings(**overrides)
        logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr)
        from memory_engine.mcp_server import run_http, run_stdio

        if transport is Transport.stdio:
            # Not the CLI's SIGTERM -> SystemExit: asyncio would then wait forever for the
            # thread blocked reading stdin. The default action (the process dies) stays.
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            run_stdio(settings)
        else:
            run_http(
                settings,
                host=host or settings.mcp.host,
                port=settings.mcp.port if port is None else port,
            )
    except MemoryEngineError as exc:
        print(json.dumps(exc.to_dict(), ensure_ascii=False), file=sys.stderr)
        raise typer.Exit(2) from exc
    except ValueError as exc:  # pydantic settings validation
        err = ConfigError(f"invalid MEMORY_* setting: {exc}")
        print(json.dumps(err.to_dict(), ensure_ascii=False), file=sys.stderr)
        raise typer.Exit(2) from exc
