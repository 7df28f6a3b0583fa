"""UI strings of the Memories page: filters, the paginated table, detail, history, edit and archive
/ restore / delete (English and Chinese).

Key prefixes: ``memories`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "memories.title": {"en": "Memories", "zh": "记忆"},
    "memories.filters": {"en": "Filters", "zh": "筛选"},
    "memories.filter_type": {"en": "Type", "zh": "类型"},
    "memories.filter_status": {"en": "Status", "zh": "状态"},
    "memories.filter_source": {"en": "Source", "zh": "来源"},
    "memories.filter_text": {"en": "Content contains", "zh": "内容包含"},
    "memories.filter_dates": {"en": "Created between (UTC)", "zh": "创建时间范围（UTC）"},
    "memories.filter_any": {"en": "Any (no filter)", "zh": "不限"},
    "memories.filter_entity": {"en": "Entity", "zh": "实体"},
    "memories.entity_option": {"en": "{name} ({count})", "zh": "{name}（{count}）"},
    "memories.entities_truncated": {
        "en": "The entity list shows the {n} most linked entities.",
        "zh": "实体列表只显示关联记忆最多的 {n} 个实体。",
    },
    "memories.entities": {"en": "Entities", "zh": "实体"},
    "memories.entities_empty": {
        "en": "This memory names no entity.",
        "zh": "这条记忆没有关联实体。",
    },
    "memories.facet_option": {"en": "{value} ({count})", "zh": "{value}（{count}）"},
    "memories.page_size": {"en": "Rows per page", "zh": "每页行数"},
    "memories.rows": {
        "en": "Rows {first}–{last} of {total}",
        "zh": "第 {first}–{last} 行，共 {total} 行",
    },
    "memories.no_match": {
        "en": "No memory matches these filters.",
        "zh": "没有符合筛选条件的记忆。",
    },
    "memories.prev": {"en": "← Previous", "zh": "← 上一页"},
    "memories.next": {"en": "Next →", "zh": "下一页 →"},
    "memories.export_csv": {"en": "Download CSV", "zh": "下载 CSV"},
    "memories.export_json": {"en": "Download JSON", "zh": "下载 JSON"},
    "memories.export_caption": {
        "en": "Downloads export every memory under the current filters (at most {max} rows).",
        "zh": "下载当前筛选条件下的全部记忆（最多 {max} 行）。",
    },
    "memories.export_truncated": {
        "en": "The export holds the first {max} matching rows only.",
        "zh": "导出仅包含前 {max} 条匹配记录。",
    },
    "memories.select": {"en": "Memory to inspect", "zh": "要查看的记忆"},
    "memories.select_placeholder": {
        "en": "Choose a memory of this page",
        "zh": "从本页选择一条记忆",
    },
    "memories.select_hint": {
        "en": "Choose a memory above to see its fields, history and edit form.",
        "zh": "在上方选择一条记忆，查看其字段、历史并编辑。",
    },
    "memories.detail": {"en": "Memory {short_id}", "zh": "记忆 {short_id}"},
    "memories.fields": {"en": "Fields", "zh": "字段"},
    "memories.history": {"en": "History", "zh": "历史"},
    "memories.history_empty": {"en": "No events recorded.", "zh": "没有记录的事件。"},
    "memories.edit": {"en": "Edit", "zh": "编辑"},
    "memories.edit_version": {
        "en": "Editing version {version}. Saving checks that nobody changed it since.",
        "zh": "正在编辑版本 {version}。保存时会检查此后是否有人修改过。",
    },
    "memories.edit_stale": {
        "en": "This memory is now at version {current}; you are editing version {version}.",
        "zh": "该记忆当前为版本 {current}；你正在编辑的是版本 {version}。",
    },
    "memories.content": {"en": "Content", "zh": "内容"},
    "memories.importance": {"en": "Importance (0–1)", "zh": "重要性（0–1）"},
    "memories.type": {"en": "Type", "zh": "类型"},
    "memories.tags": {"en": "Tags (comma separated)", "zh": "标签（逗号分隔）"},
    "memories.reason": {"en": "Reason (required)", "zh": "原因（必填）"},
    "memories.preview": {"en": "Preview changes", "zh": "预览修改"},
    "memories.save": {"en": "Save", "zh": "保存"},
    "memories.reload": {"en": "Reload this memory", "zh": "重新加载此记忆"},
    "memories.reason_required": {
        "en": "A reason is required for every change.",
        "zh": "每次修改都必须填写原因。",
    },
    "memories.no_changes": {"en": "Nothing would change.", "zh": "没有任何改动。"},
    "memories.diff": {"en": "Changes to be saved", "zh": "将要保存的修改"},
    "memories.saved": {"en": "Saved version {version}.", "zh": "已保存为版本 {version}。"},
    "memories.lifecycle": {"en": "Archive / restore / delete", "zh": "归档 / 恢复 / 删除"},
    "memories.lifecycle_reason": {"en": "Reason (required)", "zh": "原因（必填）"},
    "memories.archive": {"en": "Archive", "zh": "归档"},
    "memories.restore": {"en": "Restore", "zh": "恢复"},
    "memories.delete": {"en": "Delete", "zh": "删除"},
    "memories.status_changed": {
        "en": "Memory is now {status} (version {version}).",
        "zh": "记忆状态已变为 {status}（版本 {version}）。",
    },
    "memories.timeline_link": {
        "en": "Full timeline and as-of view (Audit) →",
        "zh": "完整时间线与时间点视图（审计）→",
    },
}
