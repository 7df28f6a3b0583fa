"""Every UI string of the Memory Inspector, in English and Chinese, in one place.

``t(key, lang, **fields)`` looks a string up and fills ``{placeholders}`` with
``str.format``. Unknown languages fall back to English; an unknown key raises ``KeyError``
(a test checks every key has both languages with the same placeholders).
"""

from __future__ import annotations

from typing import Final

from memory_engine.dashboard.i18n.auth import STRINGS as _auth_strings
from memory_engine.dashboard.i18n.context import STRINGS as _context_strings
from memory_engine.dashboard.i18n.isolation import STRINGS as _isolation_strings
from memory_engine.dashboard.i18n.lifecycle import STRINGS as _lifecycle_strings
from memory_engine.dashboard.i18n.polish import STRINGS as _polish_strings
from memory_engine.dashboard.i18n.retrieval import STRINGS as _retrieval_strings
from memory_engine.dashboard.i18n.retrieval import WARNINGS as _retrieval_warnings
from memory_engine.dashboard.i18n.review import STRINGS as _review_strings
from memory_engine.dashboard.i18n.sec1 import STRINGS as _sec1_strings
from memory_engine.dashboard.i18n.sec2 import STRINGS as _pii_strings
from memory_engine.dashboard.i18n.stores import STRINGS as _stores_strings
from memory_engine.dashboard.i18n.tidy import STRINGS as _tidy_strings
from memory_engine.dashboard.i18n.write import STRINGS as _WRITE_STRINGS

LANGS: Final = ("en", "zh")
DEFAULT_LANG: Final = "en"
LANG_LABELS: Final = {"en": "English", "zh": "中文"}

