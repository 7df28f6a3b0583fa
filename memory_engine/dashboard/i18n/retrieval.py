"""UI strings of the retrieval tools on Query Replay ("why not X?", compare two configurations,
relevance labels), English and Chinese; merged into ``i18n.STRINGS`` by ``i18n.py``."""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- why not X?
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
    "why.v.duplicate_content": {"en": "Dropped: duplicate content", "zh": "已丢弃：内容重复"},
    "why.v.near_duplicate": {"en": "Dropped: near duplicate", "zh": "已丢弃：近似重复"},
    "why.v.below_top_k": {"en": "Cut: out-ranked, below top k", "zh": "被截断：排名低于前 k"},
    "why.v.over_token_budget": {
        "en": "Cut: over the token budget",
        "zh": "被截断：超出 token 预算",
    },
    "why.v.dropped": {"en": "Dropped", "zh": "已丢弃"},
    # ---- compare two configurations
    "cmp.header": {"en": "Compare with another configuration", "zh": "与另一配置对比"},
    "cmp.fusion": {"en": "Fusion (B)", "zh": "融合方式（B）"},
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
    # ---- relevance labels
    "rel.header": {"en": "Relevance labels", "zh": "相关性标注"},
    "rel.relevant": {"en": "relevant ✓", "zh": "相关 ✓"},
    "rel.metrics": {
        "en": "P@{k}: {p:.2f} · MRR: {mrr:.2f} · nDCG@{k}: {ndcg:.2f} ({n} labelled relevant)",
        "zh": "P@{k}：{p:.2f} · MRR：{mrr:.2f} · nDCG@{k}：{ndcg:.2f}（{n} 条标为相关）",
    },
    # ---- golden sets
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
    # ---- pipeline stages (timings)
    "stage.expand": {"en": "expand", "zh": "查询扩展"},
    "stage.session": {"en": "session", "zh": "会话平滑"},
    "stage.rerank": {"en": "rerank", "zh": "重排"},
    "stage.weight": {"en": "weight", "zh": "加权"},
    "stage.dedupe": {"en": "dedupe", "zh": "去重"},
    # ---- leg health warnings
    "warning.leg_empty_dense": {"en": "The dense leg returned nothing.", "zh": "向量召回为空。"},
    "warning.leg_empty_keyword": {
        "en": "The keyword leg returned nothing.",
        "zh": "关键词召回为空。",
    },
}

#: Engine warnings of the retrieval stages (exact text -> string key).
WARNINGS: Final[dict[str, str]] = {
    "leg dense returned no candidates": "warning.leg_empty_dense",
    "leg keyword returned no candidates": "warning.leg_empty_keyword",
}
