"""Names of people and organisations the offline extractor links as entities, and the facts
it keeps from a sentence that announces a change before stating it."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.entities import entity_key
from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_names import chinese_names, names_in

NOW = datetime(2026, 3, 10, 9, tzinfo=UTC)


@pytest.mark.parametrize(
    ("clause", "names"),
    [
        ("我和老张约了周三打球", ["老张"]),
        ("李医生让我每天量血压", ["李医生"]),
        ("王经理让我周五前交报告", ["王经理"]),
        ("小米公司给我发了offer", ["小米公司"]),
        ("我在招商银行上班", ["招商银行"]),
        ("腾讯那边通知我进二面了", ["腾讯"]),
        ("今天和华为云的人开了对接会", []),  # the counterpart pattern names 华为云 itself
        ("我在看小王子", []),
        ("高工资的工作", []),
        ("这家银行服务很差", []),
    ],
)
def test_chinese_names(clause: str, names: list[str]) -> None:
    assert chinese_names(clause) == names


def test_english_names_inside_a_clause() -> None:
    assert names_in("Priya from Globex called about the invoice") == ["Globex"]
    assert names_in("Initech's CTO joins the kickoff on Monday") == ["Initech"]
    assert names_in("the meeting moved to Monday") == []


def _facts(text: str) -> list:
    return list(RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts)


def test_a_statement_about_a_named_person_is_kept_in_the_third_person() -> None:
    (fact,) = _facts("老张说周三下雨就改周四")
    assert fact.content == "老张说周三下雨就改周四"
    assert "老张" in fact.entities
    (fact,) = _facts("Priya from Globex called about the invoice.")
    assert entity_key("Globex") in [entity_key(e) for e in fact.entities]


@pytest.mark.parametrize(
    ("text", "kept", "announced"),
    [
        ("We moved, my office is on the 7th floor now.", "7th floor", True),
        ("My daughter changed schools, she's at Oak Ridge now.", "Oak Ridge", True),
        ("Not Berlin anymore, I relocated to Munich.", "Munich", False),  # no fact to drop
    ],
)
def test_a_clause_that_only_announces_a_change_is_no_fact_of_its_own(
    text: str, kept: str, announced: bool
) -> None:
    facts = _facts(text)
    assert len(facts) == 1 and kept in facts[0].content
    if announced:  # the dropped announcement marks the fact as a correction
        assert facts[0].key["correction"] is True


@pytest.mark.parametrize(
    "text",
    [
        "今天天气真不错啊",
        "今天好累啊",
        "周末愉快！",
        "明天见",
        "哈哈哈笑死我了",
        "我今天有点无聊",
        "I'm bored.",
        "I'm just curious.",
        "That's interesting, tell me more.",
    ],
)
def test_how_one_feels_right_now_is_small_talk(text: str) -> None:
    assert _facts(text) == []


def test_a_dated_plan_without_its_subject_is_kept() -> None:
    (fact,) = _facts("周五晚上和朋友吃火锅")
    assert fact.content == "用户周五晚上和朋友吃火锅" and fact.memory_type.value == "episodic"


@pytest.mark.parametrize(
    "text",
    [
        "给我发消息别超过三行",
        "部署的步骤是先跑迁移，再重启服务",
        "When I ask for code, use TypeScript, not JavaScript.",
        "Don't use emojis when you reply to me.",
        "I want you to cite sources for any statistics.",
        "Use metric units for me.",
    ],
)
def test_a_standing_instruction_is_a_procedure(text: str) -> None:
    (fact,) = _facts(text)
    assert fact.memory_type.value == "procedural"


@pytest.mark.parametrize(
    "text",
    ["Write a haiku about the ocean.", "Show me my calendar for tomorrow.", "帮我翻译一下这句话"],
)
def test_a_one_off_request_is_no_instruction(text: str) -> None:
    assert _facts(text) == []


@pytest.mark.parametrize(
    ("text", "entity"),
    [
        ("Open AI wants the security review done by May.", "Open AI"),
        ("J.P. Morgan wants our tax documents by April.", "J.P. Morgan"),
        ("字节跳动的面试官约我下周二二面", "字节跳动"),
        ("京东物流下个月涨价百分之五", "京东物流"),
    ],
)
def test_an_organisation_opening_a_sentence_is_kept_and_named(text: str, entity: str) -> None:
    """Acronyms and initials in an English name, a Chinese organisation before its staff
    (的面试官) or with an industry suffix (物流): the fact is kept and names the organisation."""
    facts = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert facts and entity in facts[0].entities
