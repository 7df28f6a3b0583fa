"""Replies that lean on the previous message's memory: a restatement (``said_again``), a detail
without its owner (``detail_clause``), a denial of the value the memory holds
(``without_denied``), a number said again (``substituted``), a name the previous message
introduced (``known_holder``, ``named_holder``), and "大家都叫他陈总" (``reworded``). Then the
same replies through ``RulesLLM`` and the engine's judge, as a user's two turns."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_clauses import holder_of
from memory_engine.llm.rules_continuation import substituted, without_denied
from memory_engine.llm.rules_fragments import detail_clause, said_again
from memory_engine.llm.rules_referents import known_holder, named_holder
from memory_engine.llm.rules_sentences import reworded


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("Miso's seven btw", "The user's cat Miso is 7"),
        ("还是那句话，简体中文回答就好", "用简体中文回答用户"),
    ],
)
def test_a_restatement_says_the_memory_again(text: str, memory: str) -> None:
    assert said_again(text, ["The user lives in Oslo", memory]) == memory


@pytest.mark.parametrize(
    "text",
    [
        "Miso's at the vet",  # a content word of its own
        "I don't like Miso",  # a denial
        "Is Miso seven?",  # a question
        "",
    ],
)
def test_not_a_restatement(text: str) -> None:
    assert said_again(text, ["The user's cat Miso is 7"]) is None


@pytest.mark.parametrize(
    "text",
    ["型号是拓竹P1S，基本都打PLA", "最常去的是香山", "there's basil, mint and rosemary in it"],
)
def test_a_detail_without_its_owner(text: str) -> None:
    assert detail_clause(text) == text


@pytest.mark.parametrize(
    "text",
    ["今天是周五", "我是程序员", "型号是什么？", "you're great", "密码是1234", "结论是明天再说"],
)
def test_not_a_detail(text: str) -> None:
    assert detail_clause(text) is None


@pytest.mark.parametrize(
    ("clause", "memory", "expected"),
    [
        ("我那辆是银色的，不是白色", "用户开的是一辆白色卡罗拉", "我那辆是银色的"),
        ("她不是在成都，是在重庆", "用户的妹妹在成都读研", "她在重庆"),
        ("it's in Austin, not Denver", "The user's sister lives in Denver", "it's in Austin"),
        # no memory holds 咖啡: the denial is the user's own fact
        ("我喝茶，不是咖啡", "用户住在上海", "我喝茶，不是咖啡"),
        # a plain negation is no "X, not Y" swap
        ("Honestly I'm not a morning person", "The user is a morning person", None),
    ],
)
def test_without_denied(clause: str, memory: str, expected: str | None) -> None:
    assert without_denied(clause, [memory]) == (expected or clause)


def test_a_number_said_again_replaces_the_same_shaped_number() -> None:
    assert (
        substituted("The user drives a 2019 Honda Civic with 2 doors", "no wait, it's a 2017")
        == "The user drives a 2017 Honda Civic with 2 doors"
    )
    assert substituted("The user drives a Honda Civic", "no wait, it's a 2017") is None


def test_a_bare_name_is_the_holder_the_previous_memory_named() -> None:
    memory = "The user's sister Emma lives in Denver"
    _, bare = holder_of("Emma moved to Austin", None)
    found = known_holder([memory], bare)
    assert found is not None and found.phrase == "The user's sister Emma"
    assert known_holder([memory], None) is None  # no holder: the user


@pytest.mark.parametrize(
    ("memory", "clause", "rewritten", "phrase"),
    [
        ("用户的同事小林负责前端", "小林主要写React", "我主要写React", "用户的同事小林"),
        (
            "The user's client Helix Labs pays net 30",
            "Helix Labs invoices go to ap@helix.io",
            "my invoices go to ap@helix.io",
            "The user's client Helix Labs",
        ),
        (
            "The user's sister Emma lives in Denver",
            "Emma works at a bakery",
            "I work at a bakery",
            "The user's sister Emma",
        ),
    ],
)
def test_named_holder(memory: str, clause: str, rewritten: str, phrase: str) -> None:
    found = named_holder([memory], clause)
    assert found is not None
    assert found[0] == rewritten and found[1].phrase == phrase


def test_no_named_holder_for_someone_else() -> None:
    assert named_holder(["用户的同事小林负责前端"], "小王主要写React") is None


@pytest.mark.parametrize(
    ("clause", "expected"),
    [
        ("大家都叫他陈总", "他的称呼是陈总"),
        ("everyone calls her Liz", "she is called Liz"),
        ("大家都很好", "大家都很好"),
    ],
)
def test_called_by_others(clause: str, expected: str) -> None:
    assert reworded(clause) == expected


def _extract(text: str, *context: str) -> list[str]:
    item = ExtractInput(
        text=text, observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC), context=context
    )
    extraction, _ = RulesLLM().extract(item)
    return [f.content for f in extraction.facts]


@pytest.mark.parametrize(
    ("text", "memory"),
    [
        ("yeah it's all on bitbucket", "The user keeps all their code on Bitbucket"),
        ("还是那句话，简体中文回答就好", "用简体中文回答用户"),
    ],
)
def test_extract_a_restatement_gives_the_memory_itself(text: str, memory: str) -> None:
    assert _extract(text, memory) == [memory]


def test_extract_a_denied_value_is_not_stored_as_held() -> None:
    facts = _extract("我那辆是银色的，不是白色", "用户开的是一辆白色卡罗拉")
    assert facts and all("白色" not in f for f in facts)
    assert any("银色" in f for f in facts)


def test_extract_keeps_a_correction_whose_denial_is_the_pattern() -> None:
    facts = _extract(
        "I meant Thursday, not Tuesday, for the dentist.",
        "The user's dentist appointment is on Tuesday at 3pm",
    )
    assert facts and any("thursday" in f.lower() for f in facts)


def test_extract_a_plain_negation_keeps_its_polarity() -> None:
    item = ExtractInput(
        text="Honestly I'm not a morning person",
        observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC),
        context=("The user is a morning person",),
    )
    extraction, _ = RulesLLM().extract(item)
    assert extraction.facts
    assert all("morning person" in f.content for f in extraction.facts)
    assert all(f.key.get("polarity") == -1 for f in extraction.facts)


def test_a_number_word_said_again_is_a_duplicate_of_the_digits() -> None:
    from memory_engine.llm.base import JudgeCandidate
    from memory_engine.llm.rules_similar import content_anchors

    assert "7" in content_anchors("Miso's seven btw")
    assert "btw" not in content_anchors("Miso's seven btw")
    llm = RulesLLM()
    memory = "The user's cat Miso is 7"
    item = ExtractInput(
        text="Miso's seven btw", observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC), context=(memory,)
    )
    extraction, _ = llm.extract(item)
    shown = JudgeCandidate(
        index=0,
        content=memory,
        memory_type="semantic",
        similarity=0.7,
        recent=True,
        key=llm.key_of(memory, None) or {},
    )
    for fact in extraction.facts:
        judgement, _ = llm.judge(fact, [shown], item)
        assert [d.relation for d in judgement.decisions] == ["duplicate"]
    assert extraction.facts
