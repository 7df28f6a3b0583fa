"""Fast tests of the offline ``rules`` provider: polarity, propositions, holders, distilled
wording, memory types, importance, the judge's relations, tool-output conclusions and coded
skip reasons. Sentences here are not the issue's own (those run end to end in
tests/write/test_extract_rules_why.py)."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from memory_engine.dashboard.i18n import STRINGS, reason_text
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.reasons import SkipReason, code_of
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_polarity import polarity
from memory_engine.llm.schemas import Fact
from memory_engine.llm.toolsummary import parse_rendered, render, summarise
from memory_engine.models import MemorySource, MemoryType

OBSERVED = datetime(2023, 5, 24, 12, tzinfo=UTC)  # a Wednesday
RULES = RulesLLM()


def facts(text: str, source: MemorySource = MemorySource.CONVERSATION) -> list[Fact]:
    result, _ = RULES.extract(ExtractInput(text=text, observed_at=OBSERVED, source=source))
    return list(result.facts) if result.should_remember else []


def one(text: str) -> Fact:
    (fact,) = facts(text)
    return fact


def relation(old: str, new: str) -> str:
    o, n = one(old), one(new)
    shown = [JudgeCandidate(index=0, content=o.content, memory_type="semantic", key=o.key)]
    judgement, _ = RULES.judge(n, shown, ExtractInput(text=new, observed_at=OBSERVED))
    return judgement.decisions[0].relation if judgement.decisions else "unrelated"


@pytest.mark.parametrize(
    ("clause", "sign"),
    [
        ("我不喝咖啡", -1),
        ("我再也不吃羊肉了", -1),
        ("我特别喜欢爬山", 1),  # 特别 holds 别 but is no negation
        ("这家店不错", 1),
        ("我不得不早起", 1),
        ("I don't eat pork anymore", -1),
        ("I no longer drive", -1),
        ("not only tea but coffee", 1),
    ],
)
def test_polarity(clause: str, sign: int) -> None:
    assert polarity(clause) == sign


@pytest.mark.parametrize(
    ("old", "new", "expected"),
    [
        ("我对芒果过敏", "我对芒果不过敏", "contradicts"),
        ("I'm allergic to cats", "I'm not allergic to cats any more", "contradicts"),
        ("我喜欢狗", "我不再喜欢狗了", "contradicts"),
        ("我喜欢茶", "我喜欢茶道", "supplements"),  # containment: both kept
        ("I like jazz", "I like jazz festivals in Montreal", "supplements"),
        ("I like jazz", "I really like jazz", "duplicate"),
        ("我住在北京", "其实我已经搬到杭州了", "contradicts"),
        ("I work at Google", "I work at Stripe", "contradicts"),
        ("我对芒果过敏", "我对虾过敏", "unrelated"),
        ("我的女儿喜欢画画", "我喜欢画画", "unrelated"),  # different holders
        ("叫我小李", "叫我李工", "contradicts"),
    ],
)
def test_judge(old: str, new: str, expected: str) -> None:
    assert relation(old, new) == expected


def test_negated_fact_keeps_the_negation_in_content_and_key() -> None:
    fact = one("I don't drink coffee")
    assert "doesn't drink coffee" in fact.content and fact.key["polarity"] == -1
    zh = one("我对青霉素不过敏")
    assert zh.content == "用户对青霉素不过敏" and zh.importance < 0.9


def test_one_fact_per_proposition() -> None:
    got = [f.content for f in facts("I live in Oslo and my favourite food is sushi")]
    assert got == ["The user lives in Oslo", "The user's favourite food is sushi"]


def test_third_party_pronoun_carries_the_holder() -> None:
    got = [f.content for f in facts("My sister lives in Rome. She loves opera.")]
    assert got == ["The user's sister lives in Rome", "The user's sister loves opera"]
    zh = [f.content for f in facts("我女儿对牛奶过敏，她喜欢草莓")]
    assert zh == ["用户的女儿对牛奶过敏", "用户的女儿喜欢草莓"]


def test_types_by_content() -> None:
    assert one("以后都用英文回复我").memory_type == MemoryType.PROCEDURAL
    assert one("I prefer aisle seats").memory_type == MemoryType.SEMANTIC
    assert one("Yesterday I ran a half marathon").memory_type == MemoryType.EPISODIC
    assert one("我昨天去了医院").memory_type == MemoryType.EPISODIC


def test_importance_health_and_remember() -> None:
    assert one("我有哮喘").importance >= 0.9 or one("我对尘螨过敏").importance >= 0.9
    plain, asked = one("I like green tea"), one("Remember that I like green tea")
    assert asked.importance > plain.importance and asked.content == plain.content


def test_address_pair_english() -> None:
    fact = one("Please don't call me Bob, call me Robert")
    assert fact.content == "The user wants to be called Robert, not Bob"


def test_changed_plan_and_bare_correction() -> None:
    moved = one("我们把周会挪到周三下午两点")
    assert moved.key["kind"] == "schedule" and "周三下午两点" in moved.content
    old = one("The demo is on Thursday from now on")
    new = one("Make it 4pm instead")
    shown = [JudgeCandidate(index=0, content=old.content, memory_type="semantic", key=old.key)]
    judgement, _ = RULES.judge(new, shown, ExtractInput(text="x", observed_at=OBSERVED))
    assert [d.relation for d in judgement.decisions] == ["contradicts"]


def test_temporary_state_valid_until() -> None:
    fact = one("这周我在上海出差")
    assert fact.key["temporary"] and fact.valid_until is not None
    assert fact.valid_until > OBSERVED


def test_third_party_org_event_carries_the_entity() -> None:
    assert "ACME" in one("ACME signed the contract").entities
    assert "Globex" in one("Met with Globex yesterday").entities


def test_tool_output_json_and_kv_conclusions() -> None:
    payload = json.dumps({"ticket_id": "T-88", "state": "closed", "closed_at": "2023-05-20"})
    (fact,) = facts(payload, MemorySource.TOOL_OUTPUT)
    assert fact.content == "Ticket T-88 is closed: closed at 2023-05-20"
    assert fact.key["subject"] == "ticket t-88" and fact.key["value"] == "closed"
    kv = facts("job: 7731\nstatus: succeeded\nfinished_at: 2023-05-23", MemorySource.TOOL_OUTPUT)
    assert [f.content for f in kv] == ["Job 7731 is succeeded: finished at 2023-05-23"]


def test_tool_status_change_contradicts() -> None:
    a = json.dumps({"order_id": "B7", "status": "shipped"})
    b = json.dumps({"order_id": "B7", "status": "delivered"})
    (old,) = facts(a, MemorySource.TOOL_OUTPUT)
    (new,) = facts(b, MemorySource.TOOL_OUTPUT)
    shown = [JudgeCandidate(index=0, content=old.content, memory_type="episodic", key=old.key)]
    judgement, _ = RULES.judge(new, shown, ExtractInput(text=b, observed_at=OBSERVED))
    assert [d.relation for d in judgement.decisions] == ["contradicts"]


def test_http_summary_and_rendered_round_trip() -> None:
    (c,) = summarise("POST /v1/payments -> 502 Bad Gateway") or []
    assert c.text == "POST /v1/payments returned 502 Bad Gateway" and c.status == "502"
    back = parse_rendered(render([c]))
    assert back is not None and back[0].text == c.text and back[0].status == "502"
    assert summarise("我今天很开心") is None


@pytest.mark.parametrize(
    ("text", "code"),
    [
        ("谢谢！", SkipReason.SMALL_TALK),
        ("Where is the nearest station?", SkipReason.QUESTION),
        ("帮我总结一下这篇文章", SkipReason.ONE_OFF_REQUEST),
        ("Let me think about it.", SkipReason.NO_FACT),
    ],
)
def test_skip_reasons_are_coded_and_localised(text: str, code: SkipReason) -> None:
    result, _ = RULES.extract(ExtractInput(text=text, observed_at=OBSERVED))
    assert not result.should_remember and code_of(result.reason) == code
    assert reason_text(result.reason, "zh") == STRINGS[f"write.skip.{code}"]["zh"]
    assert reason_text(result.reason, "en") == STRINGS[f"write.skip.{code}"]["en"]


def test_every_skip_reason_has_both_languages() -> None:
    for code in SkipReason:
        assert set(STRINGS[f"write.skip.{code}"]) >= {"en", "zh"}
    assert reason_text("the model's own words", "zh") == "the model's own words"
