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
        "zh": "记忆状态已变为{status}（版本 {version}）。",
    },
    "memories.timeline_link": {
        "en": "Full timeline and as-of view (Audit) →",
        "zh": "完整时间线与时间点视图（审计）→",
    },
    # ---- user, agent and session filters
    "memories.filter_user": {"en": "User id", "zh": "用户 ID"},
    "memories.filter_agent": {"en": "Agent id", "zh": "智能体 ID"},
    "memories.filter_session": {"en": "Session id", "zh": "会话 ID"},
    "memories.filter_bad_id": {
        "en": "“{value}” is not a valid id (letters, digits and _ . : - only); that filter is off.",
        "zh": "“{value}” 不是有效的 ID（只能包含字母、数字和 _ . : -），该筛选未生效。",
    },
    "memories.page_beyond": {
        "en": "The link asked for page {asked}; there are only {pages}, showing the last one.",
        "zh": "链接要求第 {asked} 页，但只有 {pages} 页，已显示最后一页。",
    },
    # ---- safe editing: deleted memories, confirmation, undo, purge
    "memories.deleted_note": {
        "en": "This memory is deleted: it cannot be edited, archived or deleted again. "
        "Restore it to change it, or purge it to erase it for good.",
        "zh": "这条记忆已删除：不能编辑、归档或再次删除。如需修改请先恢复；如需彻底抹除请使用清除。",
    },
    "memories.archive_disabled": {
        "en": "Only an active memory can be archived (this one is {status}).",
        "zh": "只有活跃的记忆可以归档（这条记忆当前为{status}）。",
    },
    "memories.restore_disabled": {
        "en": "This memory is already {status}; nothing to restore.",
        "zh": "这条记忆已经是{status}状态，无需恢复。",
    },
    "memories.delete_disabled": {
        "en": "This memory is already {status}. Restore it first, or purge it.",
        "zh": "这条记忆已经是{status}状态。请先恢复，或直接清除。",
    },
    "memories.confirm_delete": {
        "en": "Delete memory {id} (“{content}”)? It leaves search and lists; you can undo "
        "this or restore it later.",
        "zh": "确定删除记忆 {id}（“{content}”）吗？它将不再出现在检索和列表中；之后可以撤销或恢复。",
    },
    "memories.confirm_delete_many": {
        "en": "Delete these {n} memories? They leave search and lists; you can undo this or "
        "restore them later.",
        "zh": "确定删除这 {n} 条记忆吗？它们将不再出现在检索和列表中；之后可以撤销或恢复。",
    },
    "memories.confirm_yes": {"en": "Yes, delete", "zh": "确认删除"},
    "memories.confirm_cancel": {"en": "Cancel", "zh": "取消"},
    "memories.undo": {"en": "Undo {action}", "zh": "撤销{action}"},
    "memories.undo_reason": {"en": "undo of {action}: {reason}", "zh": "撤销{action}：{reason}"},
    "memories.undone": {
        "en": "Undid the {action} of {n} memories.",
        "zh": "已撤销 {n} 条记忆的{action}。",
    },
    "memories.failed_one": {
        "en": "Memory {id} was not changed: {error}",
        "zh": "记忆 {id} 未修改：{error}",
    },
    "memories.purge_header": {"en": "Erase for good (purge)", "zh": "彻底抹除（清除）"},
    "memories.purge_caption": {
        "en": "Purge removes the row, its vectors and keyword terms, and its content from every "
        "audit snapshot and stored search; it cannot be undone. Only a purge event remains.",
        "zh": "清除会删除该行、其向量与关键词索引，并从所有审计快照和已存检索中抹去其内容；"
        "此操作无法撤销，只保留一条清除事件。",
    },
    "memories.purge_type": {
        "en": "Type {word} (the id's first 8 characters) to confirm",
        "zh": "输入 {word}（ID 的前 8 个字符）以确认",
    },
    "memories.purge_disabled": {
        "en": "Type {word} in the field above to enable purge.",
        "zh": "在上方输入 {word} 后才能清除。",
    },
    "memories.purge": {"en": "Purge", "zh": "清除"},
    "memories.purged": {
        "en": "Memory {id} was purged; every index was re-checked and holds nothing of it.",
        "zh": "记忆 {id} 已清除；已复查所有索引，均不再包含它。",
    },
    "memories.purged_unverified": {
        "en": "Memory {id} was purged, but the check found traces of it; see the Audit page.",
        "zh": "记忆 {id} 已清除，但复查仍发现残留；请查看审计页面。",
    },
    "memories.history_undo_hint": {
        "en": "The last change was a {action}; it can still be undone.",
        "zh": "最近一次修改是{action}，仍可撤销。",
    },
    # ---- bulk actions
    "memories.bulk": {"en": "Change several memories", "zh": "批量修改"},
    "memories.bulk_select": {
        "en": "Memories of this page to change",
        "zh": "本页要修改的记忆",
    },
    "memories.bulk_placeholder": {"en": "Choose memories", "zh": "选择记忆"},
    "memories.bulk_all": {"en": "Select all on this page", "zh": "全选本页"},
    "memories.bulk_action": {"en": "Action", "zh": "操作"},
    "memories.retag": {"en": "Retag", "zh": "修改标签"},
    "memories.bulk_add_tags": {
        "en": "Tags to add (comma separated)",
        "zh": "要添加的标签（逗号分隔）",
    },
    "memories.bulk_remove_tags": {
        "en": "Tags to remove (comma separated)",
        "zh": "要移除的标签（逗号分隔）",
    },
    "memories.bulk_reason": {
        "en": "Reason (required, recorded on every memory)",
        "zh": "原因（必填，记录在每条记忆上）",
    },
    "memories.bulk_apply": {"en": "Apply to {n} selected", "zh": "应用到所选 {n} 条"},
    "memories.archived_n": {"en": "Archived {n} memories.", "zh": "已归档 {n} 条记忆。"},
    "memories.restored_n": {"en": "Restored {n} memories.", "zh": "已恢复 {n} 条记忆。"},
    "memories.deleted_n": {"en": "Deleted {n} memories.", "zh": "已删除 {n} 条记忆。"},
    "memories.retagged_n": {"en": "Retagged {n} memories.", "zh": "已修改 {n} 条记忆的标签。"},
}
