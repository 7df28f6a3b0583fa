"""UI strings of table column headers (``col.*``), stored category values such as memory types and
statuses shown in charts and tables (``value.<kind>.<value>``) and chart axis titles (English
and Chinese).

Key prefixes: ``col``, ``value``, ``chart`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- col.*: table columns
    "col.tenant": {"en": "tenant", "zh": "租户"},
    "col.count": {"en": "count", "zh": "数量"},
    "col.day": {"en": "day (UTC)", "zh": "日期（UTC）"},
    "col.value": {"en": "value", "zh": "取值"},
    "col.id": {"en": "id", "zh": "ID"},
    "col.content": {"en": "content", "zh": "内容"},
    "col.type": {"en": "type", "zh": "类型"},
    "col.status": {"en": "status", "zh": "状态"},
    "col.source": {"en": "source", "zh": "来源"},
    "col.importance": {"en": "importance", "zh": "重要性"},
    "col.tags": {"en": "tags", "zh": "标签"},
    "col.created": {"en": "created (UTC)", "zh": "创建时间（UTC）"},
    "col.observed": {"en": "observed (UTC)", "zh": "发生时间（UTC）"},
    "col.version": {"en": "version", "zh": "版本"},
    "col.field": {"en": "field", "zh": "字段"},
    "col.before": {"en": "before", "zh": "修改前"},
    "col.after": {"en": "after", "zh": "修改后"},
    "col.action": {"en": "action", "zh": "操作"},
    "col.actor": {"en": "actor", "zh": "操作者"},
    "col.time": {"en": "time (UTC)", "zh": "时间（UTC）"},
    "col.reason": {"en": "reason", "zh": "原因"},
    "col.change": {"en": "before → after", "zh": "修改前 → 修改后"},
    "col.cosine": {"en": "cosine ↑", "zh": "余弦 ↑"},
    "col.bm25": {"en": "bm25 ↑", "zh": "bm25 ↑"},
    "col.rrf": {"en": "rrf (fused) ↑", "zh": "rrf（融合）↑"},
    "col.dense_rank": {"en": "dense rank", "zh": "向量排名"},
    "col.keyword_rank": {"en": "keyword rank", "zh": "关键词排名"},
    "col.fused_rank": {"en": "fused rank", "zh": "融合排名"},
    "col.final_rank": {"en": "final rank", "zh": "最终排名"},
    "col.delta_rank": {"en": "Δrank", "zh": "Δ排名"},
    "col.drop": {"en": "drop reason", "zh": "丢弃原因"},
    "col.query": {"en": "query", "zh": "查询"},
    "col.returned": {"en": "returned", "zh": "返回数"},
    "col.rank_then": {"en": "rank then", "zh": "当时名次"},
    "col.rank_now": {"en": "rank now", "zh": "现在名次"},
    "col.rrf_then": {"en": "rrf ↑ then", "zh": "当时 rrf ↑"},
    "col.rrf_now": {"en": "rrf ↑ now", "zh": "现在 rrf ↑"},
    "col.what": {"en": "change", "zh": "变化"},
    "col.event_id": {"en": "event", "zh": "事件"},
    "col.memory": {"en": "memory", "zh": "记忆"},
    "col.retention": {"en": "retention", "zh": "保留分"},
    "col.accesses": {"en": "accesses", "zh": "访问次数"},
    "col.last_access": {"en": "last access", "zh": "最近访问"},
    "col.days": {"en": "days", "zh": "天"},
    "col.rule": {"en": "rule", "zh": "规则"},
    # ---- value.*: stored category values (models enums)
    "value.type.episodic": {"en": "episodic", "zh": "情景"},
    "value.type.semantic": {"en": "semantic", "zh": "语义"},
    "value.type.procedural": {"en": "procedural", "zh": "程序"},
    "value.status.active": {"en": "active", "zh": "活跃"},
    "value.status.archived": {"en": "archived", "zh": "已归档"},
    "value.status.superseded": {"en": "superseded", "zh": "已取代"},
    "value.status.deleted": {"en": "deleted", "zh": "已删除"},
    "value.source.conversation": {"en": "conversation", "zh": "对话"},
    "value.source.tool_output": {"en": "tool output", "zh": "工具输出"},
    "value.source.manual": {"en": "manual", "zh": "手动"},
    "value.source.import": {"en": "import", "zh": "导入"},
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
    # ---- chart.*: chart axes
    "chart.rank": {"en": "rank", "zh": "排名"},
    "chart.memories": {"en": "memories", "zh": "记忆数"},
}
