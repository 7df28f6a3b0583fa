"""UI strings of chart labels: category values (memory type, status, source, event action)
and axis titles that charts showed in English only. Same shape as ``i18n._CORE``."""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- memory types (models.MemoryType)
    "value.type.episodic": {"en": "episodic", "zh": "情景"},
    "value.type.semantic": {"en": "semantic", "zh": "语义"},
    "value.type.procedural": {"en": "procedural", "zh": "程序"},
    # ---- memory statuses (models.MemoryStatus)
    "value.status.active": {"en": "active", "zh": "活跃"},
    "value.status.archived": {"en": "archived", "zh": "已归档"},
    "value.status.superseded": {"en": "superseded", "zh": "已取代"},
    "value.status.deleted": {"en": "deleted", "zh": "已删除"},
    # ---- memory sources (models.MemorySource)
    "value.source.conversation": {"en": "conversation", "zh": "对话"},
    "value.source.tool_output": {"en": "tool output", "zh": "工具输出"},
    "value.source.manual": {"en": "manual", "zh": "手动"},
    "value.source.import": {"en": "import", "zh": "导入"},
    # ---- event actions (models.EventAction)
    "value.action.create": {"en": "create", "zh": "创建"},
    "value.action.update": {"en": "update", "zh": "更新"},
    "value.action.archive": {"en": "archive", "zh": "归档"},
    "value.action.restore": {"en": "restore", "zh": "恢复"},
    "value.action.supersede": {"en": "supersede", "zh": "取代"},
    "value.action.delete": {"en": "delete", "zh": "删除"},
    "value.action.purge": {"en": "purge", "zh": "清除"},
    "value.action.merge": {"en": "merge", "zh": "合并"},
    "value.action.decision": {"en": "decision", "zh": "写入决策"},
    "value.action.admin_read": {"en": "admin read", "zh": "管理员读取"},
    "value.action.purge_proof": {"en": "purge proof", "zh": "清除证明"},
    "value.action.tenant_alarm": {"en": "cross-tenant alarm", "zh": "跨租户告警"},
    # ---- chart axes
    "chart.rank": {"en": "rank", "zh": "排名"},
    "chart.memories": {"en": "memories", "zh": "记忆数"},
}
