"""UI strings of the retrieval tools on Query Replay: "why not X?" (verdict, explanation and
stage), compare two configurations, relevance labels and golden sets (English and Chinese).

Key prefixes: ``why``, ``cmp``, ``rel``, ``gold`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- why.*: why not X?
    "why.header": {"en": "Why not X?", "zh": "为什么没有 X？"},
    "why.input": {
        "en": "Memory id (paste or pick from the table)",
        "zh": "记忆 ID（粘贴或从表中选取）",
    },
    "why.pick": {"en": "…or pick a candidate", "zh": "……或选择一个候选"},
    "why.bad_id": {"en": "Not a memory id: {value}", "zh": "不是有效的记忆 ID：{value}"},
    "why.verdict": {"en": "**{verdict}** (stage: {stage})", "zh": "**{verdict}**（阶段：{stage}）"},
    "why.legs": {"en": "Leg ranks: {legs}", "zh": "各路排名：{legs}"},
    "why.score": {"en": "score", "zh": "分数"},
    "why.this": {"en": "this memory", "zh": "该记忆"},
    "why.last_kept": {"en": "last returned", "zh": "最后一个返回项"},
    "why.v.returned": {"en": "Returned", "zh": "已返回"},
    "why.v.not_recalled": {
        "en": "Not recalled by any leg (out of scope, inactive, invalid then, or ranked too low)",
        "zh": "未被任何一路召回（不在范围内、非活跃、当时无效或排名过低）",
    },
    "why.v.below_min_score": {
        "en": "Dropped: below the minimum score",
        "zh": "已丢弃：低于最低分数",
    },
    "why.v.below_min_cosine": {
        "en": "Dropped: dense-only and below the similarity floor",
        "zh": "已丢弃：仅向量召回且低于相似度下限",
    },
    "why.v.below_relevance_floor": {
        "en": "Dropped: below the relevance floor (no leg matched the query well enough)",
        "zh": "已丢弃：低于相关性下限（没有任何一路检索与查询足够匹配）",
    },
    "why.v.duplicate_content": {"en": "Dropped: duplicate content", "zh": "已丢弃：内容重复"},
    "why.v.near_duplicate": {"en": "Dropped: near duplicate", "zh": "已丢弃：近似重复"},
    "why.v.below_top_k": {"en": "Cut: out-ranked, below top k", "zh": "被截断：排名低于前 k"},
    "why.v.over_token_budget": {
        "en": "Cut: over the token budget",
        "zh": "被截断：超出 token 预算",
    },
    "why.v.dropped": {"en": "Dropped", "zh": "已丢弃"},
    "why.x.not_recalled": {
        "en": "No leg returned it in its top {depth}: it is outside the scope, not active or "
        "not valid at that time, or every leg ranked other memories higher.",
        "zh": "没有任何一路检索在前 {depth} 名中返回它：它不在范围内、不是活跃状态或当时无效，"
        "或者各路检索都把其他记忆排得更高。",
    },
    "why.x.returned": {"en": "Returned at rank {rank}.", "zh": "以第 {rank} 名返回。"},
    "why.x.below_min_score": {
        "en": "rrf {rrf} < min_score {min_score}.",
        "zh": "rrf {rrf} 低于最低分数 {min_score}。",
    },
    "why.x.below_min_cosine": {
        "en": "Only the dense leg found it and its cosine {cosine} is below the floor.",
        "zh": "只有向量检索找到它，且其余弦相似度 {cosine} 低于下限。",
    },
    "why.x.below_relevance_floor": {
        "en": "No leg matched the query well enough (cosine {cosine}, keyword coverage "
        "{coverage}): the relevance floor keeps unrelated memories out of the block.",
        "zh": "没有任何一路检索与查询足够匹配（余弦 {cosine}，关键词覆盖率 {coverage}）："
        "相关性下限不让无关记忆进入记忆块。",
    },
    "why.x.duplicate": {
        "en": "A better-ranked memory has the same (or nearly the same) content.",
        "zh": "排名更靠前的记忆内容相同（或几乎相同）。",
    },
    "why.x.below_top_k": {
        "en": "Out-ranked: weighted rank {rank}, after k = {k}.",
        "zh": "排名被超过：加权排名第 {rank}，在 k = {k} 之后。",
    },
    "why.x.final_vs_last": {
        "en": "Final score {final} < {last} of the last returned memory.",
        "zh": "最终分数 {final} 低于最后一个返回项的 {last}。",
    },
    "why.x.over_token_budget": {
        "en": "Its line did not fit in the token budget {budget}.",
        "zh": "它的一行放不进 {budget} 个 token 的预算。",
    },
    "why.x.other": {"en": "Dropped: {reason}.", "zh": "已丢弃：{reason}。"},
    "why.stage.legs": {"en": "legs", "zh": "各路检索"},
    "why.stage.threshold": {"en": "threshold", "zh": "阈值"},
    "why.stage.dedupe": {"en": "dedupe", "zh": "去重"},
    "why.stage.top_k": {"en": "top k", "zh": "前 k 截断"},
    "why.stage.budget": {"en": "token budget", "zh": "token 预算"},
    "why.stage.final": {"en": "final", "zh": "最终结果"},
    # ---- cmp.*: compare two configurations
    "cmp.header": {"en": "Compare with another configuration", "zh": "与另一配置对比"},
    "cmp.fusion": {"en": "Fusion (B)", "zh": "融合方式（B）"},
    "cmp.fusion_rrf": {"en": "rrf (reciprocal rank)", "zh": "rrf（倒数排名融合）"},
    "cmp.fusion_zscore": {"en": "z-score", "zh": "z-score（标准分）"},
    "cmp.fusion_minmax": {"en": "min-max", "zh": "最小-最大归一化"},
    "cmp.session": {"en": "Session weight (B)", "zh": "会话权重（B）"},
    "cmp.dense_weight": {"en": "Dense weight (B)", "zh": "向量权重（B）"},
    "cmp.retention_weight": {"en": "Retention weight (B)", "zh": "保留分权重（B）"},
    "cmp.run": {"en": "Compare", "zh": "对比"},
    "cmp.summary": {
        "en": "overlap@{k}: {overlap:.0%} · entered {entered} · left {left} · moved {moved}",
        "zh": "前 {k} 重合度：{overlap:.0%} · 进入 {entered} · 离开 {left} · 移动 {moved}",
    },
    "cmp.rank_a": {"en": "rank A", "zh": "A 排名"},
    "cmp.rank_b": {"en": "rank B", "zh": "B 排名"},
    "cmp.change": {"en": "change", "zh": "变化"},
    "cmp.entered": {"en": "entered", "zh": "进入"},
    "cmp.left": {"en": "left", "zh": "离开"},
    "cmp.moved": {"en": "moved", "zh": "移动"},
    "cmp.same": {"en": "same", "zh": "不变"},
    "cmp.config": {"en": "configuration", "zh": "配置"},
    # ---- rel.*: relevance labels
    "rel.header": {"en": "Relevance labels", "zh": "相关性标注"},
    "rel.relevant": {"en": "relevant ✓", "zh": "相关 ✓"},
    "rel.metrics": {
        "en": "P@{k}: {p:.2f} · MRR: {mrr:.2f} · nDCG@{k}: {ndcg:.2f} ({n} labelled relevant)",
        "zh": "P@{k}：{p:.2f} · MRR：{mrr:.2f} · nDCG@{k}：{ndcg:.2f}（{n} 条标为相关）",
    },
    # ---- gold.*: golden sets
    "gold.header": {"en": "Golden sets", "zh": "黄金测试集"},
    "gold.set_name": {"en": "Set name", "zh": "测试集名称"},
    "gold.expected": {"en": "Expected memories", "zh": "期望返回的记忆"},
    "gold.save": {"en": "Save as golden case", "zh": "保存为黄金用例"},
    "gold.saved": {"en": "Saved to {name} ({n} cases).", "zh": "已保存到 {name}（{n} 个用例）。"},
    "gold.none": {"en": "No golden sets yet.", "zh": "还没有黄金测试集。"},
    "gold.pick": {"en": "Golden set", "zh": "黄金测试集"},
    "gold.cases": {"en": "{n} cases", "zh": "{n} 个用例"},
    "gold.run": {"en": "Run the set", "zh": "运行测试集"},
    "gold.result": {
        "en": "recall@k {recall:.1f}% · MRR {mrr:.1f}%",
        "zh": "前 k 召回率 {recall:.1f}% · MRR {mrr:.1f}%",
    },
    "gold.when": {"en": "run at", "zh": "运行时间"},
    "gold.recall": {"en": "recall@k %", "zh": "前 k 召回率 %"},
    "gold.mrr": {"en": "MRR %", "zh": "MRR %"},
    "gold.fusion": {"en": "fusion", "zh": "融合方式"},
    "gold.export": {"en": "Export JSON", "zh": "导出 JSON"},
    "gold.import": {"en": "Import a golden set (JSON)", "zh": "导入黄金测试集（JSON）"},
    "gold.imported": {"en": "Imported {name} ({n} cases).", "zh": "已导入 {name}（{n} 个用例）。"},
    "gold.editor_only": {
        "en": "Saving, importing or deleting golden sets needs the editor role. "
        "You can still run a set and export it.",
        "zh": "保存、导入或删除黄金测试集需要编辑者角色。您仍可运行和导出测试集。",
    },
}
