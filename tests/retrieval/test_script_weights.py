"""Dense leg weights by the query's script (``retrieval/script.py``) and their use in a search:
an English query leans on the English leg, a Chinese one on the multilingual leg, a mixed one
on both; every leg's weight and model are in the trace's leg health."""

from __future__ import annotations

import pytest

from memory_engine.config.retrieval import SearchOptions
from memory_engine.retrieval.script import cjk_share, dense_leg_weights


@pytest.mark.parametrize(
    ("text", "share"),
    [
        ("What am I allergic to?", 0.0),
        ("我对什么过敏？", 1.0),
        ("花生 peanut", 2 / 8),
        ("2024-05-01 !!", 0.0),  # no letters
        ("カタカナとひらがな", 1.0),
        ("한국어 문장", 1.0),
        ("", 0.0),
    ],
)
def test_cjk_share_counts_letters_only(text: str, share: float) -> None:
    assert cjk_share(text) == pytest.approx(share)


def test_weights_move_from_the_english_leg_to_the_multilingual_one() -> None:
    opts = SearchOptions(dense_weight=1.0, multilingual_weight=0.5, cjk_english_weight=0.0)
    assert dense_leg_weights("where do I live", opts) == {"dense": 1.0, "dense_ml": 0.5}
    assert dense_leg_weights("我住在哪里", opts) == {"dense": 0.0, "dense_ml": 1.0}
    mixed = dense_leg_weights("我住在 Rio", opts)  # 3 CJK of 6 letters
    assert mixed["dense"] == pytest.approx(0.5) and mixed["dense_ml"] == pytest.approx(0.75)
    scaled = SearchOptions(dense_weight=2.0, multilingual_weight=0.0, cjk_english_weight=0.5)
    assert dense_leg_weights("hello", scaled) == {"dense": 2.0, "dense_ml": 0.0}
    assert dense_leg_weights("你好", scaled) == {"dense": 0.5, "dense_ml": 2.0}
