"""Tests of memory_engine.text: CJK-aware tokenizer (docs/architecture.md#f5-cjk-text), chunker (docs/architecture.md#f8-oversized-input), tokens."""

from __future__ import annotations

import random
import re
import subprocess
import sys

import pytest

from memory_engine import text as T

# --------------------------------------------------------------------------- docs/architecture.md#f5-cjk-text


def test_chinese_peanut_allergy_has_peanut_term() -> None:
    terms = T.tokenize("我对花生过敏")
    assert "花生" in terms
    assert "过敏" in terms
    assert set(T.query_terms("花生")) <= set(terms)


@pytest.mark.parametrize("query", ["精排", "rerank", "bge-reranker"])
def test_mixed_chinese_english_queries_hit(query: str) -> None:
    doc = set(T.tokenize("我们最近配置的 rerank 精排模型是 bge-reranker"))
    q = T.query_terms(query)
    assert q, query
    assert set(q) & doc, (query, q, doc)


def test_compound_keeps_whole_and_hyphen_parts() -> None:
    terms = T.tokenize("bge-reranker")
    assert terms[0] == "bge-reranker"
    assert "bge" in terms and "rerank" in terms  # part stemmed like any word
    assert T.tokenize("gpt-4o")[:3] == ["gpt-4o", "gpt", "4o"]
    assert T.tokenize("upgrade to v1.2 now") == ["upgrad", "v1.2"]
    assert {"user_id", "user", "id"} <= set(T.tokenize("user_id"))


def test_japanese_kanji_query_hits_mixed_run() -> None:
    doc = set(T.tokenize("プロジェクト記憶の設定"))
    q = T.query_terms("記憶")
    assert q and set(q) <= doc
    assert set(T.query_terms("プロジェクト")) <= doc
    assert set(T.query_terms("設定")) <= doc


def test_korean_bigrams_hit() -> None:
    doc = set(T.tokenize("프로젝트 메모리"))
    q = T.query_terms("메모리")
    assert q == ["메모", "모리"]
    assert set(q) <= doc
    # a particle attached to the noun still matches
    assert set(q) <= set(T.tokenize("메모리를 설정"))


@pytest.mark.parametrize("query", ["的", "我", "了", "花", "の", "가", "記", "我的"])
def test_cjk_query_never_has_zero_terms(query: str) -> None:
    assert T.query_terms(query), query


def test_index_and_query_sides_identical() -> None:
    text = "我们最近配置的 rerank 精排模型是 bge-reranker"
    assert T.tokenize(text) == T.tokenize(text)
    assert T.query_terms(text) == list(dict.fromkeys(T.tokenize(text)))


# --------------------------------------------------------------------------- English


def test_english_stemming() -> None:
    run = set(T.tokenize("run"))
    assert run & set(T.tokenize("running"))
    assert run & set(T.tokenize("runs"))
    assert set(T.tokenize("allergies")) == set(T.tokenize("allergy"))


def test_english_stopwords_removed() -> None:
    terms = T.tokenize("The user is allergic to the peanuts and it was bad")
    assert "the" not in terms and "is" not in terms and "to" not in terms and "and" not in terms
    assert terms == ["user", "allerg", "peanut", "bad"]
    # only stopwords: kept rather than no term at all
    assert T.tokenize("the") == ["the"]


def test_nfkc_lowercase_repetition_and_order() -> None:
    assert T.tokenize("Ｈｅｌｌｏ　ＷＯＲＬＤ hello") == ["hello", "world", "hello"]
    assert T.query_terms("Hello world hello") == ["hello", "world"]


@pytest.mark.parametrize("text", ["", "   ", "!!! ... ---", "😀🎉", "。！？", "\x00"])
def test_punctuation_and_emoji_give_no_terms(text: str) -> None:
    assert T.tokenize(text) == []


def test_emoji_next_to_words_dropped() -> None:
    assert T.tokenize("coffee☕️ 咖啡😀") == ["coffe", "咖啡"]


def test_no_stdout_from_jieba_init() -> None:
    code = "from memory_engine import text; text.tokenize('我对花生过敏')"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    assert "prefix dict" not in proc.stderr


# --------------------------------------------------------------------------- scripts, hashing


def test_is_cjk_and_detect_script() -> None:
    assert T.is_cjk("我") and T.is_cjk("メモ") and T.is_cjk("메모") and not T.is_cjk("memo")
    assert T.detect_script("我对花生过敏") == "zh"
    assert T.detect_script("プロジェクト記憶の設定") == "ja"
    assert T.detect_script("프로젝트 메모리") == "ko"
    assert T.detect_script("My flight is on 12 May") == "latin"
    assert T.detect_script("I love 花生") == "mixed"
    assert T.detect_script("我们最近配置的 rerank 精排模型是 bge-reranker") == "zh"


def test_content_hash_normalisation() -> None:
    a = T.content_hash("  I like  Tea\n")
    assert a == T.content_hash("i like tea")
    assert a == T.content_hash("Ｉ ＬＩＫＥ ＴＥＡ")
    assert a != T.content_hash("I like coffee")
    assert re.fullmatch(r"[0-9a-f]{64}", a)
    assert T.normalize_for_hash(" A\t\tB ") == "a b"


# --------------------------------------------------------------------------- tokens


def test_count_tokens_english_and_chinese() -> None:
    assert T.count_tokens("") == 0
    assert T.count_tokens("hello world") == 2
    zh = T.count_tokens("我对花生过敏")
    assert 6 <= zh <= 12  # cl100k: CJK runs 1-2 tokens per character
    assert T.count_tokens("<|endoftext|>") > 1  # special tokens counted as plain text


