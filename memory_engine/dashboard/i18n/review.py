"""UI strings added by review fixes (English and Chinese): the "why not X?" explanation
sentence and the stage names of its verdict, the unreadable-secrets sign-in message; merged
into ``i18n.STRINGS``."""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    # ---- "why not X?": the explanation under the verdict (retrieval/explain.py's sentence)
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
    # ---- sign-in: a malformed .streamlit/secrets.toml
    "auth.secrets_unreadable": {
        "en": "The accounts file .streamlit/secrets.toml cannot be read, so nobody can sign in: "
        "{error}. Fix the file (memory-engine user add refuses to change it until then).",
        "zh": "无法读取账号文件 .streamlit/secrets.toml，因此任何人都无法登录：{error}。"
        "请先修复该文件（在此之前 memory-engine user add 不会修改它）。",
    },
}
