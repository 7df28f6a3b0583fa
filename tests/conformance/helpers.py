"""Helpers shared by the store conformance modules (test_isolation, test_lifecycle, test_reads)."""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Any

import numpy as np

from memory_engine.models import (
    Memory,
    MemoryStatus,
    Scope,
)
from memory_engine.stores.base import MemoryStore, NewMemory
from tests.conformance.conftest import DIM

ALL_STATUSES = tuple(MemoryStatus)

# ----------------------------------------------------------------------------- helpers


def unit(rng: np.random.Generator, dim: int = DIM) -> np.ndarray:
    v = rng.normal(size=dim)
    return v / np.linalg.norm(v)


def near(q: np.ndarray, rng: np.random.Generator, noise: float = 0.05) -> np.ndarray:
    v = q + rng.normal(scale=noise, size=q.shape)
    return v / np.linalg.norm(v)


def far(q: np.ndarray, rng: np.random.Generator, noise: float = 0.05) -> np.ndarray:
    return near(-q, rng, noise)


def item(
    tenant_id: str,
    content: str,
    emb: np.ndarray,
    *,
    terms: Sequence[str] | None = None,
    content_hash: str | None = None,
    **fields: Any,
) -> NewMemory:
    """A NewMemory; terms default to the lower-cased words, content_hash to the lower text."""
    memory = Memory(
        tenant_id=tenant_id,
        content=content,
        content_hash=content.lower() if content_hash is None else content_hash,
        **fields,
    )
    words = tuple(content.lower().replace(".", "").split()) if terms is None else tuple(terms)
    return NewMemory(memory=memory, embedding=tuple(float(x) for x in emb), terms=words)


def put(store: MemoryStore, scope: Scope, *items: NewMemory) -> list[uuid.UUID]:
    outcomes = store.insert(list(items), scope=scope, actor="test")
    assert [o.status for o in outcomes] == ["created"] * len(items)
    return [o.memory_id for o in outcomes]


def ids(candidates: Sequence[Any]) -> list[uuid.UUID]:
    return [c.memory.id for c in candidates]
