"""Shared transport for OpenAI-compatible endpoints (chat completions and embeddings).

One place builds the official ``openai`` client (base URL, API key, timeout, its own retries
switched off), retries transient failures with ``tenacity`` and maps what is left to the
engine's typed errors. Used by ``llm.openai_compat`` and ``embedding.openai_compat``.

Retry policy: bounded attempts (first included), exponential backoff from
``backoff_initial`` seconds doubled per retry plus up to 25 % jitter, capped at
``backoff_max``; a numeric ``Retry-After`` header wins, capped the same way. Retried: HTTP 429,
408, 409, 5xx, connection errors and timeouts. Everything else fails at once; HTTP 401/403
(key or model refused) becomes the ``auth_error`` class given, whose message names the settings
to check.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import TypeVar

import openai
from tenacity import RetryCallState, Retrying, retry_if_exception, stop_after_attempt

from memory_engine.errors import MemoryEngineError

__all__ = ["OpenAIEndpoint", "is_transient", "retry_after_seconds"]

_RETRY_STATUS = frozenset({408, 409, 429})
T = TypeVar("T")


def is_transient(exc: BaseException) -> bool:
    """True for errors worth retrying: connection/timeout, 408/409/429 and 5xx."""
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in _RETRY_STATUS or exc.status_code >= 500
    return False


def retry_after_seconds(exc: BaseException | None) -> float | None:
    """The ``Retry-After`` header of a status error in seconds (>= 0), or None."""
    if not isinstance(exc, openai.APIStatusError):
        return None
    try:
        seconds = float(exc.response.headers.get("retry-after", ""))
    except ValueError:
        return None
    return seconds if seconds >= 0 else None


class OpenAIEndpoint:
    """An OpenAI-compatible endpoint: one client, one retry policy, one error mapping.

    Args:
        base_url: endpoint base URL (e.g. ``http://localhost:8000/v1``).
        model: model name, used in error messages and details.
        kind: what is requested, for messages (``"chat"``, ``"embedding"``).
        error: the ``MemoryEngineError`` subclass raised when a request fails for good; its
            details carry ``model``, ``base_url``, ``status`` (HTTP status or None) and
            ``attempts``.
        api_key: bearer key; None sends ``"not-needed"`` (local servers ignore it).
        timeout: seconds per HTTP request, > 0.
        max_attempts: tries per request on transient errors, first included, >= 1.
        backoff_initial: first backoff in seconds, >= 0.
        backoff_max: cap of one backoff and of ``Retry-After``, in seconds, >= 0.
        client: a ready ``openai.OpenAI`` client to use instead of building one; it should
            have ``max_retries=0`` or retries multiply.
        auth_error: the class raised for HTTP 401/403 (never retried); default ``error``.
        settings_hint: the settings a 401/403 message tells the user to check, e.g.
            ``"MEMORY_LLM_API_KEY, MEMORY_LLM_BASE_URL"``.

    Raises:
        ValueError: a numeric argument is out of range.
    """

    def __init__(
        self,
        *,
        base_url: str,
        model: str,
        kind: str,
        error: type[MemoryEngineError],
        api_key: str | None = None,
        timeout: float = 60.0,
        max_attempts: int = 4,
        backoff_initial: float = 0.5,
        backoff_max: float = 8.0,
        client: openai.OpenAI | None = None,
        auth_error: type[MemoryEngineError] | None = None,
        settings_hint: str = "",
    ) -> None:
        if max_attempts < 1:
            raise ValueError("max_attempts must be >= 1")
        if backoff_initial < 0 or backoff_max < 0 or timeout <= 0:
            raise ValueError("backoff_initial and backoff_max must be >= 0, timeout > 0")
        self.base_url = base_url
        self.model = model
        self.kind = kind
        self._error = error
        self._auth_error = auth_error or error
        self._settings_hint = settings_hint
        self._max_attempts = max_attempts
        self._backoff_initial = backoff_initial
        self._backoff_max = backoff_max
        self.client = client or openai.OpenAI(
            base_url=base_url, api_key=api_key or "not-needed", max_retries=0, timeout=timeout
        )

    def wait(self, state: RetryCallState) -> float:
        """Seconds to sleep before the next attempt (``Retry-After`` wins when given)."""
        exc = state.outcome.exception() if state.outcome is not None else None
        hinted = retry_after_seconds(exc)
        if hinted is not None:
            return min(hinted, self._backoff_max)
        base: float = self._backoff_initial * 2.0 ** (state.attempt_number - 1)
        return min(base * (1.0 + 0.25 * random.random()), self._backoff_max)

    def call(
        self, request: Callable[[openai.OpenAI], T], *, prior_attempts: int = 0
    ) -> tuple[T, int]:
        """Run ``request(client)`` with retries on transient errors.

        Args:
            request: one HTTP request made through the given client.
            prior_attempts: attempts already spent by the caller on this logical request
                (added to the count reported on failure).

        Returns:
            ``(response, attempts)``: the response and the tries this call made (>= 1).

        Raises:
            MemoryEngineError: the ``error`` class given at construction, ``from`` the
                ``openai`` error, when the request fails for good (non-transient error or
                attempts used up); ``details['status']`` is the HTTP status or None.
        """
        retrying = Retrying(
            stop=stop_after_attempt(self._max_attempts),
            wait=self.wait,
            retry=retry_if_exception(is_transient),
            reraise=True,
        )
        attempts = 0
        try:
            for attempt in retrying:
                with attempt:
                    attempts += 1
                    response = request(self.client)
        except (openai.AuthenticationError, openai.PermissionDeniedError) as exc:
            raise self._refused(exc, prior_attempts + attempts) from exc
        except openai.OpenAIError as exc:
            total = prior_attempts + attempts
            raise self._error(
                f"{self.kind} request to {self.base_url} (model {self.model!r}) failed after "
                f"{total} attempt(s): {type(exc).__name__}: {exc}",
                model=self.model,
                base_url=self.base_url,
                status=getattr(exc, "status_code", None),
                attempts=total,
            ) from exc
        return response, attempts

    def _refused(self, exc: openai.APIStatusError, attempts: int) -> MemoryEngineError:
        """The configuration error of a 401 (key refused) or 403 (model or action refused)."""
        what = (
            "refused the API key"
            if exc.status_code == 401
            else f"refused access to model {self.model!r}"
        )
        check = f"; check {self._settings_hint}" if self._settings_hint else ""
        return self._auth_error(
            f"{self.kind} endpoint {self.base_url} {what} (HTTP {exc.status_code}){check}. "
            f"Not retried. Server said: {exc.message}",
            model=self.model,
            base_url=self.base_url,
            status=exc.status_code,
            attempts=attempts,
        )

    def close(self) -> None:
        """Close the HTTP client's connections."""
        self.client.close()
