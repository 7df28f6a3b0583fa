"""UI strings of the Overview page: memories per tenant and the selected tenant's counts (English
and Chinese).

Key prefixes: ``overview`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "overview.title": {"en": "Overview", "zh": "概览"},
    "overview.tenants_header": {"en": "Memories per tenant", "zh": "各租户记忆数"},
    "overview.tenants_caption": {
        "en": "Active and archived memories per tenant (cross-tenant admin read; audited).",
        "zh": "各租户的活跃与已归档记忆数（跨租户管理读取，已审计）。",
    },
    "overview.tenants_caption_granted": {
        "en": "Active and archived memories of each tenant granted to you (one scoped count each).",
        "zh": "授予您的各租户的活跃与已归档记忆数（每个租户单独计数）。",
    },
    "overview.no_tenants": {
        "en": "The store holds no memories yet. Ingest with "
        "`memory-engine ingest FILE --tenant T --format locomo`.",
        "zh": "存储中还没有记忆。可用 `memory-engine ingest FILE --tenant T --format locomo` 导入。",
    },
    "overview.tenant_header": {"en": "Tenant {tenant}", "zh": "租户 {tenant}"},
    "overview.total": {"en": "Memories (all statuses)", "zh": "记忆总数（所有状态）"},
    "overview.by_type": {"en": "By type", "zh": "按类型"},
    "overview.by_status": {"en": "By status", "zh": "按状态"},
    "overview.by_source": {"en": "By source", "zh": "按来源"},
    "overview.writes_per_day": {
        "en": "Writes per day (UTC, last {days} days)",
        "zh": "每日写入数（UTC，最近 {days} 天）",
    },
    "overview.no_writes": {"en": "No writes in this period.", "zh": "此期间没有写入。"},
}
