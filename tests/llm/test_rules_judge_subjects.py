"""The rules judge on subjects said with discourse words, on an unrecognised statement next
to a recognised kind, and on denials of a more general subject (``llm/rules_judge``)."""

from __future__ import annotations

from memory_engine.entities import entity_key, mentioned_entities
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
