"""Qdrant backend (local mode or a server): ``QdrantStore`` composed of parts over one
``QdrantConnection``.

``from memory_engine.stores.qdrant import QdrantStore`` works; the class is imported on first
access, so importing a submodule does not load the whole backend.
"""

from __future__ import annotations

from typing import Any

__all__ = ["QdrantStore"]


def __getattr__(name: str) -> Any:
    if name == "QdrantStore":
        from memory_engine.stores.qdrant.store import QdrantStore

        return QdrantStore
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
