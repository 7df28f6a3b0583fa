"""Question words, particles and function words are not keyword terms, on either side.

The first test starts like a user: an empty data folder, only ``MEMORY_DATA_DIR`` set, the README's commands
(``memory-engine ingest --format openai`` of a Chinese chat, then ``memory-engine search``);
then fast checks of the one stopword list (``memory_engine.stopwords``) through the tokenizer.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memory_engine import text as textmod
from memory_engine.stopwords import EN_STOPWORDS, ZH_STOPWORDS, is_stopword, is_zh_stopword

REPO = Path(__file__).resolve().parents[2]
GREETING = "你好！有什么可以帮你的吗？"


def _user_env(tmp_path: Path) -> dict[str, str]:
    """A new user's environment: no ``MEMORY_*`` setting but the data folder."""
    return {
        **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
        "MEMORY_DATA_DIR": str(tmp_path / ".memory"),
        "PYTHONPATH": str(REPO),
    }


def _cli(env: dict[str, str], cwd: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "memory_engine.cli", *args],
        capture_output=True, text=True, env=env, cwd=cwd, timeout=300,
    )  # fmt: skip


def test_a_question_word_does_not_rank_the_assistant_greeting_first(tmp_path: Path) -> None:
    env = _user_env(tmp_path)
    turns = [
        {"role": "assistant", "content": GREETING, "timestamp": "2024-03-01T09:00:00Z"},
        {"role": "user", "content": "我对花生过敏", "timestamp": "2024-03-01T09:01:00Z"},
        {"role": "assistant", "content": "好的，我记住了，你对花生过敏。有什么别的需要吗？"},
        {"role": "user", "content": "我下周去上海出差", "timestamp": "2024-03-01T09:02:00Z"},
        {"role": "user", "content": "我的猫叫什么名字你还记得吗？它叫豆豆。"},
    ]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    ingest = _cli(env, tmp_path, "ingest", str(chat), "--tenant", "zh", "--format", "openai")
    assert ingest.returncode == 0, ingest.stderr

    run = _cli(env, tmp_path, "search", "我对什么过敏？", "--tenant", "zh", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    contents = [m["content"] for m in out["memories"]]
    assert contents, out["trace"]
    assert "花生" in contents[0], contents
    assert any("我对花生过敏" in c for c in contents), contents
    assert GREETING not in contents[0] and GREETING not in contents[1], contents
    assert out["trace"]["query_terms"] == ["过敏"]

    # Nothing in this chat is about Peru: the block is empty and the trace says why, with
    # every candidate still listed (dropped by the relevance floor).
    run = _cli(env, tmp_path, "search", "What is the capital of Peru?", "--tenant", "zh", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["memories"] == [], out["memories"]
    assert any("relevance floor" in w for w in out["trace"]["warnings"]), out["trace"]["warnings"]
    reasons = {c["dropped"] for c in out["trace"]["candidates"]}
    assert reasons == {"below_relevance_floor"}, reasons


@pytest.mark.parametrize(
    ("text", "terms"),
    [
        ("我对什么过敏？", ["过敏"]),
        ("你什么时候去的北京？", ["去", "北京"]),
        ("我们上次在哪里吃饭的？", ["上次", "吃饭"]),
        ("怎么做红烧肉", ["做", "红烧", "烧肉", "红烧肉"]),
        ("When did Caroline go to the support group?", ["carolin", "go", "support", "group"]),
        ("Whose idea was it?", ["idea"]),
        ("儿子几年级", ["儿子", "年级"]),
        ("几点开会？", ["开会"]),
        ("你去过哪几个城市", ["去过", "城市"]),
        ("从公司到机场要多久", ["公司", "到", "机场", "要"]),
        ("我几乎每天都跑步", ["几乎", "每天", "跑步"]),
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


def test_an_interrogative_compound_is_a_stopword_but_a_word_with_ji_is_not() -> None:
    for term in (
        "几年级",
        "几年",
        "几点",
        "几岁",
        "第几",
        "几次",
        "哪天",
        "哪家",
        "哪几个",
        "多久",
    ):
        assert is_zh_stopword(term) and is_stopword(term), term
    for term in ("几乎", "几何", "几率", "茶几", "年级", "哈尔滨"):
        assert not is_zh_stopword(term), term


def test_a_grade_question_finds_the_grade_from_an_empty_data_folder(tmp_path: Path) -> None:
    # "儿子几年级" queried 儿子, 几年, 年级, 几年级: a memory with 儿子 and 四年级 held half of
    # them and the relevance floor emptied the block
    env = _user_env(tmp_path)
    turns = [
        {"role": "user", "content": "我儿子在实验小学上四年级"},
        {"role": "user", "content": "我下周去上海出差"},
        {"role": "user", "content": "我的猫叫豆豆"},
    ]
    chat = tmp_path / "chat.json"
    chat.write_text(json.dumps(turns, ensure_ascii=False), encoding="utf-8")
    ingest = _cli(env, tmp_path, "ingest", str(chat), "--tenant", "zh", "--format", "openai")
    assert ingest.returncode == 0, ingest.stderr
    run = _cli(env, tmp_path, "search", "儿子几年级", "--tenant", "zh", "--json")
    assert run.returncode == 0, run.stderr
    out = json.loads(run.stdout)
    assert out["trace"]["query_terms"] == ["儿子", "年级"]
    contents = [m["content"] for m in out["memories"]]
    assert contents and "四年级" in contents[0], out["trace"]["warnings"]
