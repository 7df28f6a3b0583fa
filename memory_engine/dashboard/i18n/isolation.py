"""UI strings of tenant isolation: the Isolation page (probes and leaks per path) and the cross-
tenant alarm of a trace (English and Chinese).

Key prefixes: ``isolation``, ``alarm`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- isolation.*: isolation check
    "isolation.title": {"en": "Tenant isolation check", "zh": "租户隔离检查"},
    "isolation.caption": {
        "en": "Plants canary memories in fresh probe tenants and tries to reach each tenant's "
        "data from every other one through every search leg and every read and write path. "
        "The probe tenants are purged afterwards.",
        "zh": "在新建的探测租户中植入金丝雀记忆，再从其他每个租户出发，经由每条检索通路和每个"
        "读写接口尝试访问它们。结束后探测租户会被清除。",
    },
    "isolation.tenants": {"en": "Probe tenants", "zh": "探测租户数"},
    "isolation.run": {"en": "Run the check", "zh": "运行检查"},
    "isolation.running": {
        "en": "Probing tenant pairs: {done}/{total}",
        "zh": "正在探测租户对：{done}/{total}",
    },
    "isolation.ok": {
        "en": "No leak: {probes} probes, {seconds} s.",
        "zh": "未发现泄漏：共 {probes} 次探测，用时 {seconds} 秒。",
    },
    "isolation.leaks": {
        "en": "ALARM: {leaks} leak(s) and {errors} error(s). See the table below.",
        "zh": "警报：发现 {leaks} 处泄漏、{errors} 个错误，详见下表。",
    },
    "isolation.col_path": {"en": "path", "zh": "通路"},
    "isolation.col_probes": {"en": "probes", "zh": "探测次数"},
    "isolation.col_leaks": {"en": "leaks", "zh": "泄漏"},
    "isolation.download": {"en": "Download the report (JSON)", "zh": "下载报告（JSON）"},
    "isolation.paths_header": {
        "en": "Probes and leaks per path",
        "zh": "各通路的探测与泄漏",
    },
    "isolation.paths_caption": {
        "en": "engine: the Python API · cli: the memory-engine commands · mcp: the MCP server "
        "bound to one tenant · dashboard: the Query Replay and Memories reads of a viewer "
        "granted one tenant.",
        "zh": "引擎：Python API · 命令行：memory-engine 命令 · MCP：绑定单个租户的 MCP 服务 · "
        "仪表盘：仅被授权一个租户的只读账号在查询回放和记忆页面中的读取。",
    },
    "isolation.path.engine": {"en": "engine (Python API)", "zh": "引擎（Python API）"},
    "isolation.path.cli": {"en": "cli (commands)", "zh": "命令行"},
    "isolation.path.mcp": {"en": "mcp (MCP server)", "zh": "MCP 服务"},
    "isolation.path.dashboard": {"en": "dashboard (page reads)", "zh": "仪表盘（页面读取）"},
    "isolation.calls_header": {"en": "Probes per call", "zh": "各调用的探测"},
    # ---- alarm.*: cross-tenant alarm
    "alarm.badge": {"en": "Cross-tenant alarm", "zh": "跨租户警报"},
    "alarm.detail": {
        "en": "ALARM: the store returned {dropped} row(s) of another tenant (stages: {stages}). "
        "They were dropped and are not shown; the event is in the audit log and the server log.",
        "zh": "警报：存储返回了 {dropped} 条属于其他租户的记录（阶段：{stages}）。这些记录已被丢弃，"
        "不会显示；该事件已记入审计日志和服务器日志。",
    },
}
