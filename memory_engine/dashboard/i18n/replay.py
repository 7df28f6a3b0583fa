"""UI strings of the Query Replay page's trace view: the search form, candidates, memory block,
timings per pipeline stage, drop reasons and engine warnings (English and Chinese).

Key prefixes: ``replay``, ``warning``, ``stage``, ``drop``, ``wf`` (score waterfall and block
accounting), ``stale`` (stale-fact warnings, also on the Conflicts page) (each prefix lives in
one file only; tests check it); merged by :mod:`.catalog`.
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
    "replay.min_score": {
        "en": "Minimum RRF rank score (min_score)",
        "zh": "最低 RRF 排名分数（min_score）",
    },
    "replay.min_score_help": {
        "en": "Compared with each candidate's reciprocal-rank score (rrf, the sum over legs of "
        "1 / (rrf_k + rank)), which every fusion computes; not with the fused score, which is "
        "a z-score blend by default. 0 keeps every candidate.",
        "zh": "与每个候选的倒数排名分数（rrf，各路检索 1 / (rrf_k + 排名) 之和）比较，任何融合方式都会计算它；"
        "不是与融合分数比较（默认是 z-score 加权融合）。0 表示保留所有候选。",
    },
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
    "replay.order_caption": {
        "en": "Ordered by the final score = {base} × type weight × retention; fusion: {fusion}. "
        "Pick a candidate below to see every stage of its score.",
        "zh": "按最终分数排序：最终分数 = {base} × 类型权重 × 保留因子；融合方式：{fusion}。"
        "在下方选择一个候选，可查看其分数在每个阶段的变化。",
    },
    "replay.show_all": {
        "en": "Show every score and rank (all stages)",
        "zh": "显示所有分数与排名（全部阶段）",
    },
    "replay.details": {"en": "Candidate details", "zh": "候选详情"},
    "replay.pick_candidate": {"en": "Inspect a candidate", "zh": "查看候选"},
    "replay.waterfall": {"en": "Score waterfall", "zh": "分数瀑布"},
    "replay.full_content": {"en": "Content", "zh": "内容"},
    "replay.accounting": {"en": "Memory block accounting", "zh": "记忆块账目"},
    "replay.acc_summary": {
        "en": "{lines} memories in the block, {used} tokens in all (budget {budget}, k = {k}).",
        "zh": "记忆块中有 {lines} 条记忆，共 {used} 个 token（预算 {budget}，k = {k}）。",
    },
    "replay.acc_lines": {"en": "In the block", "zh": "已进入记忆块"},
    "replay.near_misses": {"en": "Just missed", "zh": "差一点入选"},
    "replay.no_near_misses": {
        "en": "No other candidate: every candidate is in the block.",
        "zh": "没有其他候选：所有候选都已进入记忆块。",
    },
    "replay.miss_summary": {
        "en": "{n} just missed, cut by: {rules}.",
        "zh": "{n} 条差一点入选，截断规则：{rules}。",
    },
    "replay.stage_totals": {"en": "Totals per stage", "zh": "各阶段合计"},
    "replay.unlimited": {"en": "unlimited", "zh": "不限"},
    "replay.stale_header": {"en": "Possibly stale facts", "zh": "可能过时的事实"},
    "replay.stage": {"en": "stage", "zh": "阶段"},
    "replay.ms": {"en": "ms", "zh": "毫秒"},
    # ---- warning.*: engine warnings (see WARNINGS)
    "warning.no_keyword_terms": {
        "en": "Search engine warning: the query has no keyword terms, so the keyword leg "
        "was skipped.",
        "zh": "检索引擎警告：查询中没有可用的关键词，已跳过关键词检索。",
    },
    "warning.relevance_floor_empty": {
        "en": "No memory matched the query well enough (relevance floor): the block is empty.",
        "zh": "没有记忆与查询足够匹配（相关性下限）：记忆块为空。",
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
    "drop.below_relevance_floor": {"en": "below relevance floor", "zh": "低于相关性下限"},
    "drop.duplicate_content": {"en": "duplicate content", "zh": "内容重复"},
    "drop.below_top_k": {"en": "below top k", "zh": "未进入前 k"},
    "drop.over_token_budget": {"en": "over token budget", "zh": "超出 token 预算"},
    "drop.not_fused": {"en": "not fused", "zh": "未参与融合"},
    "drop.near_duplicate": {"en": "near duplicate", "zh": "内容近似重复"},
    # ---- wf.*: the score waterfall and the block accounting
    "wf.col.deciding": {"en": "final score ↑ (decides the order)", "zh": "最终分数 ↑（决定排序）"},
    "wf.col.movement": {"en": "rank movement", "zh": "名次变化"},
    "wf.col.moved_by": {"en": "moved by", "zh": "主要推动阶段"},
    "wf.col.fused": {"en": "fused ({fusion}) ↑", "zh": "融合（{fusion}）↑"},
    "wf.col.leg_score": {"en": "{leg} {score} ↑", "zh": "{leg} {score} ↑"},
    "wf.col.leg_norm": {"en": "{leg} normalised", "zh": "{leg} 归一化值"},
    "wf.col.leg_rank": {"en": "{leg} rank", "zh": "{leg} 排名"},
    "wf.col.session": {"en": "session ↑", "zh": "会话平滑 ↑"},
    "wf.col.lift": {"en": "session lift", "zh": "会话提升"},
    "wf.col.session_rank": {"en": "session rank", "zh": "会话平滑后排名"},
    "wf.col.rerank": {"en": "rerank ↑", "zh": "重排分数 ↑"},
    "wf.col.rerank_rank": {"en": "rerank rank", "zh": "重排后排名"},
    "wf.col.type_weight": {"en": "type weight", "zh": "类型权重"},
    "wf.col.retention": {"en": "retention", "zh": "保留因子"},
    "wf.col.weighted_rank": {"en": "rank after weighting", "zh": "加权后排名"},
    "wf.col.rrf": {"en": "rrf ↑ (checked against min score)", "zh": "rrf ↑（与最低分数比较）"},
    "wf.col.stage": {"en": "stage", "zh": "阶段"},
    "wf.col.score": {"en": "score", "zh": "分数名"},
    "wf.col.value": {"en": "value", "zh": "数值"},
    "wf.col.normalised": {"en": "normalised", "zh": "归一化值"},
    "wf.col.weight": {"en": "weight", "zh": "权重"},
    "wf.col.contribution": {"en": "contribution", "zh": "贡献"},
    "wf.col.rank": {"en": "rank after", "zh": "阶段后排名"},
    "wf.col.note": {"en": "note", "zh": "说明"},
    "wf.stage.leg": {"en": "leg {name}", "zh": "召回通道 {name}"},
    "wf.stage.fuse": {"en": "fusion ({name})", "zh": "融合（{name}）"},
    "wf.stage.session": {"en": "session smoothing", "zh": "会话平滑"},
    "wf.stage.rerank": {"en": "rerank ({name})", "zh": "重排（{name}）"},
    "wf.stage.type_weight": {"en": "type weight", "zh": "类型权重"},
    "wf.stage.retention": {"en": "retention", "zh": "保留因子"},
    "wf.stage.threshold": {"en": "threshold", "zh": "阈值"},
    "wf.stage.final": {"en": "final", "zh": "最终"},
    "wf.base.fused": {"en": "fused score", "zh": "融合分数"},
    "wf.base.session": {"en": "session-smoothed score", "zh": "会话平滑分数"},
    "wf.base.rerank": {"en": "rerank score", "zh": "重排分数"},
    "wf.by.fuse": {"en": "fusion", "zh": "融合"},
    "wf.by.session": {"en": "session smoothing", "zh": "会话平滑"},
    "wf.by.rerank": {"en": "rerank", "zh": "重排"},
    "wf.by.weight": {"en": "type / retention weight", "zh": "类型 / 保留加权"},
    "wf.by.final": {"en": "threshold and dedupe", "zh": "阈值与去重"},
    "wf.move.up": {
        "en": "↑{n} (fused #{fused} → #{final})",
        "zh": "↑{n}（融合 #{fused} → #{final}）",
    },
    "wf.move.down": {
        "en": "↓{n} (fused #{fused} → #{final})",
        "zh": "↓{n}（融合 #{fused} → #{final}）",
    },
    "wf.move.same": {"en": "= (fused #{fused})", "zh": "=（融合 #{fused}）"},
    "wf.move.dropped": {"en": "dropped (fused #{fused})", "zh": "已丢弃（融合 #{fused}）"},
    "wf.note.lift": {
        "en": "+{lift} from neighbouring turn {source}",
        "zh": "来自相邻轮次 {source}，提升 +{lift}",
    },
    "wf.note.not_returned": {"en": "not returned by this leg", "zh": "该通道未召回"},
    "wf.note.passed": {
        "en": "rrf {value} ≥ min score {limit}",
        "zh": "rrf {value} ≥ 最低分数 {limit}",
    },
    "wf.note.cut": {"en": "cut: {reason}", "zh": "被截断：{reason}"},
    "wf.chart.score": {"en": "score after the stage", "zh": "阶段后分数"},
    "wf.chart.rank": {"en": "rank after the stage", "zh": "阶段后排名"},
    "wf.acc.tokens": {"en": "tokens", "zh": "token 数"},
    "wf.acc.rule": {"en": "cut by", "zh": "截断规则"},
    "wf.acc.needs": {"en": "to include it", "zh": "入选所需"},
    "wf.acc.candidates": {"en": "candidates left", "zh": "剩余候选"},
    "wf.acc.ms": {"en": "ms", "zh": "毫秒"},
    "wf.rule.k": {"en": "k (top k)", "zh": "k（前 k 条）"},
    "wf.rule.token_budget": {"en": "token budget", "zh": "token 预算"},
    "wf.rule.threshold": {"en": "threshold", "zh": "阈值"},
    "wf.rule.dedupe": {"en": "dedupe", "zh": "去重"},
    "wf.rule.status": {"en": "status", "zh": "状态"},
    "wf.rule.other": {"en": "other", "zh": "其他"},
    "wf.need.k": {"en": "k ≥ {value}", "zh": "k ≥ {value}"},
    "wf.need.token_budget": {"en": "token budget ≥ {value}", "zh": "token 预算 ≥ {value}"},
    "wf.need.min_score": {"en": "min score ≤ {value}", "zh": "最低分数 ≤ {value}"},
    "wf.need.min_cosine": {"en": "min cosine ≤ {value}", "zh": "最低余弦 ≤ {value}"},
    "wf.need.dedupe": {
        "en": "edit or remove the better-ranked duplicate",
        "zh": "修改或删除排名更高的重复记忆",
    },
    "wf.need.other": {"en": "a lower relevance floor", "zh": "更低的相关性下限"},
    "wf.accstage.legs": {"en": "recall (legs)", "zh": "召回（各通道）"},
    "wf.accstage.fuse": {"en": "fuse, smooth, weight", "zh": "融合、平滑、加权"},
    "wf.accstage.threshold+dedupe": {"en": "threshold and dedupe", "zh": "阈值与去重"},
    "wf.accstage.top_k+budget": {"en": "top k and token budget", "zh": "前 k 条与 token 预算"},
    "wf.accstage.block": {"en": "memory block", "zh": "记忆块"},
    # ---- stale.*: stale-fact warnings (Query Replay, Conflicts)
    "stale.same_entity": {
        "en": "An older memory about **{entity}** (rank {older_rank}, final score {older_score}) "
        "ranks above a newer one (final score {current_score}, {current_where}).",
        "zh": "一条关于 **{entity}** 的较早记忆（第 {older_rank} 名，最终分数 {older_score}）"
        "排在一条较新的记忆（最终分数 {current_score}，{current_where}）之前。",
    },
    "stale.superseded": {
        "en": "A superseded memory (rank {older_rank}, final score {older_score}) ranks above "
        "the memory that replaced it (final score {current_score}, {current_where}).",
        "zh": "一条已被取代的记忆（第 {older_rank} 名，最终分数 {older_score}）排在取代它的记忆"
        "（最终分数 {current_score}，{current_where}）之前。",
    },
    "stale.where_rank": {"en": "rank {rank}", "zh": "第 {rank} 名"},
    "stale.where_dropped": {"en": "not returned: {reason}", "zh": "未返回：{reason}"},
    "stale.where_absent": {"en": "not recalled", "zh": "未被召回"},
    "stale.older": {"en": "Older: {content}", "zh": "较早：{content}"},
    "stale.current": {"en": "Current: {content}", "zh": "当前：{content}"},
    "stale.older_history": {"en": "History of the older memory", "zh": "较早记忆的历史"},
    "stale.current_history": {"en": "History of the current memory", "zh": "当前记忆的历史"},
    "stale.report_header": {"en": "Stale facts in recent searches", "zh": "近期搜索中的过时事实"},
    "stale.report_intro": {
        "en": "Recent searches of this tenant (the last {n}) where a superseded or older memory "
        "outranks the current one.",
        "zh": "该租户近期搜索（最近 {n} 次）中，已被取代或较早的记忆排在当前记忆之前的情况。",
    },
    "stale.report_empty": {
        "en": "No recent search ranks an older fact above its correction.",
        "zh": "近期没有搜索把较早的事实排在其更正之前。",
    },
    "stale.col.query": {"en": "query", "zh": "查询"},
    "stale.col.when": {"en": "searched", "zh": "搜索时间"},
    "stale.col.kind": {"en": "why", "zh": "原因"},
    "stale.col.older": {"en": "older memory", "zh": "较早记忆"},
    "stale.col.older_score": {"en": "older score ↑", "zh": "较早记忆分数 ↑"},
    "stale.col.current": {"en": "current memory", "zh": "当前记忆"},
    "stale.col.current_score": {"en": "current score ↑", "zh": "当前记忆分数 ↑"},
    "stale.kind.superseded": {"en": "superseded", "zh": "已被取代"},
    "stale.kind.same_entity": {"en": "same entity: {entity}", "zh": "同一实体：{entity}"},
    "stale.open_trace": {"en": "Open the search", "zh": "打开该搜索"},
}

#: Engine warnings the dashboard translates (exact engine text -> string key); any other
#: warning is shown in English with the ``replay.engine_warning`` label.
WARNINGS: Final[dict[str, str]] = {
    "query has no keyword terms; keyword leg skipped": "warning.no_keyword_terms",
    "leg dense returned no candidates": "warning.leg_empty_dense",
    "no memory matched the query well enough (relevance floor); the block is empty": (
        "warning.relevance_floor_empty"
    ),
    "leg keyword returned no candidates": "warning.leg_empty_keyword",
}
