"""``EngineBase``: wiring shared by the ``MemoryEngine`` mixins (store, embedder, limits).

Helpers ``check_scope`` and ``as_uuid`` validate the two arguments every public call takes.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any, Self

from memory_engine.config import Settings
from memory_engine.embedding.base import Embedder
from memory_engine.errors import InvalidInputError, MemoryNotFoundError
from memory_engine.models import Scope
from memory_engine.stores.base import MemoryStore
from memory_engine.write.raw import Extractor, raw_extractor


def check_scope(scope: Any) -> Scope:
    """Return ``scope`` if it is a ``Scope``. Raises InvalidInputError otherwise."""
    if not isinstance(scope, Scope):
        raise InvalidInputError("scope must be a memory_engine.Scope (use Scope.of(tenant))")
    return scope


def as_uuid(value: uuid.UUID | str) -> uuid.UUID:
    """Parse a memory id. Raises MemoryNotFoundError for anything that is not a UUID."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError as exc:
        raise MemoryNotFoundError(f"no memory {value!r}", memory_id=value) from exc


class EngineBase:
    """Agent memory: write, ingest, search, inspect, edit and audit, per tenant.

    Args:
        settings: engine settings (default: read from ``MEMORY_*`` env and ``.env``).
        store: a ``MemoryStore`` (default: built from settings on first use).
        embedder: an ``Embedder`` (default: built from settings on first write or search).
        extractor: turns one input into memories (default: raw mode, one memory per chunk).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: MemoryStore | None = None,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self._store = store
        self._embedder = embedder
        self._embedding_checked = False
        self._extractor = extractor or raw_extractor(self.settings)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ wiring
    @property
    def store(self) -> MemoryStore:
        """The store (opened on first use). Raises StoreUnavailableError."""
        if self._store is None:
            with self._lock:
                if self._store is None:
                    from memory_engine.stores import build_store

                    self._store = build_store(self.settings)
        return self._store

    @property
    def embedder(self) -> Embedder:
        """The embedder, checked against the store's recorded model and dimension.

        Raises:
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    from memory_engine.embedding import build_embedder

                    self._embedder = build_embedder(self.settings)
        if not self._embedding_checked:
            self.store.ensure_embedding(self._embedder.model_name, self._embedder.dim)
            self._embedding_checked = True
        return self._embedder

    def close(self) -> None:
        """Close the store's connections. Safe to call twice."""
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _limit(self, limit: int) -> int:
        if limit < 1:
            raise InvalidInputError("limit must be >= 1", limit=limit)
        return min(limit, self.settings.list_max_limit)
