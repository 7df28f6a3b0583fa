"""UI strings of the Isolation page (English and Chinese)."""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "nav.isolation": {"en": "Isolation", "zh": "租户隔离"},
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
}
