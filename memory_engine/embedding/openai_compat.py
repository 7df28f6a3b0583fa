"""Embedder for any OpenAI-compatible ``POST /v1/embeddings`` endpoint.

Uses the official ``openai`` client with its own retries switched off; retries are done here
with ``tenacity`` (bounded attempts, exponential backoff with jitter, ``Retry-After`` honoured
up to the backoff cap) on rate limits (429), 408/409, server errors (5xx) and connection
errors or timeouts. Any other failure, or retries running out, raises ``EmbeddingError``
carrying the model and base URL.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import openai
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
)

from memory_engine.embedding.base import normalize_vectors
from memory_engine.errors import EmbeddingError

__all__ = ["OpenAICompatEmbedder"]

_RETRY_STATUS = frozenset({408, 409, 429})


def _is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: connection/timeout, 408/409/429 and 5xx."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def _retry_after_seconds(exc: BaseException | None) -> float | None:
    """The ``Retry-After`` header of a status error, in seconds, if it is a number."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    value = exc.response.headers.get("retry-after")
    if value is None:
        return None
    try:
        seconds = float(value)
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


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
        if dim < 1 or batch_size < 1 or max_attempts < 1 or max_input_chars < 1:
            raise ValueError("dim, batch_size, max_attempts and max_input_chars must be >= 1")
        if backoff_initial < 0 or backoff_max < 0 or timeout <= 0:
            raise ValueError("backoff_initial and backoff_max must be >= 0, timeout > 0")
        self.model_name = model
        self.dim = dim
        self.max_input_chars = max_input_chars
        self.base_url = base_url
        self.batch_size = batch_size
        self._max_attempts = max_attempts
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self._client = client or openai.OpenAI(
            base_url=base_url,
            api_key=api_key or "not-needed",
            max_retries=0,
            timeout=timeout,
        )

    # ------------------------------------------------------------------ retry policy

    def _wait(self, state: RetryCallState) -> float:
        """Seconds to sleep before the next attempt (``Retry-After`` wins when given)."""
        exc = state.outcome.exception() if state.outcome is not None else None
        hinted = _retry_after_seconds(exc)
        if hinted is not None:
            return min(hinted, self._backoff_max)
        base: float = self._backoff_initial * 2.0 ** (state.attempt_number - 1)
        return min(base * (1.0 + 0.25 * random.random()), self._backoff_max)

    def _request(self, batch: list[str]) -> list[Any]:
        """One embeddings request with retries; returns the vectors in input order."""
        retrying = Retrying(
            stop=stop_after_attempt(self._max_attempts),
            wait=self._wait,
            retry=retry_if_exception(_is_transient),
            reraise=True,
        )
        attempts = 0
        response: Any = None
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    response = self._client.embeddings.create(
                        model=self.model_name, input=batch, encoding_format="float"
                    )
        except openai.OpenAIError as exc:
            status = getattr(exc, "status_code", None)
            raise EmbeddingError(
                f"embedding request to {self.base_url} (model {self.model_name!r}) failed "
                f"after {attempts} attempt(s): {type(exc).__name__}: {exc}",
                model=self.model_name,
                base_url=self.base_url,
                status=status,
                attempts=attempts,
            ) from exc
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
        items = list(texts)
        out: list[list[float]] = []
        for start in range(0, len(items), self.batch_size):
            batch = items[start : start + self.batch_size]
            for i, t in enumerate(batch):
                if not isinstance(t, str):
                    raise EmbeddingError(
                        f"text {start + i} is {type(t).__name__}, not str",
                        model=self.model_name,
                        index=start + i,
                    )
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
        self._client.close()

    def __repr__(self) -> str:
        return (
            f"OpenAICompatEmbedder(base_url={self.base_url!r}, model={self.model_name!r}, "
            f"dim={self.dim}, batch_size={self.batch_size})"
        )
