"""MCP server of the memory engine: ``memory-engine mcp --transport stdio|http``.

Modules: ``binding`` (tenant of the server or of a bearer token), ``tools`` (argument schemas
and engine calls), ``server`` (the SDK server, stdio and streamable HTTP).
"""

from memory_engine.mcp_server.binding import Binding, TokenMap
from memory_engine.mcp_server.server import build_http_app, build_server, run_http, run_stdio
from memory_engine.mcp_server.tools import TOOLS

__all__ = [
    "TOOLS",
    "Binding",
    "TokenMap",
    "build_http_app",
    "build_server",
    "run_http",
    "run_stdio",
]
