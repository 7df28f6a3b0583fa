"""UI strings of the store selector, the side-by-side store comparison (Query Replay) and the store
parity check (Overview) (English and Chinese).

Key prefixes: ``stores`` (each prefix lives in one file only;
tests check it); merged by :mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "stores.selector": {"en": "Store", "zh": "存储"},
    "stores.selector_help": {
        "en": "Both stores are configured (PostgreSQL and Qdrant); every page reads the one "
        "chosen here.",
        "zh": "已配置两个存储（PostgreSQL 和 Qdrant）；所有页面都读取此处选择的存储。",
    },
    "stores.postgres": {"en": "PostgreSQL", "zh": "PostgreSQL"},
    "stores.qdrant": {"en": "Qdrant", "zh": "Qdrant"},
    "stores.compare_header": {
        "en": "Compare stores: this query on PostgreSQL and Qdrant",
        "zh": "存储对比：在 PostgreSQL 和 Qdrant 上运行此查询",
    },
    "stores.compare_caption": {
        "en": "Runs the trace's query with its configuration on both stores (no trace is "
        "saved) and compares the returned memories by id.",
        "zh": "以该追踪的查询和配置在两个存储上运行（不保存追踪），并按 ID 比较返回的记忆。",
    },
    "stores.compare_run": {"en": "Run on both stores", "zh": "在两个存储上运行"},
    "stores.overlap": {"en": "overlap@{k}", "zh": "重合率@{k}"},
    "stores.spearman": {"en": "Spearman ρ", "zh": "Spearman ρ"},
    "stores.kendall": {"en": "Kendall τ", "zh": "Kendall τ"},
    "stores.common": {"en": "returned by both", "zh": "两者均返回"},
    "stores.undefined": {"en": "n/a", "zh": "不适用"},
    "stores.correlation_help": {
        "en": "Rank correlation over the memories both stores returned (needs at least 2).",
        "zh": "基于两个存储都返回的记忆计算排名相关性（至少需要 2 条）。",
    },
    "stores.col_rank": {"en": "rank ({store})", "zh": "排名（{store}）"},
    "stores.col_score": {"en": "{score} ({store})", "zh": "{score}（{store}）"},
    "stores.col_delta": {"en": "Δ {score}", "zh": "Δ {score}"},
    "stores.parity_header": {
        "en": "Stores: counts and parity of tenant {tenant}",
        "zh": "存储：租户 {tenant} 的数量与一致性",
    },
    "stores.col_store": {"en": "store", "zh": "存储"},
    "stores.col_records": {"en": "memory records", "zh": "记忆记录"},
    "stores.col_events": {"en": "events", "zh": "事件"},
    "stores.parity_ok": {
        "en": "Parity: both stores hold the same {records} memory records (same ids, counts "
        "per status and events).",
        "zh": "一致：两个存储持有相同的 {records} 条记忆记录（ID、各状态数量和事件数均相同）。",
    },
    "stores.parity_counts_only": {
        "en": "Counts match; ids were not compared (more than {limit} records).",
        "zh": "数量一致；记录超过 {limit} 条，未比较 ID。",
    },
    "stores.parity_differs": {
        "en": "Parity: the stores differ ({what}). Copy with `memory-engine copy` to align them.",
        "zh": "不一致：两个存储存在差异（{what}）。可用 `memory-engine copy` 进行同步。",
    },
    "stores.diff_counts": {"en": "counts", "zh": "数量"},
    "stores.diff_ids": {"en": "{n} ids in only one store", "zh": "{n} 个 ID 仅存在于一个存储"},
    "stores.embedders_header": {"en": "Embedders of this store", "zh": "此存储的嵌入模型"},
    "stores.embedders_caption": {
        "en": "Each dense leg and the model its vectors were made with. A leg still being "
        "filled is not searched yet: `memory-engine reembed` fills it.",
        "zh": "每个向量检索分支及其向量所用的模型。仍在填充的分支暂不参与检索：运行 "
        "`memory-engine reembed` 完成填充。",
    },
    "stores.col_leg": {"en": "Leg", "zh": "检索分支"},
    "stores.col_model": {"en": "Model", "zh": "模型"},
    "stores.col_dim": {"en": "Dimensions", "zh": "维度"},
    "stores.col_state": {"en": "State", "zh": "状态"},
    "stores.leg_ready": {"en": "searched", "zh": "检索中"},
    "stores.leg_filling": {"en": "being filled (not searched)", "zh": "填充中（暂不检索）"},
    "stores.leg_dense": {"en": "dense (primary)", "zh": "dense（主向量）"},
    "stores.leg_dense_ml": {"en": "dense_ml (multilingual)", "zh": "dense_ml（多语言）"},
    "stores.leg_dense_next": {"en": "dense_next (re-embedding)", "zh": "dense_next（重新嵌入中）"},
    "stores.no_embedder": {
        "en": "No embedding recorded yet: the first write records it.",
        "zh": "尚未记录嵌入模型：首次写入时记录。",
    },
}
