"""The entity key (memory_engine/entities.py): spellings of one name give one key; different
names stay apart; the key is idempotent; entity ids are per tenant; entity terms."""

from __future__ import annotations

import pytest

from memory_engine.entities import (
    MAX_ENTITIES_PER_MEMORY,
    MAX_ENTITY_NAME_CHARS,
    entity_id,
    entity_key,
    entity_refs,
    entity_terms,
    memory_terms,
    mentioned_entities,
)
from memory_engine.errors import InvalidInputError
from memory_engine.models import MemoryFilter
from memory_engine.text import tokenize

SAME = [
    # case, width, whitespace, company suffixes, possessives, quotes, mentions
    ("acme", ["ACME", "acme", "Acme", "ＡＣＭＥ", "ＡＣＭＥ　Ｉｎｃ．", "ACME Inc.", "ACME, Inc.",
              "acme inc", "ACME Corp", "ACME Corporation", "The ACME Co.", "ACME Ltd.",
              "ACME LLC", "ACME's", "ACME’s", "“ACME”", "  acme  ", "@acme", "ACME公司",
              "ACME 有限公司", "ACME的"]),
    ("priya", ["Priya", "PRIYA", "priya's", "Priya’s", "@Priya"]),
    ("阿里巴巴", ["阿里巴巴", "阿里巴巴集团", "阿里巴巴有限公司", "阿里巴巴股份有限公司", "「阿里巴巴」"]),
    ("王工", ["王工", "王 工", "王　工"]),
    ("用户的儿子", ["用户的儿子", " 用户的儿子 "]),
    ("new york", ["New York", "new   york", "NEW\tYORK"]),
    ("strasse", ["Straße", "STRASSE"]),
    ("トヨタ", ["トヨタ", "株式会社トヨタ", "トヨタ株式会社"]),
    ("gpt-4o", ["GPT-4o", "ＧＰＴ－４ｏ"]),
]  # fmt: skip


@pytest.mark.parametrize(("key", "names"), SAME)
def test_spellings_of_one_name_share_a_key(key: str, names: list[str]) -> None:
    assert {n: entity_key(n) for n in names} == {n: key for n in names}


@pytest.mark.parametrize(
    "different",
    [
        ("ACME", "ACMEX"),
        ("Taco", "Ta"),  # "co" is a suffix only after a space or comma
        ("目的", "目"),  # a two-character word ending in 的 keeps it
        ("用户的儿子", "用户"),  # an inner 的 is part of the name
        ("公司", ""),  # a bare suffix stays itself
        ("Jean-Luc", "jean luc"),
        ("北京", "南京"),
    ],
)
def test_different_names_keep_different_keys(different: tuple[str, str]) -> None:
    a, b = different
    assert entity_key(a) != entity_key(b)


@pytest.mark.parametrize("name", [n for _, names in SAME for n in names] + ["Inc.", "The", "公司"])
def test_the_key_is_idempotent(name: str) -> None:
    assert entity_key(entity_key(name)) == entity_key(name)


def test_names_without_a_key_name_nothing() -> None:
    assert entity_key("  ...  ") == "" and entity_key("“”") == ""
    assert entity_refs(["", "  ", "!!", "x" * (MAX_ENTITY_NAME_CHARS + 1)]) == []


def test_refs_dedupe_by_key_keep_the_first_name_and_are_bounded() -> None:
    refs = entity_refs(["ACME Inc.", "acme", "Priya", "ＡＣＭＥ", " Priya's "])
    assert [(r.key, r.name) for r in refs] == [("acme", "ACME Inc."), ("priya", "Priya")]
    many = entity_refs([f"name{i}" for i in range(MAX_ENTITIES_PER_MEMORY + 5)])
    assert len(many) == MAX_ENTITIES_PER_MEMORY


def test_entity_ids_are_stable_and_per_tenant() -> None:
    assert entity_id("t1", "acme") == entity_id("t1", "acme")
    assert entity_id("t1", "acme") != entity_id("t2", "acme")
    assert entity_id("t1", "acme") != entity_id("t1", "acme2")


def test_entity_terms_add_name_and_key_terms_once() -> None:
    terms = entity_terms(["ACME Inc.", "用户的儿子", "ＡＣＭＥ"])
    assert len(terms) == len(set(terms))
    assert set(tokenize("ACME")) <= set(terms) and set(tokenize("儿子")) <= set(terms)
    content = "Met with them today"
    assert memory_terms(content, ["ACME"]) == [*tokenize(content), *tokenize("ACME")]
    assert memory_terms(content) == tokenize(content)


def test_memory_filter_holds_the_key() -> None:
    assert MemoryFilter(entity="ＡＣＭＥ Inc.").entity == "acme"
    assert MemoryFilter().entity is None
    with pytest.raises(InvalidInputError):
        MemoryFilter(entity=" ... ")


def test_kinds_come_from_the_name_or_its_key() -> None:
    refs = entity_refs(
        ["ACME Inc.", "Priya", "北京"],
        {"acme": "Organization", "Priya": "person", "北京": "x" * 40},
    )
    assert [(r.key, r.kind) for r in refs] == [
        ("acme", "organization"),
        ("priya", "person"),
        ("北京", None),  # too long to be a kind
    ]


@pytest.mark.parametrize(
    ("content", "known", "linked"),
    [
        ("Open AI wants the security review done", "OpenAI", True),
        ("Coca Cola approved the design", "Coca-Cola", True),
        ("JP Morgan raised the credit line", "J.P. Morgan", True),
        ("Priya approved the vacation", "Priya Shah", True),
        ("I opened a ticket", "OpenAI", False),  # letters inside another word
        ("Ruiz moved the appointment", "Dr. Ruiz", True),
        ("Dr moved the appointment", "Dr. Ruiz", False),  # a title alone names nobody
        ("AI helps with the review", "AI Labs", False),  # an acronym is no first name
    ],
)
def test_a_known_name_written_another_way_is_linked(content: str, known: str, linked: bool) -> None:
    """Spaces, dots and hyphens inside a Latin name, and a known person's first name alone,
    link the memory to the entity the tenant already has."""
    assert (mentioned_entities(content, [(entity_key(known), known)]) == [known]) is linked
