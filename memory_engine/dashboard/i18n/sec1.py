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
    "alarm.badge": {"en": "Cross-tenant alarm", "zh": "跨租户警报"},
    "alarm.detail": {
        "en": "ALARM: the store returned {dropped} row(s) of another tenant (stages: {stages}). "
        "They were dropped and are not shown; the event is in the audit log and the server log.",
        "zh": "警报：存储返回了 {dropped} 条属于其他租户的记录（阶段：{stages}）。这些记录已被丢弃，"
        "不会显示；该事件已记入审计日志和服务器日志。",
    },
}
