"""UI strings of the Retention and Audit pages (issue 6), English and Chinese.

Same shape as :data:`memory_engine.dashboard.i18n.core.STRINGS` (merged into it there).
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "nav.retention": {"en": "Retention", "zh": "保留"},
    "nav.audit": {"en": "Audit", "zh": "审计"},
    "memories.timeline_link": {
        "en": "Full timeline and as-of view (Audit) →",
        "zh": "完整时间线与时间点视图（审计）→",
    },
    # ---- retention
    "retention.title": {"en": "Retention and forgetting", "zh": "保留与遗忘"},
    "retention.caption": {
        "en": "Scores from memory_engine.scoring (the engine's own functions), computed at {now}.",
        "zh": "分数来自 memory_engine.scoring（与引擎相同的函数），计算时间 {now}。",
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
    # ---- audit
    "audit.title": {"en": "Audit", "zh": "审计"},
    "audit.events_header": {"en": "Event log", "zh": "事件日志"},
    "audit.loaded": {
        "en": "The latest {shown} of {total} events (newest first).",
        "zh": "共 {total} 条事件中最新的 {shown} 条（最新在前）。",
    },
    "audit.facet_action": {"en": "Action", "zh": "操作"},
    "audit.facet_actor": {"en": "Actor", "zh": "操作者"},
    "audit.facet_day": {"en": "Day (UTC)", "zh": "日期（UTC）"},
    "audit.filtered": {"en": "{n} events match the filters.", "zh": "{n} 条事件符合筛选条件。"},
    "audit.export_csv": {"en": "Export CSV", "zh": "导出 CSV"},
    "audit.export_json": {"en": "Export JSON", "zh": "导出 JSON"},
    "audit.diff_header": {"en": "Before / after of one event", "zh": "单个事件的前后对比"},
    "audit.pick_event": {"en": "Event id", "zh": "事件 ID"},
    "audit.no_diff": {"en": "This event has no snapshot.", "zh": "该事件没有快照。"},
    "audit.asof_header": {"en": "As-of browser", "zh": "时间点浏览"},
    "audit.asof_date": {"en": "Date (UTC)", "zh": "日期（UTC）"},
    "audit.asof_time": {"en": "Time (UTC)", "zh": "时间（UTC）"},
    "audit.asof_count": {
        "en": "{n} memories existed at {when} ({active} active).",
        "zh": "{when} 时共有 {n} 条记忆（{active} 条活跃）。",
    },
    "audit.timeline_header": {"en": "Timeline of one memory", "zh": "单条记忆的时间线"},
    "audit.timeline_id": {"en": "Memory id", "zh": "记忆 ID"},
    "audit.timeline_bad_id": {"en": "Not a memory id: {value}", "zh": "不是有效的记忆 ID：{value}"},
    "audit.validity": {"en": "valid in the world", "zh": "现实中有效"},
    "audit.accesses": {
        "en": "Accessed {count} times, last at {last}.",
        "zh": "被访问 {count} 次，最近一次为 {last}。",
    },
    "audit.compare_header": {
        "en": "A past search: as of then versus now",
        "zh": "历史查询：当时与现在对比",
    },
    "audit.no_traces": {"en": "No stored searches yet.", "zh": "还没有保存的查询。"},
    "audit.pick_trace": {"en": "Stored search", "zh": "已保存的查询"},
    "audit.compare_summary": {
        "en": "Entered {entered}, left {left}, moved {moved}, unchanged {unchanged}; "
        "erased since: {erased}.",
        "zh": "新进入 {entered}，离开 {left}，名次变化 {moved}，不变 {unchanged}；之后被清除：{erased}。",
    },
    "audit.change_entered": {"en": "entered", "zh": "新进入"},
    "audit.change_left": {"en": "left", "zh": "离开"},
    "audit.change_moved": {"en": "moved", "zh": "名次变化"},
    "audit.change_unchanged": {"en": "unchanged", "zh": "不变"},
    "col.rank_then": {"en": "rank then", "zh": "当时名次"},
    "col.rank_now": {"en": "rank now", "zh": "现在名次"},
    "col.rrf_then": {"en": "rrf ↑ then", "zh": "当时 rrf ↑"},
    "col.rrf_now": {"en": "rrf ↑ now", "zh": "现在 rrf ↑"},
    "col.what": {"en": "change", "zh": "变化"},
    "audit.refresh": {"en": "Refresh (tail)", "zh": "刷新（追踪最新）"},
    "col.event_id": {"en": "event", "zh": "事件"},
    "col.memory": {"en": "memory", "zh": "记忆"},
    "col.retention": {"en": "retention", "zh": "保留分"},
    "col.accesses": {"en": "accesses", "zh": "访问次数"},
    "col.last_access": {"en": "last access", "zh": "最近访问"},
    "col.days": {"en": "days", "zh": "天"},
    "col.rule": {"en": "rule", "zh": "规则"},
}
