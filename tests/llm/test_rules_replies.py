"""Replies that lean on the previous message: a subject left out ("还会点法语", "not vegan
anymore"), another item said with "also", a restatement in other words (a duplicate, not a
supplement); and what none of these may do (glue a task onto a fact, add to a non-list)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_similar import similar_relation

AT = datetime(2026, 3, 10, 9, tzinfo=UTC)


def _facts(text: str, *context: str) -> list[str]:
    found = RulesLLM().extract(ExtractInput(text=text, observed_at=AT, context=context))[0]
    return [f.content for f in found.facts]


@pytest.mark.parametrize(
    ("previous", "text", "expected"),
    [
        ("用户会弹吉他", "还会点尤克里里，自学的", "用户还会点尤克里里"),
        ("用户用的是三星手机", "后来换了，现在用的是一加", "用户现在用的是一加"),
        ("The user is vegan", "not vegan anymore, I eat eggs now", "The user is not vegan"),
    ],
)
def test_a_reply_without_its_subject_is_the_users(previous: str, text: str, expected: str) -> None:
    assert any(f.startswith(expected) for f in _facts(text, previous)), _facts(text, previous)


def test_without_a_previous_message_nothing_is_guessed() -> None:
    assert _facts("还会点尤克里里，自学的") == [] or all(
        f.startswith("用户") for f in _facts("还会点尤克里里，自学的")
    )
    assert _facts("not sure, maybe", "The user lives in Oslo") == []


def test_also_adds_an_item_to_a_list_fact_only() -> None:
    facts = _facts("also latex, same reaction", "The user is allergic to nickel")
    assert facts and "nickel" in facts[0] and "latex" in facts[0]
    for text in ("also need to renew my passport", "also the weather is nice"):
        assert not any("Oslo" in f for f in _facts(text, "The user lives in Oslo")), text


@pytest.mark.parametrize(
    ("old", "new", "text"),
    [
        ("用户写代码用Emacs", "用户写代码一直都是Emacs", "嗯 写代码我一直都是emacs"),
        ("用户不吃葱", "葱用户是真的一口都不碰", "葱我是真的一口都不碰"),
    ],
)
def test_a_restatement_that_adds_no_word_is_a_duplicate(old: str, new: str, text: str) -> None:
    llm = RulesLLM()
    new_key = llm.key_of(new, None) or {"kind": "statement", "holder": "user", "polarity": 1}
    old_key = llm.key_of(old, None) or {"kind": "statement", "holder": "user", "polarity": 1}
    if "不" in old:
        new_key, old_key = {**new_key, "polarity": -1}, {**old_key, "polarity": -1}
    found = similar_relation(
        new_key, old_key, new_content=new, old_content=old, new_text=text, cosine=0.7
    )
    assert found is not None and found[0] == "duplicate", found


def test_a_restatement_with_a_new_word_stays_a_supplement() -> None:
    llm = RulesLLM()
    item = ExtractInput(text="I like tea ceremonies in Kyoto", observed_at=AT)
    old = llm.extract(ExtractInput(text="I like tea", observed_at=AT))[0].facts[0]
    new = llm.extract(item)[0].facts[0]
    shown = JudgeCandidate(
        index=0, content=old.content, memory_type="semantic", key=old.key, similarity=0.7
    )
    decisions = llm.judge(new, [shown], item)[0].decisions
    assert all(d.relation != "duplicate" for d in decisions), decisions


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("我特别爱喝奶茶", "最近在控糖，不喝奶茶"),
        ("I walk to work every day", "I'm taking the bus for the next couple weeks, my knee hurts"),
    ],
)
def test_a_temporary_change_keeps_the_lasting_fact(before: str, after: str) -> None:
    llm = RulesLLM()
    old = llm.extract(ExtractInput(text=before, observed_at=AT))[0].facts[0]
    item = ExtractInput(text=after, observed_at=AT, context=(old.content,))
    shown = JudgeCandidate(
        index=0, content=old.content, memory_type="semantic", key=old.key, similarity=0.7
    )
    facts = llm.extract(item)[0].facts
    assert any(f.key.get("temporary") for f in facts), facts
    for fact in facts:
        decisions = llm.judge(fact, [shown], item)[0].decisions
        assert all(d.relation != "contradicts" for d in decisions), (fact.content, decisions)


@pytest.mark.parametrize(
    ("previous", "text"),
    [
        ("用户会说英语和日语", "还在路上"),
        ("用户会说英语和日语", "还是算了"),
        ("用户会说英语和日语", "现在是几点"),
        ("The user is vegetarian", "still waiting for the bus"),
        ("The user is vegetarian", "not me"),
        ("The user is vegetarian", "not today"),
        ("The user is vegetarian", "no longer needed"),
        ("The user's husband works at Google", "not at Google anymore"),
        ("The user likes jazz", "also thanks for the help"),
        ("The user likes jazz", "also hates country"),
        ("The user uses VS Code", "also the password is hunter2"),
        ("The user likes rock", "also she likes jazz"),
    ],
)
def test_a_passing_reply_or_a_third_partys_is_no_fact_of_the_users(
    previous: str, text: str
) -> None:
    facts = _facts(text, previous)
    assert not any(f.startswith(("用户", "The user")) for f in facts), facts
