"""A dense leg weighted 0 for the query's script is not run: an all-Chinese query is not
embedded by the English MiniLM leg (``cjk_english_weight=0``), its trace shows the leg
``skipped``, and a search process does not load that model; English and mixed queries run
both dense legs. With ``rrf`` fusion (weights unused) every leg runs."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.config.retrieval import SearchOptions
from memory_engine.embedding.base import normalize_vectors
from memory_engine.retrieval.pipeline import muted_dense_legs


class CountingEmbedder:
    """A deterministic embedder that records the texts it embeds and its warm-ups."""

    def __init__(self, name: str, dim: int) -> None:
        self.model_name = name
        self.dim = dim
        self.max_input_chars = 2000
        self.texts: list[str] = []
        self.warmed = 0

    def warm_up(self) -> None:
        self.warmed += 1

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.texts.extend(texts)
        out = []
        for t in texts:
            v = [0.0] * self.dim
            for i, ch in enumerate(t):
                v[(ord(ch) + i) % self.dim] += 1.0
            v[0] += 0.5
            out.append(v)
        return normalize_vectors(
            np.asarray(out), dim=self.dim, model_name=self.model_name, expected=len(texts)
        )


@pytest.fixture
def parts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[MemoryEngine, Any, Any]:
    for key in [k for k in os.environ if k.startswith("MEMORY_")]:
        monkeypatch.delenv(key)
    settings = Settings(
        _env_file=None,
        data_dir=tmp_path / "data",
        store="qdrant",
        qdrant_path=str(tmp_path / "qdrant"),
    )  # type: ignore[call-arg]
    en, ml = CountingEmbedder("en-model", 16), CountingEmbedder("ml-model", 24)
    engine = MemoryEngine(settings, embedder=en, leg_embedders={"dense_ml": ml})
    yield engine, en, ml
    engine.close()


def test_chinese_query_skips_the_english_leg(parts: tuple[MemoryEngine, Any, Any]) -> None:
    engine, en, ml = parts
    scope = Scope.of("t1")
    engine.write(scope, "我对花生过敏，吃了会起疹子。")
    engine.write(scope, "I am allergic to peanuts.")
    en.texts.clear()
    ml.texts.clear()
    res = engine.search(scope, "我对什么过敏？")
    assert en.texts == [] and ml.texts == ["我对什么过敏？"]
    health = res.trace.leg_health
    assert health["dense"]["skipped"] is True and health["dense"]["count"] == 0
    assert health["dense"]["weight"] == 0.0
    assert health["dense_ml"]["count"] > 0 and not health["dense_ml"].get("skipped")
    assert not any("leg dense returned no candidates" in w for w in res.trace.warnings)
    assert any("花生" in m.memory.content for m in res.memories)

    en.texts.clear()
    ml.texts.clear()
    engine.search(scope, "peanut allergy")  # English: both dense legs count (1.0 and 0.5)
    assert en.texts == ["peanut allergy"] and ml.texts == ["peanut allergy"]
    en.texts.clear()
    ml.texts.clear()
    engine.search(scope, "peanut 过敏")  # mixed: both
    assert en.texts and ml.texts


def test_rrf_runs_every_leg(parts: tuple[MemoryEngine, Any, Any]) -> None:
    engine, en, ml = parts
    scope = Scope.of("t2")
    engine.write(scope, "我对花生过敏。")
    en.texts.clear()
    res = engine.search(scope, "我对什么过敏？", options=engine.search_options(fusion="rrf"))
    assert en.texts == ["我对什么过敏？"]
    assert not res.trace.leg_health["dense"].get("skipped")


def test_muted_legs_follow_the_weights() -> None:
    legs = {"dense_ml": object()}
    opts = SearchOptions()
    assert muted_dense_legs("我住在哪里", opts, legs) == frozenset({"dense"})  # type: ignore[arg-type]
    assert muted_dense_legs("where do I live", opts, legs) == frozenset()  # type: ignore[arg-type]
    assert muted_dense_legs("我住在哪里", opts, None) == frozenset()
    english_only = opts.model_copy(update={"multilingual_weight": 0.0})
    assert muted_dense_legs("hello", english_only, legs) == frozenset({"dense_ml"})  # type: ignore[arg-type]
    assert muted_dense_legs("我住在哪里", opts.model_copy(update={"fusion": "rrf"}), legs) == set()  # type: ignore[arg-type]


def test_search_warm_up_skips_the_muted_model(parts: tuple[MemoryEngine, Any, Any]) -> None:
    engine, en, ml = parts
    engine.warm_up(sample="用户喜欢吃什么？", searching=True).result(timeout=60)
    assert en.warmed == 0 and ml.warmed == 1
    engine.warm_up(sample="what does the user like?", searching=True).result(timeout=60)
    assert en.warmed == 1 and ml.warmed == 2
    engine.warm_up(sample="用户喜欢吃什么？").result(timeout=60)  # not a search: every model
    assert en.warmed == 2
