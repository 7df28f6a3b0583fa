"""UI strings of the isolation paths and the cross-tenant alarm (English and Chinese)."""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "isolation.paths_header": {
        "en": "Probes and leaks per path",
        "zh": "各通路的探测与泄漏",
    },
    "isolation.paths_caption": {
        "en": "engine: the Python API · cli: the memory-engine commands · mcp: the MCP server "
        "bound to one tenant · dashboard: the Query Replay and Memories reads of a viewer "
        "granted one tenant.",
        "zh": "engine：Python API · cli：memory-engine 命令 · mcp：绑定单个租户的 MCP 服务 · "
        "dashboard：仅被授权一个租户的只读账号在查询回放和记忆页面中的读取。",
    },
    "isolation.path.engine": {"en": "engine (Python API)", "zh": "引擎（Python API）"},
    "isolation.path.cli": {"en": "cli (commands)", "zh": "命令行"},
    "isolation.path.mcp": {"en": "mcp (MCP server)", "zh": "MCP 服务"},
    "isolation.path.dashboard": {"en": "dashboard (page reads)", "zh": "仪表盘（页面读取）"},
    "isolation.calls_header": {"en": "Probes per call", "zh": "各调用的探测"},
}