_CORE: Final[dict[str, dict[str, str]]] = {
    # ---- app / sidebar
    "app.title": {"en": "Memory Inspector", "zh": "记忆检查器"},
    "nav.overview": {"en": "Overview", "zh": "概览"},
    "nav.memories": {"en": "Memories", "zh": "记忆"},
    "nav.query_replay": {"en": "Query Replay", "zh": "查询回放"},
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
    # ---- common
    "common.no_tenant": {
        "en": "No tenant selected. Choose a tenant in the sidebar (or type its id); "
        "nothing is shown across tenants here.",
        "zh": "尚未选择租户。请在侧边栏选择租户（或输入其 ID）；此处不会跨租户显示数据。",
    },
    "common.empty_tenant": {
        "en": "Tenant **{tenant}** has no memories yet. Ingest a conversation with "
        "`memory-engine ingest FILE --tenant {tenant} --format locomo` "
        "(or call `MemoryEngine.write`).",
        "zh": "租户 **{tenant}** 还没有任何记忆。可用 "
        "`memory-engine ingest FILE --tenant {tenant} --format locomo` 导入对话"
        "（或调用 `MemoryEngine.write`）。",
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
    # ---- errors
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
    # ---- overview
    "overview.title": {"en": "Overview", "zh": "概览"},
    "overview.tenants_header": {"en": "Memories per tenant", "zh": "各租户记忆数"},
    "overview.tenants_caption": {
        "en": "Active and archived memories per tenant (cross-tenant admin read; audited).",
        "zh": "各租户的活跃与已归档记忆数（跨租户管理读取，已审计）。",
    },
    "overview.tenants_caption_granted": {
        "en": "Active and archived memories of each tenant granted to you (one scoped count each).",
        "zh": "授予您的各租户的活跃与已归档记忆数（每个租户单独计数）。",
    },
    "overview.no_tenants": {
        "en": "The store holds no memories yet. Ingest with "
        "`memory-engine ingest FILE --tenant T --format locomo`.",
        "zh": "存储中还没有记忆。可用 `memory-engine ingest FILE --tenant T --format locomo` 导入。",
    },
    "overview.tenant_header": {"en": "Tenant {tenant}", "zh": "租户 {tenant}"},
    "overview.total": {"en": "Memories (all statuses)", "zh": "记忆总数（所有状态）"},
    "overview.by_type": {"en": "By type", "zh": "按类型"},
    "overview.by_status": {"en": "By status", "zh": "按状态"},
    "overview.by_source": {"en": "By source", "zh": "按来源"},
    "overview.writes_per_day": {
        "en": "Writes per day (UTC, last {days} days)",
        "zh": "每日写入数（UTC，最近 {days} 天）",
    },
    "overview.no_writes": {"en": "No writes in this period.", "zh": "此期间没有写入。"},
    "col.tenant": {"en": "tenant", "zh": "租户"},
    "col.count": {"en": "count", "zh": "数量"},
    "col.day": {"en": "day (UTC)", "zh": "日期（UTC）"},
    "col.value": {"en": "value", "zh": "取值"},
    # ---- memories
    "memories.title": {"en": "Memories", "zh": "记忆"},
    "memories.filters": {"en": "Filters", "zh": "筛选"},
    "memories.filter_type": {"en": "Type", "zh": "类型"},
    "memories.filter_status": {"en": "Status", "zh": "状态"},
    "memories.filter_source": {"en": "Source", "zh": "来源"},
    "memories.filter_text": {"en": "Content contains", "zh": "内容包含"},
    "memories.filter_dates": {"en": "Created between (UTC)", "zh": "创建时间范围（UTC）"},
    "memories.filter_any": {"en": "Any (no filter)", "zh": "不限"},
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
    # ---- query replay
    "replay.title": {"en": "Query Replay", "zh": "查询回放"},
    "replay.form": {"en": "Search", "zh": "搜索"},
    "replay.query": {"en": "Query", "zh": "查询"},
    "replay.k": {"en": "k (memories returned)", "zh": "k（返回的记忆数）"},
    "replay.dense": {"en": "Dense leg (embeddings, cosine)", "zh": "向量检索（余弦相似度）"},
    "replay.keyword": {"en": "Keyword leg (BM25)", "zh": "关键词检索（BM25）"},
    "replay.min_score": {"en": "Minimum fused score (rrf)", "zh": "最低融合分数（rrf）"},
    "replay.token_budget": {"en": "Token budget (0 = unlimited)", "zh": "Token 预算（0 = 不限）"},
    "replay.run": {"en": "Run search", "zh": "执行搜索"},
    "replay.need_leg": {"en": "Turn on at least one leg.", "zh": "请至少开启一个检索通道。"},
    "replay.need_query": {"en": "Type a query.", "zh": "请输入查询。"},
    "replay.trace_header": {"en": "Trace {short_id}", "zh": "追踪 {short_id}"},
    "replay.trace_meta": {
        "en": "Query **{query}** · {created} · embedding model: {model} · query terms: {terms}",
        "zh": "查询 **{query}** · {created} · 向量模型：{model} · 查询词：{terms}",
    },
    "replay.returned": {
        "en": "{returned} returned, {dropped} dropped, {total} candidates in all.",
        "zh": "返回 {returned} 条，丢弃 {dropped} 条，共 {total} 个候选。",
    },
    "replay.candidates": {
        "en": "Candidates (returned first, then dropped)",
        "zh": "候选（先返回的，后丢弃的）",
    },
    "replay.block": {
        "en": "Memory block (exactly as given to the agent)",
        "zh": "记忆块（与提供给智能体的完全一致）",
    },
    "replay.timings": {"en": "Timings per stage (ms)", "zh": "各阶段耗时（毫秒）"},
    "replay.warnings": {"en": "Warnings", "zh": "警告"},
    "replay.engine_warning": {
        "en": "Search engine warning: {message}",
        "zh": "检索引擎警告（英文原文）：{message}",
    },
    "warning.no_keyword_terms": {
        "en": "Search engine warning: the query has no keyword terms, so the keyword leg "
        "was skipped.",
        "zh": "检索引擎警告：查询中没有可用的关键词，已跳过关键词检索。",
    },
    "replay.config": {"en": "Configuration of this search", "zh": "本次搜索的配置"},
    "replay.past": {"en": "Past searches", "zh": "历史搜索"},
    "replay.no_past": {
        "en": "No stored searches for this tenant yet.",
        "zh": "该租户还没有保存的搜索。",
    },
    "replay.pick_trace": {"en": "Open a past search", "zh": "打开历史搜索"},
    "replay.pick_placeholder": {"en": "Choose a past search", "zh": "选择一次历史搜索"},
    "replay.rerun": {"en": "Re-run with its configuration", "zh": "按原配置重新运行"},
    "replay.no_trace": {
        "en": "Run a search above or open a past one to see its trace.",
        "zh": "在上方执行搜索，或打开一次历史搜索以查看其追踪。",
    },
    "replay.stage": {"en": "stage", "zh": "阶段"},
    "replay.ms": {"en": "ms", "zh": "毫秒"},
    "stage.terms": {"en": "terms", "zh": "提取查询词"},
    "stage.embed_query": {"en": "embed_query", "zh": "查询向量化"},
    "stage.dense": {"en": "dense", "zh": "向量检索"},
    "stage.keyword": {"en": "keyword", "zh": "关键词检索"},
    "stage.fuse": {"en": "fuse", "zh": "融合"},
    "stage.select": {"en": "select", "zh": "筛选与截断"},
    "stage.total": {"en": "total", "zh": "总计"},
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
    "drop.below_min_score": {"en": "below min score", "zh": "低于最低分数"},
    "drop.below_min_cosine": {"en": "below min cosine", "zh": "低于最低余弦"},
    "drop.duplicate_content": {"en": "duplicate content", "zh": "内容重复"},
    "drop.below_top_k": {"en": "below top k", "zh": "未进入前 k"},
    "drop.over_token_budget": {"en": "over token budget", "zh": "超出 token 预算"},
    "drop.not_fused": {"en": "not fused", "zh": "未参与融合"},
}


def _merge(*parts: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
    """One table from the per-area modules; a key defined twice is an error, not an override."""
    out: dict[str, dict[str, str]] = {}
    for part in parts:
        duplicates = out.keys() & part.keys()
        if duplicates:
            raise KeyError(f"UI string keys defined twice: {sorted(duplicates)[:5]}")
        out.update(part)
    return out


#: Every UI string: the core table above plus one module per area (``i18n_<area>.py``).
STRINGS: Final = _merge(
    _CORE,
    _stores_strings,  # store selector / comparison / parity
    _lifecycle_strings,  # Retention and Audit pages
    _auth_strings,  # sign-in, roles, local-mode banner
    _context_strings,  # Context Preview page
    _WRITE_STRINGS,  # Write Inspector and Conflicts pages
    _retrieval_strings,  # Query Replay: why not X, config compare, relevance, golden sets
    _isolation_strings,  # Isolation page
    _sec1_strings,  # isolation paths, cross-tenant alarm
    _tidy_strings,  # chart category values and axis titles
    _pii_strings,  # PII findings on the Write Inspector and Audit pages
    _review_strings,  # review fixes: why-not explanation, unreadable secrets
    _polish_strings,  # review follow-ups: golden-set roles, quarantine awaiting review
)


def t(key: str, lang: str, **fields: object) -> str:
    """The UI string ``key`` in ``lang`` (``en`` or ``zh``), with ``{fields}`` filled in.

    Raises:
        KeyError: ``key`` is not a known string.
    """
    entry = STRINGS[key]
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**fields) if fields else text


#: Engine warnings the dashboard translates (exact engine text -> string key); any other
#: warning is shown in English with the ``replay.engine_warning`` label.
KNOWN_WARNINGS: Final = {
    "query has no keyword terms; keyword leg skipped": "warning.no_keyword_terms",
}
KNOWN_WARNINGS.update(_retrieval_warnings)


def warning_text(warning: str, lang: str) -> str:
    """A pipeline warning of a trace for display: translated when known, else labelled."""
    key = KNOWN_WARNINGS.get(warning.strip())
    return t(key, lang) if key else t("replay.engine_warning", lang, message=warning)


def stage_label(stage: str, lang: str) -> str:
    """Human label of a pipeline stage of ``Trace.timings_ms`` (unknown stages as they are)."""
    key = f"stage.{stage}"
    return t(key, lang) if key in STRINGS else stage


def drop_label(reason: str | None, lang: str) -> str:
    """Human label of a pipeline drop reason (``""`` for returned candidates)."""
    if not reason:
        return ""
    key = f"drop.{reason}"
    return t(key, lang) if key in STRINGS else reason
