"""UI strings for the review follow-ups (session 4): golden-set roles on Query Replay and
quarantined memories awaiting review in maintenance. Same shape as ``i18n.py``."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "gold.editor_only": {
        "en": "Saving, importing or deleting golden sets needs the editor role. "
        "You can still run a set and export it.",
        "zh": "保存、导入或删除黄金测试集需要编辑者角色。您仍可运行和导出测试集。",
    },
    "retention.awaiting_review": {
        "en": "{n} quarantined memories (injection suspected) are awaiting review: maintenance "
        "keeps them until a reviewer restores or deletes them (MEMORY_QUARANTINE_PURGE_DAYS "
        "opts in to purging them).",
        "zh": "{n} 条被隔离的记忆（疑似注入）正在等待审核：在审核者恢复或删除之前，维护不会清除它们"
        "（设置 MEMORY_QUARANTINE_PURGE_DAYS 可选择到期清除）。",
    },
}
