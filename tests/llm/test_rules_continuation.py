"""``rules_continuation.continues``: which messages open as a continuation of the previous one
(a pronoun, "mostly"/"一般", a bare copula, "X specifically"), and which name their own subject
or open with a negation."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_continuation import continues, corrects_previous, substituted


@pytest.mark.parametrize(
    "text",
    [
        "she's a border collie, her name's Pepper",
        "mostly jazz stuff, been taking lessons for about 4 years",
        "It's Wednesdays at 2, in the small conference room on the 4th floor.",
        "Ballard specifically, a few blocks from the locks",
        "oh and it needs watering twice a week",
        "是玄凤鹦鹉，叫小黄，两岁多了",
        "尤其是刘慈欣的，三体我看了三遍",
        "对了，一般在3楼大会议室开",
        "在吃氨氯地平，每天早上一片",
    ],
)
def test_a_continuation(text: str) -> None:
    assert continues(text)


@pytest.mark.parametrize(
    "text",
    [
        "I live in Seattle",
        "My sister is a nurse",
        "我住在上海",
        "不是豆豆，是豆包",
        "not a border collie, a sheltie",
        "他们公司在杭州",
        "They moved standup to 10:15",
        "",
    ],
)
def test_not_a_continuation(text: str) -> None:
    assert not continues(text)


@pytest.mark.parametrize(
    ("text", "takes_back"),
    [
        ("scratch that, sold the civic last weekend", True),
        ("wait I typed that wrong, it's Miso lol", True),
        ("Plans changed — we're doing Japan instead", True),
        ("更正一下，我上个月已经跳槽去字节了", True),
        ("计划有变，五一改去青岛了", True),
        ("哦不对，我住的是天府新区", True),
        ("she's a border collie", False),
        ("I also like hiking", False),
        ("我也喜欢爬山", False),
    ],
)
def test_takes_back_what_was_just_said(text: str, takes_back: bool) -> None:
    assert (corrects_previous(text) is not None) is takes_back


@pytest.mark.parametrize(
    ("previous", "text", "term"),
    [
        (
            "The user plays piano",
            "mostly jazz stuff, been taking lessons for about 4 years",
            "jazz",
        ),
        (
            "The user lives in Seattle",
            "Ballard specifically, a few blocks from the locks",
            "Ballard",
        ),
        ("用户养了一只鹦鹉", "是玄凤鹦鹉", "玄凤"),
    ],
)
def test_a_continuation_with_no_fact_of_its_own_extends_the_previous_one(
    previous: str, text: str, term: str
) -> None:
    at = datetime(2026, 3, 10, 9, tzinfo=UTC)
    alone = RulesLLM().extract(ExtractInput(text=text, observed_at=at))[0]
    with_context = RulesLLM().extract(ExtractInput(text=text, observed_at=at, context=(previous,)))[
        0
    ]
    assert not any(f.content.startswith(previous) for f in alone.facts)
    (fact,) = with_context.facts
    assert fact.content.startswith(previous) and term in fact.content


def test_a_question_or_request_after_a_fact_is_not_a_continuation() -> None:
    at = datetime(2026, 3, 10, 9, tzinfo=UTC)
    for text in ("mostly jazz?", "it's fine, thanks"):
        found = RulesLLM().extract(
            ExtractInput(text=text, observed_at=at, context=("The user plays piano",))
        )[0]
        assert not any("piano" in f.content for f in found.facts), found.facts


@pytest.mark.parametrize(
    ("previous", "text", "fact"),
    [
        ("The user's cat is named Mochi", "it's Miso not Mochi", "The user's cat is named Miso"),
        ("The user lives in Berlin", "I said Munich, not Berlin", "The user lives in Munich"),
        ("用户养了一只鹦鹉，叫小黄", "是小绿，不是小黄", "用户养了一只鹦鹉，叫小绿"),
        ("用户家狗狗叫豆豆，柯基", "其实它叫豆包不是豆豆，我老是打错😂", "用户家狗狗叫豆包，柯基"),
    ],
)
def test_x_not_y_right_after_y_replaces_the_value(previous: str, text: str, fact: str) -> None:
    assert substituted(previous, text) == fact


@pytest.mark.parametrize(
    ("previous", "text"),
    [
        ("The user is a morning person", "Honestly I'm not a morning person."),
        ("The user likes tea", "I'm not sure"),
        ("The user's cat is named Mochi", "it's Miso not Bella"),
    ],
)
def test_a_denial_or_another_value_is_no_swap(previous: str, text: str) -> None:
    assert substituted(previous, text) is None


@pytest.mark.parametrize(
    ("previous", "text"),
    [
        ("The user lives in Maxwell Street", "it's Rex, not Max"),
        ("The user works at Atom Labs", "It's Jerry not Tom"),
        ("The user meets on March 13 at 3pm", "it's 4, not 3"),
        ("用户下午13点开会", "是4点，不是3点"),
        ("用户的狗叫豆豆豆", "叫豆包不是豆豆"),
        ("我养了一只小黄狗", "是小绿，不是小黄"),
        ("The user lives in London", "Let's meet in Paris, not London"),
        ("The user speaks German", "Please reply in English, not German"),
        ("用户是医生", "我老婆是老师，不是医生"),
        ("The user lives in London", "My wife is in Paris, not London"),
        ("用户住在柏林", "是慕尼黑，不是柏林。另外我在宝马上班"),
        ("The user lives in Berlin", "Munich, not Berlin. I work at BMW"),
    ],
)
def test_no_swap_inside_a_word_for_someone_else_or_beside_other_facts(
    previous: str, text: str
) -> None:
    assert substituted(previous, text) is None


def test_a_weak_cue_never_replaces_a_fact_of_another_kind() -> None:
    at = datetime(2026, 3, 10, 9, tzinfo=UTC)
    llm = RulesLLM()
    for before, after in [
        ("I live in Berlin", "Actually I love sushi"),
        ("I work at Google", "Plans changed, I'm going to Rome for the weekend"),
        ("我喜欢狗", "其实我也喜欢猫"),
    ]:
        old = llm.extract(ExtractInput(text=before, observed_at=at))[0].facts[0]
        item = ExtractInput(text=after, observed_at=at, context=(old.content,))
        for fact in llm.extract(item)[0].facts:
            shown = JudgeCandidate(
                index=0, content=old.content, memory_type="semantic", recent=True, key=old.key
            )
            decisions = llm.judge(fact, [shown], item)[0].decisions
            assert not any(d.relation == "contradicts" for d in decisions), (after, decisions)


def test_a_remark_after_a_fact_is_not_glued_onto_it() -> None:
    at = datetime(2026, 3, 10, 9, tzinfo=UTC)
    for text in ("it's 3am here, can't sleep", "this is a test", "一般般吧", "它很好"):
        found = RulesLLM().extract(
            ExtractInput(text=text, observed_at=at, context=("The user lives in Berlin",))
        )[0]
        assert not any(f.content.startswith("The user lives in Berlin") for f in found.facts)


def test_a_swap_may_open_with_a_remark_on_the_slip_and_end_with_an_emoji() -> None:
    from datetime import UTC, datetime

    from memory_engine.llm.base import ExtractInput
    from memory_engine.llm.rules import RulesLLM

    item = ExtractInput(
        text="啊刚才打错字了，不是年糕，是糯米🐱",
        observed_at=datetime(2026, 3, 10, tzinfo=UTC),
        context=("用户的猫叫年糕，橘色的，特别能吃",),
    )
    facts = [f.content for f in RulesLLM().extract(item)[0].facts]
    assert facts == ["用户的猫叫糯米，橘色的，特别能吃"]
