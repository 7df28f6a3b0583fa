"""The rules judge on subjects said with discourse words, on an unrecognised statement next
to a recognised kind, and on denials of a more general subject (``llm/rules_judge``)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from memory_engine.entities import entity_key, mentioned_entities
from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules import RulesLLM
from memory_engine.llm.rules_judge import key_terms, relation


def key(kind: str, subject: str, polarity: int = 1, **kw: object) -> dict[str, object]:
    return {"kind": kind, "holder": "user", "subject": subject, "polarity": polarity, **kw}


def test_discourse_words_do_not_change_the_subject() -> None:
    new = key("allergy", "shellfish after all", -1)
    assert relation(new, key("allergy", "shellfish"))[0] == "contradicts"
    assert (
        relation(key("preference", "其实咖啡了", -1), key("preference", "咖啡"))[0] == "contradicts"
    )
    assert key_terms(new)[0] == key_terms(key("allergy", "shellfish"))[0]


def test_a_statement_compares_with_another_kind_on_the_same_subject() -> None:
    assert relation(key("statement", "车", -1), key("has", "车"))[0] == "contradicts"
    assert relation(key("statement", "车", 1), key("has", "车"))[0] == "duplicate"
    # but a recognised kind never meets another recognised kind this way
    assert relation(key("preference", "猫", -1), key("has", "猫"))[0] == "unrelated"
    # and a statement about something else stays unrelated
    assert relation(key("statement", "狗", -1), key("has", "车"))[0] == "unrelated"


def test_the_same_subject_under_any_kind_shares_a_keyed_term() -> None:
    assert set(key_terms(key("statement", "车"))) & set(key_terms(key("has", "车")))
    assert not set(key_terms(key("statement", "狗"))) & set(key_terms(key("has", "车")))


def test_denying_the_general_subject_contradicts_the_specific_one() -> None:
    assert relation(key("preference", "meat", -1), key("statement", "eat meat"))[0] == "contradicts"
    # denying a more specific thing keeps the general fact
    assert relation(key("preference", "tea ceremonies", -1), key("preference", "tea"))[0] == (
        "supplements"
    )
    # containment with the same polarity is still a supplement (猫 / 猫头鹰)
    assert relation(key("preference", "猫头鹰"), key("preference", "猫"))[0] == "supplements"


def test_a_trip_is_single_valued_per_time() -> None:
    old = key("plan", "五一", value="厦门")
    assert relation(key("plan", "五一", value="青岛", correction=True), old)[0] == "contradicts"
    assert relation(key("plan", "五一", value="厦门"), old)[0] == "duplicate"
    assert relation(key("plan", "国庆", value="青岛"), old)[0] == "unrelated"


def test_known_entities_are_found_by_their_key() -> None:
    known = [("acme", "ACME"), ("华为云", "华为云"), ("dr ruiz", "Dr. Ruiz"), ("x", "X")]
    assert mentioned_entities("Had a call with acme", known) == ["ACME"]
    assert mentioned_entities("ＡＣＭＥ sent the contract", known) == ["ACME"]
    assert mentioned_entities("acmeology is a word", known) == []
    assert mentioned_entities("用户和华为云的人开会", known) == ["华为云"]
    assert mentioned_entities("dr ruiz moved it to 3pm", known) == ["Dr. Ruiz"]
    assert mentioned_entities("x marks the spot", known) == []  # one-letter keys never match
    assert entity_key("Dr. Ruiz") == entity_key("dr ruiz") == "dr ruiz"


def _key_of(text: str) -> dict[str, object]:
    extraction, _ = RulesLLM().extract(
        ExtractInput(text=text, observed_at=datetime(2026, 3, 10, 9, tzinfo=UTC))
    )
    assert len(extraction.facts) == 1, (text, extraction)
    return dict(extraction.facts[0].key)


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("我抽烟", "我戒烟了", "contradicts"),
        ("I smoke.", "I quit smoking last year.", "contradicts"),
        ("I have a dog.", "I don't have a dog anymore, she passed away.", "contradicts"),
        ("I'm vegetarian.", "I'm not vegetarian anymore.", "contradicts"),
        ("I'm vegetarian.", "I'm diabetic.", "unrelated"),  # two conditions, both kept
        ("我是素食者", "提醒一下，我吃素", "duplicate"),
        ("我的生日是5月3号", "说错了，我生日是5月8号", "contradicts"),
        ("My son is 7.", "Sorry, my son is actually 8.", "contradicts"),
        ("每周二上午有例会", "例会从周二改到周三了", "contradicts"),
        ("The launch is on June 1.", "The launch slipped to June 15.", "contradicts"),
        ("I don't like horror movies.", "I really don't like horror movies.", "duplicate"),
    ],
)
def test_updates_in_other_words(first: str, second: str, expected: str) -> None:
    assert relation(_key_of(second), _key_of(first))[0] == expected


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("I want to go home", "Go"),
        ("We will meet in the lobby", "Will"),
        ("I will call you tomorrow", "Will"),
        ("我在看小王子", "小王"),
    ],
)
def test_a_common_word_is_not_a_mention_of_a_known_entity(text: str, name: str) -> None:
    known = [(entity_key(n), n) for n in ("Go", "Will", "小王")]
    assert name not in mentioned_entities(text, known)


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("Go is the language of our backend", "Go"),
        ("Yesterday Will called about the lease", "Will"),
        ("Priya sent the report", "Priya"),
        ("小王说明天来", "小王"),
        ("跟小王子一起吃饭的是小王", "小王"),
        ("张伟明天来开会", "张伟"),
        ("我住在深圳市南山区", "深圳"),
        ("叫我王工就行", "王工"),
    ],
)
def test_a_known_name_written_as_a_name_is_a_mention(text: str, name: str) -> None:
    known = [(entity_key(n), n) for n in ("Go", "Will", "Priya", "小王", "张伟", "深圳", "王工")]
    assert name in mentioned_entities(text, known)


def test_a_chinese_company_is_mentioned_by_its_name_without_its_business_word() -> None:
    known = [(entity_key(n), n) for n in ("蓝海科技", "北京大学")]
    assert mentioned_entities("蓝海那边下周付款", known) == ["蓝海科技"]
    assert mentioned_entities("蓝海湾的房子", known) == []  # inside a longer word
    assert mentioned_entities("我去北京开会", known) == []  # a university is no place
