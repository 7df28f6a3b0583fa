"""UI strings of the Retention page: decay curves, what-if parameters and the next maintenance
(English and Chinese).

Key prefixes: ``retention`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "retention.title": {"en": "Retention and forgetting", "zh": "保留与遗忘"},
    "retention.caption": {
        "en": "Scores from memory_engine.scoring (the engine's own functions), computed at {now}.",
        "zh": "分数来自 `memory_engine.scoring`（与引擎相同的函数），计算时间 {now}。",
    },
    "retention.whatif": {"en": "What-if parameters", "zh": "假设参数"},
    "retention.preset": {"en": "Formula", "zh": "公式"},
    "retention.preset_decay": {
        "en": "decay: importance × 0.5^(age/half-life) + w·ln(1+accesses)",
        "zh": "衰减：重要度 × 0.5^(时长/半衰期) + w·ln(1+访问次数)",
    },
    "retention.preset_weighted": {
        "en": "weighted: 0.4·access + 0.3·recency + 0.3·confidence",
        "zh": "加权：0.4·访问 + 0.3·新近度 + 0.3·置信度",
    },
    "retention.half_life": {"en": "Half-life (days)", "zh": "半衰期（天）"},
    "retention.access_weight": {"en": "Access weight w", "zh": "访问权重 w"},
    "retention.floor": {"en": "Archive floor", "zh": "归档阈值"},
    "retention.bottom": {"en": "Bottom fraction of the ranking", "zh": "排名末尾比例"},
    "retention.purge_days": {"en": "Purge after (days archived)", "zh": "归档多少天后清除"},
    "retention.next": {
        "en": "The next maintenance would archive {archive}, purge {purge} and expire {expire}.",
        "zh": "下一次维护将归档 {archive} 条、清除 {purge} 条、使 {expire} 条过期。",
    },
    "retention.list_archive": {"en": "Would archive ({n})", "zh": "将归档（{n}）"},
    "retention.list_purge": {"en": "Would purge ({n})", "zh": "将清除（{n}）"},
    "retention.list_expire": {"en": "Would expire ({n})", "zh": "将过期（{n}）"},
    "retention.distribution": {"en": "Retention of active memories", "zh": "活跃记忆的保留分分布"},
    "retention.curves_type": {
        "en": "Decay by memory type (mean importance, confidence and accesses of the type)",
        "zh": "按记忆类型的衰减（该类型的平均重要度、置信度和访问次数）",
    },
    "retention.curve_memory": {"en": "Decay of one memory", "zh": "单条记忆的衰减"},
    "retention.pick_memory": {"en": "Memory", "zh": "记忆"},
    "retention.value_now": {"en": "Retention now", "zh": "当前保留分"},
    "retention.days_ahead": {"en": "days from now", "zh": "距今天数"},
    "retention.table": {"en": "Lowest retention first", "zh": "保留分从低到高"},
    "retention.scanned": {
        "en": "{active} active and {archived} archived memories scanned.",
        "zh": "已扫描 {active} 条活跃记忆和 {archived} 条归档记忆。",
    },
    "retention.cut": {
        "en": "Charts use the first {shown} of {total} active memories.",
        "zh": "图表仅使用 {total} 条活跃记忆中的前 {shown} 条。",
    },
    "retention.run_header": {"en": "Run maintenance", "zh": "执行维护"},
    "retention.run_confirm": {
        "en": "I understand this archives and purges (erases) memories of {tenant}.",
        "zh": "我了解这会归档并清除（彻底删除）{tenant} 的记忆。",
    },
    "retention.run": {"en": "Run maintenance now", "zh": "立即执行维护"},
    "retention.running": {
        "en": "Applying {done} of {total} changes…",
        "zh": "正在应用 {done}/{total} 项变更……",
    },
    "retention.done": {
        "en": "Done: archived {archive}, purged {purge}, expired {expire}; skipped {skipped} "
        "(changed meanwhile).",
        "zh": "完成：归档 {archive}、清除 {purge}、过期 {expire}；跳过 {skipped}（期间已被修改）。",
    },
    "retention.empty": {"en": "No active memories.", "zh": "没有活跃记忆。"},
    "retention.awaiting_review": {
        "en": "{n} quarantined memories (injection suspected) are awaiting review: maintenance "
        "keeps them until a reviewer restores or deletes them (MEMORY_QUARANTINE_PURGE_DAYS "
        "opts in to purging them).",
        "zh": "{n} 条被隔离的记忆（疑似注入）正在等待审核：在审核者恢复或删除之前，维护不会清除它们"
        "（设置 MEMORY_QUARANTINE_PURGE_DAYS 可选择到期清除）。",
    },
}
