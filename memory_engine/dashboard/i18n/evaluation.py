"""UI strings of the Write Evaluation page: the write-path regression suite run for two
configurations side by side (English and Chinese).

Key prefix: ``weval`` (each prefix lives in one file only; tests check it); merged by
:mod:`.catalog`.
"""

from __future__ import annotations

from typing import Final

STRINGS: Final[dict[str, dict[str, str]]] = {
    "weval.title": {"en": "Write Evaluation", "zh": "写入评测"},
    "weval.intro": {
        "en": "Run the labelled write-path set (short Chinese and English conversations) in "
        "extract mode for two configurations and compare what they store. Each run uses a "
        "throwaway database; your memories are not touched.",
        "zh": "用两种配置以抽取模式运行带标注的写入评测集（中英文短对话），并对比它们存下的内容。"
        "每次运行使用临时数据库，不会改动你的记忆。",
    },
    "weval.split": {"en": "Part of the set", "zh": "评测集部分"},
    "weval.split_dev": {"en": "development", "zh": "开发集"},
    "weval.split_heldout": {"en": "held-out", "zh": "保留集"},
    "weval.split_all": {"en": "both", "zh": "全部"},
    "weval.limit": {"en": "Cases (0 = all)", "zh": "用例数（0 表示全部）"},
    "weval.upload": {
        "en": "Or upload your own cases (JSONL, same format)",
        "zh": "或上传自己的用例（JSONL，格式相同）",
    },
    "weval.config": {"en": "Configuration {side}", "zh": "配置 {side}"},
    "weval.provider": {"en": "Write-decision LLM", "zh": "写入决策 LLM"},
    "weval.provider_rules": {"en": "rules (offline)", "zh": "规则（离线，`rules`）"},
    "weval.provider_openai": {
        "en": "OpenAI-compatible (MEMORY_LLM_*)",
        "zh": "OpenAI 兼容接口（MEMORY_LLM_*）",
    },
    "weval.model": {"en": "Model (empty = configured)", "zh": "模型（留空 = 已配置的）"},
    "weval.run": {"en": "Run both", "zh": "运行两组"},
    "weval.running": {
        "en": "Running configuration {side}: case {n} of {total}",
        "zh": "正在运行配置 {side}：第 {n} / {total} 个用例",
    },
    "weval.no_cases": {
        "en": "No cases: the labelled set was not found and nothing was uploaded.",
        "zh": "没有用例：未找到标注集，也没有上传文件。",
    },
    "weval.bad_cases": {
        "en": "The cases could not be read: {message}",
        "zh": "无法读取用例：{message}",
    },
    "weval.not_allowed": {
        "en": "Running the suite needs the editor role (it may call a paid LLM).",
        "zh": "运行评测需要编辑者角色（可能调用付费 LLM）。",
    },
    "weval.metrics": {"en": "Metrics", "zh": "指标"},
    "weval.by_category": {"en": "Fact recall by category", "zh": "各类别的事实召回率"},
    "weval.failing": {"en": "Failing cases of {side}", "zh": "配置 {side} 未通过的用例"},
    "weval.none_failing": {"en": "Every case passed.", "zh": "所有用例均通过。"},
    "weval.ran": {
        "en": "{side}: {provider}/{model}, embedder {embedder}, {cases} cases in {seconds} s",
        "zh": "{side}：{provider}/{model}，嵌入模型 {embedder}，{cases} 个用例，用时 {seconds} 秒",
    },
    "weval.entity_note": {
        "en": "Entity linking is not scored: the engine exposes no entity links yet.",
        "zh": "未评估实体链接：引擎尚未提供实体链接。",
    },
    # column headers and metric names
    "weval.col_metric": {"en": "metric", "zh": "指标"},
    "weval.col_category": {"en": "category", "zh": "类别"},
    "weval.col_delta": {"en": "B − A", "zh": "B − A"},
    "weval.col_case": {"en": "case", "zh": "用例"},
    "weval.col_reasons": {"en": "why it failed", "zh": "未通过原因"},
    "weval.m_cases_passed": {"en": "cases passed", "zh": "通过的用例"},
    "weval.m_should_remember_accuracy": {"en": "should-remember accuracy", "zh": "是否记忆准确率"},
    "weval.m_fact_recall": {"en": "fact recall", "zh": "事实召回率"},
    "weval.m_fact_precision": {"en": "fact precision", "zh": "事实精确率"},
    "weval.m_update_decision_accuracy": {"en": "update-decision accuracy", "zh": "更新决策准确率"},
    "weval.m_polarity_errors": {"en": "polarity errors", "zh": "极性错误"},
    "weval.m_forbidden_active": {"en": "corrected values left active", "zh": "仍有效的已更正值"},
    "weval.m_raw_tool_output_stored": {"en": "raw tool outputs stored", "zh": "存入的原始工具输出"},
    "weval.m_distilled_fact_share": {"en": "distilled-fact share", "zh": "提炼事实占比"},
    "weval.m_memory_type_accuracy": {"en": "memory-type accuracy", "zh": "记忆类型准确率"},
    "weval.m_importance_ok": {"en": "health/safety importance", "zh": "健康/安全重要度"},
    "weval.m_temporary_ok": {"en": "temporary states marked", "zh": "临时状态已标记"},
    "weval.m_entity_linking_accuracy": {"en": "entity-linking accuracy", "zh": "实体链接准确率"},
    "weval.m_entity_mention_recall": {"en": "entity-mention recall", "zh": "实体提及召回率"},
    "weval.m_write_errors": {"en": "write errors", "zh": "写入错误"},
}
