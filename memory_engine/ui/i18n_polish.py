"""UI strings for the review follow-ups (session 4): golden-set roles on Query Replay and
quarantined memories awaiting review in maintenance. Same shape as ``i18n.py``."""

from __future__ import annotations

STRINGS: dict[str, dict[str, str]] = {
    "gold.editor_only": {
        "en": "Saving, importing or deleting golden sets needs the editor role. "
        "You can still run a set and export it.",
        "zh": "保存、导入或删除黄金测试集需要编辑者角色。您仍可运行和导出测试集。",
    },
}
