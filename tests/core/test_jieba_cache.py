"""memory_engine.jieba_cache: the faster copy of jieba's dictionary gives jieba's segmentation."""

from __future__ import annotations

import tempfile
from pathlib import Path

import jieba
import pytest

from memory_engine.jieba_cache import load_tokenizer

SENTENCES = [
    "我们最近配置的 rerank 精排模型是 bge-reranker",
    "我对花生过敏，上周去了里斯本",
    "项目经理推荐了第三季度路线图。",
    "小明硕士毕业于中国科学院计算所，后在日本京都大学深造",
]


@pytest.fixture
def temp_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    return tmp_path


def test_copy_is_written_then_read_and_segments_like_jieba(temp_folder: Path) -> None:
    reference = jieba.Tokenizer()
    reference.initialize()
    first = load_tokenizer()  # jieba's loader, then the copy is written
    (copy,) = temp_folder.glob("memory-engine-jieba-*.bin")
    second = load_tokenizer()  # from the copy
    assert second.FREQ == reference.FREQ and second.total == reference.total
    for text in SENTENCES:
        want = list(reference.cut_for_search(text, HMM=True))
        assert list(first.cut_for_search(text, HMM=True)) == want
        assert list(second.cut_for_search(text, HMM=True)) == want
    assert copy.stat().st_size > 1_000_000


def test_corrupt_or_truncated_copy_falls_back_to_jieba(temp_folder: Path) -> None:
    load_tokenizer()
    (copy,) = temp_folder.glob("memory-engine-jieba-*.bin")
    good = copy.read_bytes()
    mid = len(good) // 3  # inside the keys block
    flipped = good[:mid] + bytes([good[mid] ^ 1]) + good[mid + 1 :]
    for damaged in (good[: len(good) // 2], b"not a copy", flipped):
        copy.write_bytes(damaged)
        tok = load_tokenizer()
        assert list(tok.cut_for_search(SENTENCES[0])) == list(
            jieba.Tokenizer().cut_for_search(SENTENCES[0])
        )
    assert copy.read_bytes() == good  # rewritten by the fallback
