"""Embedder for any OpenAI-compatible ``POST /v1/embeddings`` endpoint.

Client construction and retries are shared with the chat LLM (``memory_engine.llm.transport``:
bounded attempts, exponential backoff with jitter, ``Retry-After`` honoured up to the backoff
cap, on 429, 408/409, 5xx and connection errors or timeouts). Any other failure, or retries
running out, raises ``EmbeddingError`` carrying the model and base URL.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import openai

from memory_engine.embedding.base import checked_texts, normalize_vectors
from memory_engine.errors import EmbeddingError
from memory_engine.llm.transport import OpenAIEndpoint

__all__ = ["OpenAICompatEmbedder"]


class OpenAICompatEmbedder:
    """Embeds through an OpenAI-compatible endpoint; output is checked and L2-normalised.

    Attributes:
        model_name: the endpoint's model name (sent as ``model``, recorded by the store).
        dim: the configured dimension; every returned vector must have exactly this length.
        max_input_chars: longest text, in characters, assumed to fit the endpoint's input
            window (default 4000: an 8191-token window such as OpenAI's holds ~4000
            characters of CJK text and far more English). Texts are sent as given, never
            cut here; an endpoint that rejects a text causes ``EmbeddingError``.
        base_url: the endpoint's base URL (e.g. ``http://localhost:8000/v1``).
        batch_size: texts per request.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        dim: int,
        api_key: str | None = None,
        batch_size: int = 32,
        max_input_chars: int = 4000,
        timeout: float = 60.0,
        max_attempts: int = 4,
        backoff_initial: float = 0.5,
        backoff_max: float = 8.0,
        client: openai.OpenAI | None = None,
    ) -> None:
        """Create the embedder (no request is made here).

        Args:
            base_url: endpoint base URL, the part before ``/embeddings``.
            model: model name to request.
            dim: expected vector length, >= 1.
            api_key: bearer key; ``None`` sends ``"not-needed"`` (local servers ignore it).
            batch_size: texts per request, >= 1.
            max_input_chars: see the class attributes.
            timeout: seconds per HTTP request.
            max_attempts: tries per batch including the first, >= 1.
            backoff_initial: first backoff in seconds; doubles per retry (plus up to 25 %
                jitter), capped at ``backoff_max``.
            backoff_max: cap of one backoff, in seconds; also caps ``Retry-After``.
            client: a ready ``openai.OpenAI`` client to use instead of building one; it
                should have ``max_retries=0`` or retries multiply.

        Raises:
            ValueError: a numeric argument is out of range.
        """
        if dim < 1 or batch_size < 1 or max_input_chars < 1:
            raise ValueError("dim, batch_size and max_input_chars must be >= 1")
        self._endpoint = OpenAIEndpoint(
            base_url=base_url,
            model=model,
            kind="embedding",
            error=EmbeddingError,
            api_key=api_key,
            timeout=timeout,
            max_attempts=max_attempts,
            backoff_initial=backoff_initial,
            backoff_max=backoff_max,
            client=client,
            settings_hint="MEMORY_EMBEDDING_API_KEY, MEMORY_EMBEDDING_BASE_URL and "
            "MEMORY_EMBEDDING_MODEL",
        )
        self.model_name = model
        self.dim = dim
        self.max_input_chars = max_input_chars
        self.base_url = base_url
        self.batch_size = batch_size

    def _request(self, batch: list[str]) -> list[Any]:
        """One embeddings request with retries; returns the vectors in input order."""
        response, _ = self._endpoint.call(
            lambda client: client.embeddings.create(
                model=self.model_name, input=batch, encoding_format="float"
            )
        )
        try:
            items = sorted(response.data, key=lambda d: d.index)
            return [item.embedding for item in items]
        except (AttributeError, TypeError) as exc:
            raise EmbeddingError(
                f"malformed embeddings response from {self.base_url} "
                f"(model {self.model_name!r}): {exc}",
                model=self.model_name,
                base_url=self.base_url,
            ) from exc

    # ------------------------------------------------------------------ public

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts`` in batches of ``batch_size`` requests.

        Returns:
            ``len(texts)`` unit-norm vectors of length ``dim``, in input order.

        Raises:
            EmbeddingError: the endpoint failed after retries, rejected the request, or
                returned a wrong number of vectors or vectors of another length
                ("returned N dims, configured M").
        """
        items = checked_texts(texts, self.model_name)  # all checked before any request
        out: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            raw = self._request(batch)
            try:
                out.extend(
                    normalize_vectors(
                        raw, dim=self.dim, model_name=self.model_name, expected=len(batch)
                    )
                )
            except EmbeddingError as exc:
                raise EmbeddingError(
                    f"{exc.message} (endpoint {self.base_url})",
                    base_url=self.base_url,
                    **exc.details,
                ) from exc
        return out

    def close(self) -> None:
        """Close the HTTP client's connections."""
        self._endpoint.close()

    def __repr__(self) -> str:
        return (
            f"OpenAICompatEmbedder(base_url={self.base_url!r}, model={self.model_name!r}, "
            f"dim={self.dim}, batch_size={self.batch_size})"
        )
