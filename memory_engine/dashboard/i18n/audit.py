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
    # ---- event table: headers, time zone, diff
    "audit.col_id": {"en": "id", "zh": "ID"},
    "audit.col_at_local": {"en": "time", "zh": "时间"},
    "audit.col_time": {"en": "time", "zh": "时间"},
    "audit.col_action": {"en": "action", "zh": "操作"},
    "audit.col_actor": {"en": "actor", "zh": "操作者"},
    "audit.col_memory_id": {"en": "memory", "zh": "记忆"},
    "audit.col_content": {"en": "content (as stored)", "zh": "内容（按存储原样）"},
    "audit.col_reason": {"en": "reason", "zh": "原因"},
    "audit.col_pii": {"en": "PII", "zh": "个人信息"},
    "audit.col_valid_from": {"en": "valid from", "zh": "生效起"},
    "audit.col_valid_until": {"en": "valid until", "zh": "生效至"},
    "audit.time_help": {
        "en": "In your time zone ({tz}). The exports also carry the time in UTC (column at).",
        "zh": "按您的时区（{tz}）显示。导出文件中另有 UTC 时间（`at` 列）。",
    },
    "audit.timezone": {
        "en": "Times are shown in your time zone: {tz}.",
        "zh": "时间按您的时区显示：{tz}。",
    },
    "audit.facet_day_local": {"en": "Day ({tz})", "zh": "日期（{tz}）"},
    "audit.event_summary": {
        "en": "Event #{id} · {action} by {actor} at {local} (UTC {utc})",
        "zh": "事件 #{id} · {actor} 执行「{action}」· {local}（UTC {utc}）",
    },
    "audit.changed_only": {
        "en": "{n} changed fields shown; {hidden} unchanged fields hidden.",
        "zh": "显示 {n} 个有变化的字段；隐藏 {hidden} 个未变化的字段。",
    },
    "audit.show_all_fields": {"en": "Show unchanged fields too", "zh": "同时显示未变化的字段"},
    "audit.no_change": {"en": "No field changed.", "zh": "没有字段发生变化。"},
    "audit.event_details": {"en": "Details", "zh": "详情"},
    "audit.event_missing": {
        "en": "Event #{id} is not among the loaded events.",
        "zh": "事件 #{id} 不在已加载的事件中。",
    },
    # ---- deletion receipts
    "audit.erase_header": {"en": "Erase this memory (verified)", "zh": "清除这条记忆（可验证）"},
    "audit.erase_intro": {
        "en": "A purge erases every copy listed below, then re-queries every index and read "
        "path and stores the result as a deletion receipt (a purge proof event).",
        "zh": "清除会删除下表列出的所有副本，然后重新查询每个索引和读取路径，"
        "并把结果保存为删除回执（清除证明事件）。",
    },
    "audit.erase_total": {
        "en": "{total} stored copies will be erased.",
        "zh": "将清除 {total} 份存储副本。",
    },
    "audit.erase_reason": {"en": "Reason (recorded)", "zh": "原因（将被记录）"},
    "audit.erase_confirm": {
        "en": "Type {code} to confirm",
        "zh": "输入 {code} 以确认",
    },
    "audit.erase_button": {"en": "Erase permanently", "zh": "永久清除"},
    "audit.erase_need_admin": {
        "en": "Only an admin may purge memories.",
        "zh": "只有管理员可以清除记忆。",
    },
    "audit.erase_gone": {
        "en": "This memory no longer exists (erased); its receipt is in the event log.",
        "zh": "这条记忆已不存在（已清除）；其回执在事件日志中。",
    },
    "audit.erase_done_ok": {
        "en": "Erased. Every check passed: see the deletion receipt below.",
        "zh": "已清除。所有检查均通过：见下方删除回执。",
    },
    "audit.erase_done_failed": {
        "en": "Erased, but some checks failed: {failed}. See the deletion receipt below.",
        "zh": "已清除，但部分检查未通过：{failed}。见下方删除回执。",
    },
    "audit.receipt_header": {"en": "Deletion receipt", "zh": "删除回执"},
    "audit.receipt_summary_ok": {
        "en": "Memory {memory} erased at {when}: all {n} checks passed.",
        "zh": "记忆 {memory} 于 {when} 清除：全部 {n} 项检查通过。",
    },
    "audit.receipt_summary_failed": {
        "en": "Memory {memory} erased at {when}: {failed} of {n} checks FAILED.",
        "zh": "记忆 {memory} 于 {when} 清除：{n} 项检查中有 {failed} 项未通过。",
    },
    "audit.receipt_legacy": {
        "en": "This purge proof predates receipts: it lists the counts after the purge only.",
        "zh": "该清除证明早于回执功能：只列出清除后的计数。",
    },
    "audit.receipt_csv": {"en": "Export receipt CSV", "zh": "导出回执 CSV"},
    "audit.receipt_json": {"en": "Export receipt JSON", "zh": "导出回执 JSON"},
    "audit.col_place": {"en": "where", "zh": "位置"},
    "audit.col_kind": {"en": "kind", "zh": "类别"},
    "audit.col_count": {"en": "count", "zh": "数量"},
    "audit.col_before": {"en": "before", "zh": "清除前"},
    "audit.col_after": {"en": "after", "zh": "清除后"},
    "audit.col_result": {"en": "result", "zh": "结果"},
    "audit.kind_index": {"en": "stored copy", "zh": "存储副本"},
    "audit.kind_read_path": {"en": "read path", "zh": "读取路径"},
    "audit.pass": {"en": "✓ pass", "zh": "✓ 通过"},
    "audit.fail": {"en": "✗ FAIL", "zh": "✗ 未通过"},
    "audit.check_row": {"en": "memory row", "zh": "记忆行"},
    "audit.check_vector": {"en": "vector", "zh": "向量"},
    "audit.check_keyword_terms": {"en": "keyword postings", "zh": "关键词倒排项"},
    "audit.check_entity_links": {"en": "entity links", "zh": "实体链接"},
    "audit.check_events_with_content": {
        "en": "event snapshots with its text",
        "zh": "含其内容的事件快照",
    },
    "audit.check_reasons_with_content": {
        "en": "event reasons quoting it",
        "zh": "引用其内容的事件原因",
    },
    "audit.check_traces_with_content": {
        "en": "stored searches quoting it",
        "zh": "引用它的已保存查询",
    },
    "audit.check_journal_writes_with_content": {
        "en": "journalled writes quoting it",
        "zh": "引用它的写入日志记录",
    },
    "audit.check_working_memory_entries": {
        "en": "working-memory entries quoting it",
        "zh": "引用它的工作记忆条目",
    },
    "audit.check_get": {
        "en": "get (API, MCP, Memories page)",
        "zh": "按 ID 读取（API、MCP、记忆页）",
    },
    "audit.check_list": {"en": "list (API, Memories page)", "zh": "列表（API、记忆页）"},
    "audit.check_search": {
        "en": "search (API, MCP, Query Replay)",
        "zh": "检索（API、MCP、查询回放）",
    },
    "audit.check_as_of": {"en": "as-of history", "zh": "时间点历史"},
    "audit.choose": {"en": "Choose options", "zh": "请选择"},
    "audit.choose_one": {"en": "Choose one", "zh": "请选择一项"},
    "audit.check_as_of_cache_entries": {
        "en": "as-of search cache entries",
        "zh": "时间点检索缓存条目",
    },
    "audit.content_diff": {"en": "Content change:", "zh": "内容变化："},
}
