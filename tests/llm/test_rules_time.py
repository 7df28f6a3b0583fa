"""The offline ``rules`` LLM and relative-date resolution (docs/architecture.md#f6-relative-time)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone
from zoneinfo import ZoneInfo

import pytest

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.timeresolve import resolve_relative
from memory_engine.models import MemoryType

OBSERVED = datetime(2023, 5, 24, 12, tzinfo=UTC)  # a Wednesday
RULES = RulesLLM()


def extract(text: str, observed: datetime = OBSERVED, tz: str = "UTC") -> list:
    result, call = RULES.extract(ExtractInput(text=text, observed_at=observed, timezone=tz))
    assert call.provider == "rules" and call.prompt_tokens == 0
    return list(result.facts) if result.should_remember else []


def test_seed_preference_is_remembered() -> None:
    # issue 15: a distilled third-person fact (not the utterance with pronouns swapped),
    # typed semantic: it is a fact about the user's week and the preference it implies
    (fact,) = extract("我周五下午一般都有会，别给我排东西")
    assert fact.content == "用户周五下午通常有会，不要安排事情"
    assert "preference" in fact.tags
    assert fact.memory_type == MemoryType.SEMANTIC


@pytest.mark.parametrize(
    "text",
    [
        "你好",
        "谢谢！",
        "好的，收到",
        "Thanks a lot!"[:6],
        "hi 👋",
        "ok",
        "What's the weather?",
        "帮我查一下明天的天气",
    ],
)
def test_chitchat_questions_requests_not_remembered(text: str) -> None:
    assert extract(text) == []


def test_last_week_is_relative_to_observed_at() -> None:
    (fact,) = extract("I went to Lisbon last week")
    assert fact.content == "The user went to Lisbon in the week of 2023-05-15"
    assert fact.valid_from == datetime(2023, 5, 15, tzinfo=UTC)
    assert fact.memory_type == MemoryType.EPISODIC


def test_yesterday_uses_the_users_local_day() -> None:
    # 00:30 on 2023-05-24 in UTC+9 is 15:30 on 2023-05-23 UTC; "yesterday" is local 05-23.
    observed = datetime(2023, 5, 24, 0, 30, tzinfo=timezone(timedelta(hours=9)))
    (fact,) = extract("昨天我去了西湖", observed=observed, tz="Asia/Tokyo")
    assert "2023-05-23" in fact.content
    assert fact.valid_from == datetime(2023, 5, 23, tzinfo=ZoneInfo("Asia/Tokyo"))


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("下周五交报告", "2023-06-02交报告"),
        ("上周三", "2023-05-17"),
        ("前天", "2023-05-22"),
        ("3天后", "2023-05-27"),
        ("去年", "2022年"),
        ("next Friday", "2023-06-02"),
        ("last Friday", "2023-05-19"),
        ("2 days ago", "2023-05-22"),
        ("last month", "in April 2023"),
        ("以后周四汇报", "以后周四汇报"),  # a recurring weekday stays
    ],
)
def test_resolve_relative(text: str, expected: str) -> None:
    out, _ = resolve_relative(text, OBSERVED, ZoneInfo("UTC"))
    assert out == expected


def test_deadline_gets_valid_until() -> None:
    (fact,) = extract("报告下周五之前交")
    assert fact.key["kind"] == "deadline"
    assert fact.valid_until == datetime(2023, 6, 3, tzinfo=UTC)


def test_temporary_state_has_valid_until_and_supplements() -> None:
    (temp,) = extract("最近吃不了辣")
    assert temp.valid_until == OBSERVED + timedelta(days=14)
    (lasting,) = extract("我喜欢川菜")
    shown = [
        JudgeCandidate(index=0, content=lasting.content, memory_type="semantic", key=lasting.key)
    ]
    item = ExtractInput(text="最近吃不了辣", observed_at=OBSERVED)
    judgement, _ = RULES.judge(temp, shown, item)
    assert [(d.candidate, d.relation) for d in judgement.decisions] == [(0, "supplements")]


@pytest.mark.parametrize(
    ("old", "new", "relation"),
    [
        ("以后周四汇报", "改成周五汇报", "contradicts"),
        ("I like spicy food", "I can't eat spicy food any more", "contradicts"),
        ("I like spicy food", "I really like spicy food", "duplicate"),
        ("我住在杭州", "我搬到了上海", "contradicts"),
        # a form of address is kept next to the name, not instead of it (issue 15)
        ("My name is Alice", "Call me Bob", "supplements"),
        ("My name is Alice", "My name is Bob", "contradicts"),
        ("I live in Berlin", "I like jazz", "unrelated"),
        ("我喜欢川菜", "我对花生过敏", "unrelated"),
    ],
)
def test_judge_relations(old: str, new: str, relation: str) -> None:
    (o,) = extract(old)
    (n,) = extract(new)
    # the stored memory is re-analysed from its content when it carries no key
    shown = [JudgeCandidate(index=0, content=o.content, memory_type="semantic")]
    judgement, _ = RULES.judge(n, shown, ExtractInput(text=new, observed_at=OBSERVED))
    got = judgement.decisions[0].relation if judgement.decisions else "unrelated"
    assert got == relation


def test_change_content_names_the_new_value() -> None:
    (fact,) = extract("改成周五汇报")
    assert fact.content == "用户的汇报改为周五"
    assert fact.key["value"] == "周五"


def test_local_day_helper_boundary() -> None:
    out, refs = resolve_relative(
        "today", datetime(2023, 5, 24, 23, 30, tzinfo=UTC), ZoneInfo("Asia/Shanghai")
    )
    assert refs[0].start == date(2023, 5, 25) and out == "2023-05-25"
