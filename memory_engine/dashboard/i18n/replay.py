"""UI strings of the Query Replay page's trace view: the search form, candidates, memory block,
timings per pipeline stage, drop reasons and engine warnings (English and Chinese).

Key prefixes: ``replay``, ``warning``, ``stage``, ``drop`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- replay.*: trace view
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
    "replay.config": {"en": "Configuration of this search", "zh": "本次搜索的配置"},
    "replay.past": {"en": "Past searches", "zh": "历史搜索"},
    "replay.past_click": {
        "en": "Click a row to open that search (its link is in the address bar).",
        "zh": "点击一行即可打开该次搜索（链接会显示在地址栏中）。",
    },
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
    # ---- warning.*: engine warnings (see WARNINGS)
    "warning.no_keyword_terms": {
        "en": "Search engine warning: the query has no keyword terms, so the keyword leg "
        "was skipped.",
        "zh": "检索引擎警告：查询中没有可用的关键词，已跳过关键词检索。",
    },
    "warning.leg_empty_dense": {"en": "The dense leg returned nothing.", "zh": "向量召回为空。"},
    "warning.leg_empty_keyword": {
        "en": "The keyword leg returned nothing.",
        "zh": "关键词召回为空。",
    },
    # ---- stage.*: pipeline stages (Trace.timings_ms)
    "stage.terms": {"en": "terms", "zh": "提取查询词"},
    "stage.embed_query": {"en": "embed_query", "zh": "查询向量化"},
    "stage.dense": {"en": "dense", "zh": "向量检索"},
    "stage.keyword": {"en": "keyword", "zh": "关键词检索"},
    "stage.fuse": {"en": "fuse", "zh": "融合"},
    "stage.select": {"en": "select", "zh": "筛选与截断"},
    "stage.total": {"en": "total", "zh": "总计"},
    "stage.expand": {"en": "expand", "zh": "查询扩展"},
    "stage.session": {"en": "session", "zh": "会话平滑"},
    "stage.rerank": {"en": "rerank", "zh": "重排"},
    "stage.weight": {"en": "weight", "zh": "加权"},
    "stage.dedupe": {"en": "dedupe", "zh": "去重"},
    # ---- drop.*: drop reasons (TraceCandidate.dropped)
    "drop.below_min_score": {"en": "below min score", "zh": "低于最低分数"},
    "drop.below_min_cosine": {"en": "below min cosine", "zh": "低于最低余弦"},
    "drop.duplicate_content": {"en": "duplicate content", "zh": "内容重复"},
    "drop.below_top_k": {"en": "below top k", "zh": "未进入前 k"},
    "drop.over_token_budget": {"en": "over token budget", "zh": "超出 token 预算"},
    "drop.not_fused": {"en": "not fused", "zh": "未参与融合"},
}

#: Engine warnings the dashboard translates (exact engine text -> string key); any other
#: warning is shown in English with the ``replay.engine_warning`` label.
WARNINGS: Final[dict[str, str]] = {
    "query has no keyword terms; keyword leg skipped": "warning.no_keyword_terms",
    "leg dense returned no candidates": "warning.leg_empty_dense",
    "leg keyword returned no candidates": "warning.leg_empty_keyword",
}
