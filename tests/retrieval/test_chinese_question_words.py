"""Question words, particles and function words are not keyword terms, on either side.

Fast checks of the one stopword list (``memory_engine.stopwords``) through the tokenizer.
"""

from __future__ import annotations

import pytest

from memory_engine import text as textmod
from memory_engine.stopwords import EN_STOPWORDS, ZH_STOPWORDS, is_stopword

GREETING = "你好！有什么可以帮你的吗？"


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("我对什么过敏？", ["过敏"]),
        ("你什么时候去的北京？", ["去", "北京"]),
        ("我们上次在哪里吃饭的？", ["上次", "吃饭"]),
        ("怎么做红烧肉", ["做", "红烧", "烧肉", "红烧肉"]),
        ("When did Caroline go to the support group?", ["carolin", "go", "support", "group"]),
        ("Whose idea was it?", ["idea"]),
    ],
)
def test_question_words_are_not_terms(text: str, terms: list[str]) -> None:
    assert textmod.tokenize(text) == terms


def test_the_index_side_drops_the_same_words() -> None:
    # The greeting keeps only its content words, so a question word finds nothing in it.
    assert textmod.tokenize(GREETING) == ["你好", "帮"]
    assert not set(textmod.query_terms("我对什么过敏？")) & set(textmod.tokenize(GREETING))


def test_a_query_of_only_stopwords_keeps_its_terms() -> None:
    assert textmod.tokenize("什么？") == ["什么"]
    assert textmod.tokenize("what is it") == ["what", "is", "it"]


def test_one_list_covers_question_words_and_particles_of_both_languages() -> None:
    for word in ("什么", "怎么", "哪里", "时候", "吗", "呢", "的", "了", "是", "我", "你", "谁"):
        assert word in ZH_STOPWORDS and is_stopword(word)
    for word in ("what", "when", "where", "how", "the", "is", "who", "why"):
        assert word in EN_STOPWORDS and is_stopword(word)
    assert not is_stopword("过敏") and not is_stopword("peanut")
