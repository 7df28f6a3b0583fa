"""UI strings of the frame around every page: app title, page navigation, the sidebar (tenant,
language, store), messages every page shows (no tenant, truncated lists, bad URL ids) and the
error messages of engine errors (English and Chinese).

Key prefixes: ``app``, ``nav``, ``sidebar``, ``common``, ``error`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- app.*: app title
    "app.title": {"en": "Memory Inspector", "zh": "记忆检查器"},
    # ---- nav.*: page navigation
    "nav.overview": {"en": "Overview", "zh": "概览"},
    "nav.memories": {"en": "Memories", "zh": "记忆"},
    "nav.query_replay": {"en": "Query Replay", "zh": "查询回放"},
    "nav.retention": {"en": "Retention", "zh": "保留"},
    "nav.audit": {"en": "Audit", "zh": "审计"},
    "nav.context_preview": {"en": "Context Preview", "zh": "上下文预览"},
    "nav.write_inspector": {"en": "Write Inspector", "zh": "写入检查"},
    "nav.conflicts": {"en": "Conflicts", "zh": "冲突审核"},
    "nav.write_eval": {"en": "Write Evaluation", "zh": "写入评测"},
    "nav.isolation": {"en": "Isolation", "zh": "租户隔离"},
    # ---- sidebar.*: sidebar
    "sidebar.tenant": {"en": "Tenant", "zh": "租户"},
    "sidebar.tenant_placeholder": {"en": "Choose a tenant", "zh": "选择租户"},
    "sidebar.tenant_option": {"en": "{tenant} ({count})", "zh": "{tenant}（{count}）"},
    "sidebar.tenant_typed": {"en": "{tenant} (typed)", "zh": "{tenant}（手动输入）"},
    "sidebar.tenant_input": {"en": "…or type a tenant id", "zh": "……或输入租户 ID"},
    "sidebar.tenant_input_help": {
        "en": "Letters, digits and _ . : - (1-64 characters). Press Enter to apply.",
        "zh": "字母、数字及 _ . : -（1-64 个字符）。按回车应用。",
    },
    "sidebar.tenant_invalid": {
        "en": "Invalid tenant id {tenant!r}: use letters, digits and _ . : - (1-64 characters).",
        "zh": "租户 ID {tenant!r} 无效：只能使用字母、数字及 _ . : -（1-64 个字符）。",
    },
    "sidebar.tenant_url_invalid": {
        "en": "The link's tenant {tenant!r} is not a valid tenant id, so it was ignored. "
        "A tenant id has 1-64 characters: letters, digits and _ . : -",
        "zh": "链接中的租户 {tenant!r} 不是有效的租户 ID，已忽略。"
        "租户 ID 为 1-64 个字符：字母、数字及 _ . : -",
    },
    "sidebar.tenants_cut": {
        "en": "Showing the {shown} largest of {total} tenants. Type any other tenant id below.",
        "zh": "仅列出最大的 {shown} 个租户（共 {total} 个）。其他租户请在下方输入 ID。",
    },
    "sidebar.tenants_unavailable": {
        "en": "Tenant list unavailable: {message}",
        "zh": "无法获取租户列表：{message}",
    },
    "sidebar.language": {"en": "Language", "zh": "语言"},
    "sidebar.store": {"en": "Store: {name}", "zh": "存储：{name}"},
    "sidebar.store_unreachable": {
        "en": "Store: {name} (unreachable)",
        "zh": "存储：{name}（无法连接）",
    },
    "sidebar.times_utc": {"en": "All times are shown in UTC.", "zh": "所有时间均以 UTC 显示。"},
    # ---- common.*: shown on every page
    "common.no_tenant": {
        "en": "No tenant selected. Choose a tenant in the sidebar (or type its id); "
        "nothing is shown across tenants here.",
        "zh": "尚未选择租户。请在侧边栏选择租户（或输入其 ID）；此处不会跨租户显示数据。",
    },
    "common.empty_tenant": {
        "en": "Tenant **{tenant}** has no memories yet. Import a file with "
        "`memory-engine ingest FILE --tenant {tenant} --format FORMAT`, one FORMAT of:\n\n"
        "{formats}\n\n(or call `MemoryEngine.write`).",
        "zh": "租户 **{tenant}** 还没有任何记忆。可用 "
        "`memory-engine ingest FILE --tenant {tenant} --format FORMAT` 导入文件，"
        "`FORMAT` 为以下之一：\n\n{formats}\n\n（或调用 `MemoryEngine.write`）。",
    },
    "common.format_line": {"en": "- `{name}`: {what}", "zh": "- `{name}`：{what}"},
    "common.format.openai": {
        "en": "OpenAI chat messages (JSON list, `messages` object or JSONL)",
        "zh": "OpenAI 聊天消息（JSON 列表、`messages` 对象或 JSONL）",
    },
    "common.format.locomo": {
        "en": "LoCoMo conversations (one memory per utterance, in session order)",
        "zh": "LoCoMo 对话（每句话一条记忆，按会话顺序）",
    },
    "common.format.text": {
        "en": "plain text, one memory per paragraph (an import: untrusted)",
        "zh": "纯文本，每段一条记忆（作为导入来源：不受信任）",
    },
    "common.truncated": {
        "en": "Showing the first {shown} of {total} rows.",
        "zh": "仅显示前 {shown} 行（共 {total} 行）。",
    },
    "common.truncated_unknown": {
        "en": "Showing the first {shown} rows; there are more.",
        "zh": "仅显示前 {shown} 行；还有更多。",
    },
    "common.all_rows": {
        "en": "Complete list ({total} in all).",
        "zh": "完整列表（共 {total} 条）。",
    },
    "common.invalid_id": {
        "en": "The link's {param} id {value!r} is not a valid id (expected a UUID like "
        "123e4567-e89b-12d3-a456-426614174000), so it was removed from the URL.",
        "zh": "链接中的{param} ID {value!r} 不是有效的 ID（应为 UUID，例如 "
        "123e4567-e89b-12d3-a456-426614174000），已从网址中移除。",
    },
    "common.param_memory": {"en": "memory", "zh": "记忆"},
    "common.param_trace": {"en": "search trace", "zh": "搜索追踪"},
    "common.current_tenant": {"en": "Tenant: **{tenant}**", "zh": "租户：**{tenant}**"},
    "common.utc": {"en": "UTC", "zh": "UTC"},
    "common.choose_one": {"en": "Choose an option", "zh": "请选择"},
    "common.choose_many": {"en": "Choose options", "zh": "请选择（可多选）"},
    "common.stop": {"en": "Stop", "zh": "停止"},
    "common.searching": {"en": "Searching…", "zh": "正在搜索……"},
    # ---- error.*: engine errors
    "error.store_unavailable": {
        "en": "The memory store is unreachable: {message}",
        "zh": "无法连接记忆存储：{message}",
    },
    "error.version_conflict": {
        "en": "Someone else changed this memory; reload it and apply your change again. ({message})",
        "zh": "其他人已修改了这条记忆；请重新加载后再修改。（{message}）",
    },
    "error.not_found": {
        "en": "Not found in this tenant ({message}).",
        "zh": "在此租户中未找到（{message}）。",
    },
    "error.memory_not_found": {
        "en": "Memory {id} was not found in this tenant.",
        "zh": "在此租户中找不到记忆 {id}。",
    },
    "error.trace_not_found": {
        "en": "Search trace {id} was not found in this tenant.",
        "zh": "在此租户中找不到搜索追踪 {id}。",
    },
    "error.invalid_input": {"en": "Invalid input: {message}", "zh": "输入无效：{message}"},
    "error.config": {"en": "Configuration problem: {message}", "zh": "配置问题：{message}"},
    "error.engine": {"en": "Error: {message}", "zh": "错误：{message}"},
    "error.unexpected": {
        "en": "Unexpected error ({kind}): {message}. Details are in the server log.",
        "zh": "意外错误（{kind}）：{message}。详情见服务器日志。",
    },
}
