"""UI strings of the Audit page: event log and facets, before / after, the as-of browser, the
timeline of one memory and a past search then versus now (English and Chinese).

Key prefixes: ``audit`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
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
    "audit.refresh": {"en": "Refresh (tail)", "zh": "刷新（追踪最新）"},
    "audit.facet_pii": {
        "en": "Only events with PII findings ({n})",
        "zh": "只看含个人信息发现的事件（{n}）",
    },
}
