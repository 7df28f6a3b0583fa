"""The default configuration recalls in Chinese, English and mixed tenants with no setting:
two dense legs (MiniLM and the multilingual USE-m3) plus the keyword leg, weighted by the
query's script. Real models, a fresh Qdrant local folder, only the data folder set."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings

CHAT_ZH = [
    "你好！有什么可以帮你的吗？",
    "我对花生过敏，吃了会起疹子。",
    "周末我们去了西湖划船。",
    "我喜欢喝乌龙茶，不太喜欢咖啡。",
    "下周三我要去上海出差。",
]
NOTES_EN = [
    "Hello! How can I help you today?",
    "I am allergic to peanuts; they give me a rash.",
    "We went rowing on West Lake at the weekend.",
    "The database password rotates every ninety days.",
]


@pytest.fixture
def engine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> MemoryEngine:
    for key in [k for k in os.environ if k.startswith("MEMORY_")]:
        monkeypatch.delenv(key)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.setenv("MEMORY_STORE", "qdrant")
    monkeypatch.setenv("MEMORY_QDRANT_PATH", str(tmp_path / "qdrant"))
    eng = MemoryEngine(Settings())
    yield eng
    eng.close()


def test_default_engine_recalls_chinese_english_and_mixed(engine: MemoryEngine) -> None:
    zh, en, mixed = Scope.of("zh-chat"), Scope.of("en-notes"), Scope.of("mixed")
    for text in CHAT_ZH:
        engine.write(zh, text)
    for text in NOTES_EN:
        engine.write(en, text)
    for text in CHAT_ZH + NOTES_EN:
        engine.write(mixed, text)

    res = engine.search(zh, "我对什么过敏？")
    assert res.memories[0].memory.content == CHAT_ZH[1]  # not the greeting
    assert set(res.trace.legs) >= {"dense", "dense_ml", "keyword"}
    health = res.trace.leg_health
    assert health["dense_ml"]["model"] == "universal-sentence-encoder-multilingual-3"
    assert health["dense"]["model"] == "all-MiniLM-L6-v2"
    assert health["dense_ml"]["weight"] > health["dense"]["weight"]  # a Chinese query
    assert all("cosine_ml" in c.scores for c in res.trace.legs["dense_ml"])

    res = engine.search(en, "What am I allergic to?")
    assert res.memories[0].memory.content == NOTES_EN[1]
    assert res.trace.leg_health["dense"]["weight"] > res.trace.leg_health["dense_ml"]["weight"]

    # a mixed tenant: each language's question finds its own memory first, and the
    # Chinese memory answers an English question about it too (cross-lingual leg)
    assert engine.search(mixed, "我们周末去哪里划船了？").memories[0].memory.content == CHAT_ZH[2]
    top = [c.memory.content for c in engine.search(mixed, "Where did we go rowing?").memories[:3]]
    assert NOTES_EN[2] in top and CHAT_ZH[2] in top
    assert engine.store.legs.leg_records()["dense_ml"].state == "ready"  # type: ignore[attr-defined]
