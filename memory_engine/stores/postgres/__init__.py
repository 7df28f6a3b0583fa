"""PostgreSQL + pgvector backend: ``PostgresStore`` composed of parts over one ``PgConnection``.

``from memory_engine.stores.postgres import PostgresStore`` works; the class is imported on first
access, so importing a submodule (e.g. ``embedded``) does not load the whole backend.
"""

from __future__ import annotations

from typing import Any

__all__ = ["PostgresStore"]


def __getattr__(name: str) -> Any:
    if name == "PostgresStore":
        from memory_engine.stores.postgres.store import PostgresStore

        return PostgresStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
