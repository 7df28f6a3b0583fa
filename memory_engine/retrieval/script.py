"""Weights of the dense legs by the query's script.

The English dense leg (MiniLM by default) is strong on English and nearly blind on Chinese;
the multilingual leg (USE-multilingual v3) is the reverse. A query's CJK share ``s`` (Han,
kana and Hangul characters over all its letters, in [0, 1]) moves the weight from one to the
other linearly:

* ``dense``    = ``dense_weight * (1 - s) + cjk_english_weight * s``
* ``dense_ml`` = ``multilingual_weight * (1 - s) + dense_weight * s``

so an English query leans on the English leg, a Chinese query on the multilingual one, and a
mixed query on both. Expansion legs (``dense@x1``) weigh like their base leg.
"""

from __future__ import annotations

import functools

from memory_engine.config.retrieval import SearchOptions

__all__ = ["MULTILINGUAL_LEG", "cjk_share", "dense_leg_weights"]

#: Name of the multilingual dense leg (``stores.base.EXTRA_LEGS``).
MULTILINGUAL_LEG = "dense_ml"

_CJK_RANGES = (
    (0x3040, 0x30FF),  # hiragana, katakana
    (0x3400, 0x4DBF),  # CJK extension A
    (0x4E00, 0x9FFF),  # CJK unified ideographs
    (0xAC00, 0xD7AF),  # Hangul syllables
    (0xF900, 0xFAFF),  # CJK compatibility ideographs
    (0x20000, 0x2FFFF),  # CJK extensions B-F
)


def _is_cjk(ch: str) -> bool:
    cp = ord(ch)
    return any(lo <= cp <= hi for lo, hi in _CJK_RANGES)


@functools.lru_cache(maxsize=256)
def cjk_share(text: str) -> float:
    """Share of CJK characters among the letters of ``text`` (digits, spaces and punctuation
    are not counted), in [0, 1]; 0.0 for a text without letters. Cached: one search reads
    its query's share several times (leg weights, muted legs, the relevance floor)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 0.0
    return sum(1 for ch in letters if _is_cjk(ch)) / len(letters)


def dense_leg_weights(query: str, options: SearchOptions) -> dict[str, float]:
    """Fusion weight of each dense leg for ``query`` (see the module docstring), >= 0."""
    s = cjk_share(query)
    return {
        "dense": options.dense_weight * (1.0 - s) + options.cjk_english_weight * s,
        MULTILINGUAL_LEG: options.multilingual_weight * (1.0 - s) + options.dense_weight * s,
    }
