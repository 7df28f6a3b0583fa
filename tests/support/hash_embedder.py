"""A deterministic stand-in embedding model for store and write-path tests."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np

from memory_engine.errors import EmbeddingError


class HashEmbedder:
    """Unit vectors (``dim`` floats, L2 norm 1) from the character trigrams of a text, salted
    by ``name``: the same text gives the same vector, another model name another one.

    ``embed`` raises ``EmbeddingError`` once it has been called ``fail_after`` times, or while
    ``broken`` is set (a model that stops mid-run).
    """

    max_input_chars = 2000

    def __init__(self, name: str, dim: int, *, fail_after: int | None = None) -> None:
        self.model_name, self.dim = name, dim
        self.calls = 0
        self.fail_after = fail_after
        self.broken = False

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.broken or (self.fail_after is not None and self.calls > self.fail_after):
            raise EmbeddingError("stopped on purpose", model=self.model_name)
        out = []
        for text in texts:
            v = np.zeros(self.dim)
            for i in range(max(1, len(text) - 2)):
                h = hashlib.blake2b(f"{self.model_name}|{text[i : i + 3]}".encode()).digest()
                v[int.from_bytes(h[:4], "little") % self.dim] += 1.0 if h[4] & 1 else -1.0
            v = v if np.linalg.norm(v) else np.ones(self.dim)
            out.append((v / np.linalg.norm(v)).tolist())
        return out
