"""Store backends. ``build_store(settings)`` is the only place a backend is chosen."""

from __future__ import annotations

from memory_engine.config import Settings
from memory_engine.errors import ConfigError
from memory_engine.stores.base import MemoryStore


def build_store(settings: Settings) -> MemoryStore:
    """Open the store named by ``settings.storage.backend``.

    Raises:
        ConfigError: unknown or not yet available backend.
        StoreUnavailableError: the store cannot be reached or started.
    """
    if settings.storage.backend == "postgres":
        from memory_engine.stores.postgres.store import PostgresStore

        return PostgresStore(settings)
    if settings.storage.backend == "qdrant":
        from memory_engine.stores.qdrant.store import QdrantStore

        return QdrantStore(settings)
    raise ConfigError(f"store {settings.storage.backend!r} is not available in this build")
