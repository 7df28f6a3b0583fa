"""Error tree of the memory engine.

Every error derives from :class:`MemoryEngineError`, carries the ids involved and a stable
``code`` (used by the CLI, the MCP server and the dashboard to show one canonical error
shape: ``{"error": code, "message": str, "details": {...}}``). Lower-layer errors
(psycopg, qdrant-client, openai) are mapped at the boundary with ``raise ... from``.
"""

from __future__ import annotations

from typing import Any

#: Characters of a caller's value an error message quotes at most.
QUOTE_LIMIT = 80


def quoted(value: Any, limit: int = QUOTE_LIMIT) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters with the value's full
    length stated, so a 5,000-character id never fills a terminal, a log line or a page."""
    text = repr(value)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… ({len(str(value))} characters)"


class MemoryEngineError(Exception):
    """Base class: any failure the engine reports on purpose."""

    code = "memory_engine_error"

    def __init__(self, message: str, **details: Any) -> None:
        super().__init__(message)
        self.message = message
        self.details = {k: v for k, v in details.items() if v is not None}

    def to_dict(self) -> dict[str, Any]:
        """Canonical error shape: ``{"error", "message", "details"}`` (JSON-serialisable)."""
        return {
            "error": self.code,
            "message": self.message,
            "details": {k: str(v) for k, v in self.details.items()},
        }


class ConfigError(MemoryEngineError):
    """Raised when a setting is invalid or two settings contradict each other."""

    code = "config_error"


class InvalidInputError(MemoryEngineError):
    """Raised when caller input fails validation (types, ranges, formats)."""

    code = "invalid_input"

    @classmethod
    def of_validation(cls, what: str, exc: Any) -> InvalidInputError:
        """The typed error of a pydantic ``ValidationError`` ``exc``: ``what`` and the first
        five refused fields with pydantic's reason (never the refused value)."""
        problems = "; ".join(
            f"{'.'.join(str(p) for p in e.get('loc', ())) or '(input)'}: {e.get('msg', '')}"
            for e in exc.errors()[:5]
        )
        return cls(f"{what}: {problems}", fields=problems)


class EmptyContentError(InvalidInputError):
    """Raised when text to remember is empty or whitespace-only after normalisation."""

    code = "empty_content"


class ContentTooLargeError(InvalidInputError):
    """Raised when text exceeds ``MEMORY_MAX_INPUT_CHARS`` characters."""

    code = "content_too_large"


class TenantScopeError(InvalidInputError):
    """Raised when a scope is missing, malformed, or given twice inconsistently."""

    code = "tenant_scope_error"


class MemoryNotFoundError(MemoryEngineError):
    """Raised when a memory (or trace) id does not exist *in the caller's tenant*.

    Another tenant's memory also answers "not found", never "forbidden".
    """

    code = "not_found"


class VersionConflictError(MemoryEngineError):
    """Raised when an update names a version that is no longer the current one."""

    code = "version_conflict"


class MemoryDeletedError(MemoryEngineError):
    """Raised when an update, archive or second delete names a memory that is deleted.

    A deleted memory changes only by ``restore`` (back to active) or ``purge`` (erased); the
    refused call changes nothing (no new version, no event). Details: ``memory_id``, ``version``.
    """

    code = "memory_deleted"


class MemoryAlreadyActiveError(InvalidInputError):
    """Raised when ``restore`` names a memory that is already active.

    The refused call changes nothing (no new version, no event). An ``InvalidInputError``, so
    its ``code`` stays ``invalid_input`` for MCP and REST callers. Details: ``memory_id``,
    ``version``.
    """


class EmbeddingMismatchError(MemoryEngineError):
    """Raised when the configured embedder's model name or dimension differs from the store's.

    Fix: configure the recorded model and dimension again, or switch the store in place with
    ``memory-engine reembed`` (a store, one tenant or one leg).
    """

    code = "embedding_mismatch"


class LegUnavailableError(MemoryEngineError):
    """Raised when a store cannot hold an extra dense leg as it is (a Qdrant collection made
    without the leg's named vector): ``memory-engine reembed --leg <leg>`` rebuilds it."""

    code = "leg_unavailable"


class EmbeddingError(MemoryEngineError):
    """Raised when an embedder fails (endpoint unreachable, bad response, wrong shape)."""

    code = "embedding_error"


class StoreUnavailableError(MemoryEngineError):
    """Raised when the store cannot be reached or started."""

    code = "store_unavailable"


class StoreError(MemoryEngineError):
    """Raised for any other store failure, mapped from the driver's error."""

    code = "store_error"


class IngestFormatError(InvalidInputError):
    """Raised when an ingest file does not match its declared format."""

    code = "ingest_format_error"


class TransferConflictError(MemoryEngineError):
    """Raised when a copy target already holds different data for a record it would write
    (same memory id, an event of it, or the same active content); nothing is overwritten."""

    code = "transfer_conflict"


class LLMError(MemoryEngineError):
    """Raised when the write-decision LLM endpoint fails after retries or rejects the request."""

    code = "llm_error"


class ExtractionFailedError(MemoryEngineError):
    """Raised when the LLM's output stays unusable after bounded retries.

    The raw input is kept in the write journal (``details['write_id']``) for a retry; a
    failed extraction is never reported as "success, zero memories".
    """

    code = "extraction_failed"


class LLMConfigError(LLMError):
    """Raised when the LLM endpoint refuses the credentials or the model (HTTP 401/403).

    Not retried: the message names the settings to check (``MEMORY_LLM_API_KEY``,
    ``MEMORY_LLM_BASE_URL``, ``MEMORY_LLM_MODEL``); ``details['status']`` is the HTTP status.
    """

    code = "llm_config_error"


class LLMContextLengthError(LLMError):
    """Raised when the prompt exceeds the model's context window even after the input was
    shrunk once (HTTP 400 about context length). Nothing of the write is stored."""

    code = "llm_context_length"


class LLMRefusalError(LLMError):
    """Raised when the model refuses to answer (a ``refusal`` with no content).

    ``details['refusal']`` holds the model's refusal text (at most 500 characters). The write
    fails before anything is stored; its input stays in the journal for ``retry_write``.
    """

    code = "llm_refusal"


class LLMOutputTruncatedError(ExtractionFailedError):
    """Raised when the model's output stays cut off (``finish_reason: "length"``) after one
    retry with a larger ``max_tokens``. ``details['max_tokens']`` is the last limit asked."""

    code = "llm_output_truncated"


class RateLimitedError(MemoryEngineError):
    """Raised when a session's write rate limit would need a longer wait than allowed."""

    code = "rate_limited"


class SensitiveDataError(InvalidInputError):
    """Raised when a write holds PII or a secret and the tenant's PII policy is ``block``."""

    code = "sensitive_data"


def _all_subclasses(cls: type[MemoryEngineError]) -> list[type[MemoryEngineError]]:
    out = [cls]
    for sub in cls.__subclasses__():
        out.extend(_all_subclasses(sub))
    return out


def error_from_dict(data: dict[str, Any]) -> MemoryEngineError:
    """Rebuild the typed error from its canonical shape (``to_dict`` output).

    Unknown codes give the base ``MemoryEngineError``. A code belongs to the class that
    declares it, never to a subclass that only inherits it (``MemoryAlreadyActiveError`` keeps
    ``invalid_input``, so an ``invalid_input`` error is an ``InvalidInputError``).
    """
    by_code = {c.code: c for c in _all_subclasses(MemoryEngineError) if "code" in vars(c)}
    cls = by_code.get(str(data.get("error")), MemoryEngineError)
    return cls(str(data.get("message", "")), **dict(data.get("details") or {}))
