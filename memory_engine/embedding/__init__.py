"""Embedders: the ``Embedder`` protocol, the offline MiniLM model, OpenAI-compatible endpoints.

``build_embedder(settings)`` is the one place that turns settings into an embedder. Heavy
imports (torch, sentence-transformers) happen only when MiniLM first embeds.
"""

from __future__ import annotations

from memory_engine.config import Settings
from memory_engine.embedding.base import Embedder, normalize_vectors
from memory_engine.embedding.minilm import MINILM_DIM, MINILM_MODEL_NAME, MiniLMEmbedder
from memory_engine.embedding.openai_compat import OpenAICompatEmbedder
from memory_engine.errors import ConfigError

__all__ = [
    "Embedder",
    "MiniLMEmbedder",
    "OpenAICompatEmbedder",
    "build_embedder",
    "normalize_vectors",
]

_MINILM_ALIASES = frozenset({MINILM_MODEL_NAME, f"sentence-transformers/{MINILM_MODEL_NAME}"})


def build_embedder(settings: Settings) -> Embedder:
    """Build the embedder that ``settings`` configure.

    * ``embedder="minilm"``: :class:`MiniLMEmbedder` with ``embedding_batch_size``.
      ``embedding_model`` / ``embedding_dim``, when set, must name this model (384 dims);
      anything else is refused rather than silently ignored.
    * ``embedder="openai_compat"``: :class:`OpenAICompatEmbedder` with
      ``embedding_base_url``, ``embedding_model``, ``embedding_dim``, ``embedding_api_key``
      and ``embedding_batch_size`` (``Settings`` already refuses a missing URL, model or dim).

    No request is sent and no model is loaded here.

    Raises:
        ConfigError: the settings contradict the chosen embedder.
    """
    if settings.embedder == "minilm":
        if settings.embedding_model and settings.embedding_model not in _MINILM_ALIASES:
            raise ConfigError(
                f"embedder=minilm is {MINILM_MODEL_NAME}, but MEMORY_EMBEDDING_MODEL is "
                f"{settings.embedding_model!r}; unset it or use embedder=openai_compat",
                embedding_model=settings.embedding_model,
            )
        if settings.embedding_dim is not None and settings.embedding_dim != MINILM_DIM:
            raise ConfigError(
                f"embedder=minilm has {MINILM_DIM} dims, but MEMORY_EMBEDDING_DIM is "
                f"{settings.embedding_dim}",
                embedding_dim=settings.embedding_dim,
            )
        return MiniLMEmbedder(batch_size=settings.embedding_batch_size)
    if settings.embedder == "openai_compat":
        if not (
            settings.embedding_base_url and settings.embedding_model and settings.embedding_dim
        ):
            raise ConfigError(  # Settings checks this too; kept for model_construct() callers
                "embedder=openai_compat needs MEMORY_EMBEDDING_BASE_URL, "
                "MEMORY_EMBEDDING_MODEL and MEMORY_EMBEDDING_DIM"
            )
        key = settings.embedding_api_key.get_secret_value() if settings.embedding_api_key else None
        return OpenAICompatEmbedder(
            base_url=settings.embedding_base_url,
            model=settings.embedding_model,
            dim=settings.embedding_dim,
            api_key=key,
            batch_size=settings.embedding_batch_size,
        )
    raise ConfigError(f"unknown embedder {settings.embedder!r}", embedder=settings.embedder)