@pytest.mark.parametrize(
    "text",
    ["hello world, this is a longer sentence.", "我对花生过敏，也对虾过敏。", "emoji 😀🎉 mix"],
)
@pytest.mark.parametrize("budget", [0, 1, 2, 3, 5, 1000])
def test_truncate_to_tokens(text: str, budget: int) -> None:
    out = T.truncate_to_tokens(text, budget)
    assert text.startswith(out)
    assert T.count_tokens(out) <= budget
    if T.count_tokens(text) <= budget:
        assert out == text


# --------------------------------------------------------------------------- chunker


def _nows(s: str) -> str:
    return re.sub(r"\s+", "", s)


def _check_chunks(text: str, chunks: list[str], max_chars: int) -> None:
    assert _nows("".join(chunks)) == _nows(text)
    assert all(0 < len(c) <= max_chars for c in chunks), [len(c) for c in chunks]
    assert all(c == c.strip() for c in chunks)


def _chat(n_chars: int, seed: int) -> str:
    rng = random.Random(seed)
    words = "the project uses postgres and qdrant for memory retrieval with reranking".split()
    lines = []
    size = 0
    i = 0
    while size < n_chars:
        speaker = "User" if i % 2 == 0 else "Assistant"
        n = rng.randint(3, 60)
        sentence = " ".join(rng.choice(words) for _ in range(n)).capitalize()
        line = f"{speaker}: {sentence}{rng.choice(['.', '!', '?', ''])}"
        lines.append(line)
        size += len(line) + 1
        i += 1
    return "\n".join(lines)


def test_chunk_60k_chat_keeps_last_flight_line() -> None:
    text = _chat(60_000, seed=1) + "\nUser: My flight is on 12 May"
    assert len(text) >= 60_000
    chunks = T.chunk_text(text)
    _check_chunks(text, chunks, 500)
    assert "My flight is on 12 May" in chunks[-1]
    # packing: a chunk stays under min_chars only when the next line would not fit beside it
    assert sum(map(len, chunks)) / len(chunks) >= 300
    for cur, nxt in zip(chunks, chunks[1:-1], strict=False):
        if len(cur) < 300:
            assert len(cur) + 1 + len(nxt.split("\n")[0]) > 500


def test_short_text_is_one_chunk() -> None:
    assert T.chunk_text("  My flight is on 12 May.  ") == ["My flight is on 12 May."]
    assert T.chunk_text("x" * 500) == ["x" * 500]
    assert T.chunk_text("") == [] and T.chunk_text(" \n\t ") == []


def test_chunk_splits_at_sentence_ends() -> None:
    sents = [f"Sentence number {i} talks about topic {i} in some detail." for i in range(40)]
    text = " ".join(sents)
    chunks = T.chunk_text(text)
    _check_chunks(text, chunks, 500)
    for c in chunks:
        assert c.endswith("."), c  # never cut inside a sentence
    assert "v1.2" in T.chunk_text("Version v1.2 is live. " * 40)[0]


def test_chunk_chinese_punctuation() -> None:
    sent = "我们最近配置的精排模型是一个很好的选择。"  # 20 chars
    text = sent * 60
    chunks = T.chunk_text(text)
    _check_chunks(text, chunks, 500)
    assert all(c.endswith("。") for c in chunks)
    assert all(300 <= len(c) <= 500 for c in chunks[:-1])


def test_long_sentence_split_at_clause_then_whitespace_then_hard() -> None:
    clauses = "，".join(["这是一个很长的从句没有句号"] * 100)  # one 1399-char sentence
    chunks = T.chunk_text(clauses)
    _check_chunks(clauses, chunks, 500)
    assert all(c.endswith("，") for c in chunks[:-1])

    words = " ".join(["word"] * 400)  # no punctuation at all
    chunks = T.chunk_text(words)
    _check_chunks(words, chunks, 500)
    assert all(re.fullmatch(r"word( word)*", c) for c in chunks)

    blob = "a" * 1234
    chunks = T.chunk_text(blob)
    assert [len(c) for c in chunks] == [500, 500, 234]


def test_short_tail_is_rebalanced() -> None:
    text = " ".join(f"Sentence {i:02d} is about forty characters." for i in range(12)) + " Tail."
    chunks = T.chunk_text(text, min_chars=200, max_chars=300)
    _check_chunks(text, chunks, 300)
    assert len(chunks[-1]) >= 40


@pytest.mark.parametrize("seed", range(25))
@pytest.mark.parametrize("limits", [(300, 500), (50, 100), (200, 220)])
def test_chunk_properties_random(seed: int, limits: tuple[int, int]) -> None:
    rng = random.Random(seed)
    alphabet = (
        list("abc xyz 我对花生过敏 プロジェクト 메모리 ")
        + list(".!?。！？；…，、,;:\n\t ")
        + ["😀"]
    )
    n = rng.choice([1, 10, 499, 501, 2000, 7000])
    text = "".join(rng.choice(alphabet) for _ in range(n))
    lo, hi = limits
    chunks = T.chunk_text(text, min_chars=lo, max_chars=hi)
    _check_chunks(text, chunks, hi)
    if text.strip() and len(text.strip()) <= hi:
        assert chunks == [text.strip()]


def test_chunk_rejects_bad_limits() -> None:
    with pytest.raises(ValueError):
        T.chunk_text("abc", min_chars=500, max_chars=300)
