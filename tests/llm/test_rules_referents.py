"""A leading pronoun of a message refers to the previous message's third party or pet
(``rules_clauses.context_holder``): 他/她/he/she to the person, 它/"it" to the animal; never
to the user, and 它/"it" never to a person."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_referents import context_holder

AT = datetime(2026, 3, 10, 9, tzinfo=UTC)


def _facts(text: str, *context: str) -> list[str]:
    found = RulesLLM().extract(ExtractInput(text=text, observed_at=AT, context=context))[0]
    return [f.content for f in found.facts]


@pytest.mark.parametrize(
    ("before", "text", "holder", "term"),
    [
        ("我女儿在第二中学读初一", "说错了，她今年已经初二了", "用户的女儿", "初二"),
        ("我哥哥在银行上班", "他上个月辞职了，现在开咖啡店", "用户的哥哥", "咖啡店"),
        ("My brother Tom lives in Leeds", "oh wait he moved to York last year", "Tom", "York"),
        ("My neighbour Ana is a pilot", "turns out she flies for KLM now", "Ana", "KLM"),
    ],
)
def test_a_pronoun_is_the_previous_messages_person(
    before: str, text: str, holder: str, term: str
) -> None:
    old = _facts(before)[0]
    facts = _facts(text, old)
    assert any(holder in f and term in f for f in facts), facts
    assert not any(f.startswith(("用户" + term, "The user " + term)) for f in facts), facts


@pytest.mark.parametrize(
    ("before", "text", "pet", "term"),
    [
        ("我养了一只猫", "它是布偶，叫年糕", "用户的猫", "年糕"),
        ("I have a rabbit", "it's a lop, named Clover", "The user's rabbit", "Clover"),
    ],
)
def test_it_is_the_previous_messages_pet(before: str, text: str, pet: str, term: str) -> None:
    facts = _facts(text, _facts(before)[0])
    assert any(f.startswith(pet) and term in f for f in facts), facts
    assert not any("用户叫" in f or "The user is named" in f for f in facts), facts


@pytest.mark.parametrize(
    ("context", "clause"),
    [
        (("用户住在上海",), "他人很好"),  # the user's own fact: no one else to refer to
        (("用户的老公在字节做后端开发",), "它很好吃"),  # 它 is never a person
        (("The user's manager is Helen",), "it's raining"),
        (("The user lives in Berlin",), "she said hi"),
    ],
)
def test_no_referent(context: tuple[str, ...], clause: str) -> None:
    assert context_holder(context, clause) is None


def test_the_pronoun_correction_replaces_the_persons_old_fact() -> None:
    llm = RulesLLM()
    old = llm.extract(ExtractInput(text="我儿子在实验小学上三年级", observed_at=AT))[0].facts[0]
    item = ExtractInput(text="记错了，他今年已经四年级了", observed_at=AT, context=(old.content,))
    new = llm.extract(item)[0].facts
    assert len(new) == 1 and "四年级" in new[0].content and "用户的儿子" in new[0].content
    shown = JudgeCandidate(
        index=0, content=old.content, memory_type="semantic", recent=True, key=old.key
    )
    decisions = llm.judge(new[0], [shown], item)[0].decisions
    assert [d.relation for d in decisions] == ["contradicts"]


def test_a_pronoun_never_makes_the_users_own_fact_someone_elses() -> None:
    facts = _facts("我今年三十岁", "用户的女儿在第二中学读初一")
    assert facts and all(f.startswith("用户") and "女儿" not in f for f in facts), facts


@pytest.mark.parametrize(
    ("context", "clause"),
    [
        (("用户的老公在字节做后端开发",), "她怀孕了"),  # 她 is no husband
        (("The user's wife is a teacher",), "he is a nurse"),
        (("用户的猫叫团子",), "他叫张伟"),  # 他 is no cat in Chinese
        (("用户的老公在字节做后端开发",), "他们都是工程师"),  # a plural is nobody here
        (("The user has a dog", "The user has a laptop"), "it broke yesterday"),
        (("The user has a cat",), "It's 3am here"),
        (("The user has a cat",), "it is so hot today"),
        (("用户的猫叫团子", "用户的同事养了一只狗"), "它是金毛"),  # someone else's dog
    ],
)
def test_a_pronoun_that_fits_nobody_refers_to_nobody(context: tuple[str, ...], clause: str) -> None:
    assert context_holder(context, clause) is None


def test_the_pronoun_finds_the_person_of_its_gender() -> None:
    holder = context_holder(("用户的老公在字节做后端开发", "用户的妈妈退休了"), "他现在去阿里了")
    assert holder is not None and holder.phrase == "用户的老公"
    holder = context_holder(
        ("The user's husband is a pilot", "The user's mom is retired"), "he quit"
    )
    assert holder is not None and "husband" in holder.phrase


@pytest.mark.parametrize(
    ("before", "text", "holder", "term"),
    [
        ("我儿子对花生过敏", "还对芒果过敏", "用户的儿子", "芒果"),
        ("我女儿在学钢琴", "也在学游泳", "用户的女儿", "游泳"),
        ("My son is allergic to peanuts", "also allergic to shellfish", "son", "shellfish"),
        ("My daughter is learning piano", "and also plays violin", "daughter", "violin"),
        ("My manager Priya prefers PDF reports", "also hates long meetings", "Priya", "meetings"),
    ],
)
def test_an_addition_without_a_subject_is_the_previous_third_partys(
    before: str, text: str, holder: str, term: str
) -> None:
    old = _facts(before)[0]
    facts = _facts(text, old)
    assert any(holder in f and term in f for f in facts), facts
    assert not any(
        f.startswith(("用户还", "用户也", "The user is also", "The user also")) for f in facts
    )


@pytest.mark.parametrize(
    ("before", "text", "start"),
    [
        ("我对花生过敏", "还对芒果过敏", "用户还对芒果过敏"),  # the user's own fact before
        ("我儿子对花生过敏", "我还对芒果过敏", "用户还对芒果过敏"),  # a subject of its own
    ],
)
def test_an_addition_after_the_users_own_fact_or_with_a_subject_is_the_users(
    before: str, text: str, start: str
) -> None:
    assert _facts(text, _facts(before)[0]) == [start]


def test_a_subjectless_remark_after_a_third_partys_fact_adds_nothing() -> None:
    old = _facts("我儿子对花生过敏")[0]
    assert _facts("还是算了", old) == []
    assert _facts("也行", old) == []
