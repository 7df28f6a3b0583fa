"""Extra dense legs on the write path: each new memory gets one vector per extra leg.

A batch's contents are embedded once per leg (:func:`embed_legs`, in the leg embedder's own
batches) before the insert, and the vectors travel in the insert itself (``NewMemory.legs``,
:func:`item_legs`): one statement set per write. An edit that changes the content refills the
legs of the stored memory with ``VectorLegs.set_leg_vectors`` (:func:`fill_legs`). A leg that
fails (its model cannot load, the store refuses) never fails the write: the memory is stored
and searchable on the other legs, the failure is logged, and ``memory-engine reembed --leg``
fills the missing vectors later.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence

import numpy as np

from memory_engine.embedding.base import Embedder
from memory_engine.errors import MemoryEngineError
from memory_engine.models import Scope
from memory_engine.stores.base import NewMemory

logger = logging.getLogger(__name__)

__all__ = ["embed_legs", "fill_legs", "fitted_legs", "item_legs", "one_memory_legs"]


def _log_failure(leg: str, count: int, exc: MemoryEngineError) -> None:
    logger.warning(
        "dense leg %s: %d new memories without a vector (%s); "
        "`memory-engine reembed --leg %s` fills them",
        leg,
        count,
        exc.message,
        leg,
    )


def embed_legs(legs: Mapping[str, Embedder] | None, texts: Sequence[str]) -> dict[str, np.ndarray]:
    """Each extra leg's vectors of ``texts``, one embedder call per leg.

    Args:
        legs: leg name -> embedder (``EngineDeps.dense_legs(searching=False)``), or None.
        texts: the new memories' contents.

    Returns:
        Leg name -> float32 array of shape ``(len(texts), leg dim)``; a leg whose embedder
        fails is left out (the failure is logged, the memories are written without it).
    """
    out: dict[str, np.ndarray] = {}
    if not legs or not texts:
        return out
    for leg, embedder in legs.items():
        try:
            vectors = np.asarray(embedder.embed(list(texts)), dtype=np.float32)
            out[leg] = vectors.reshape(len(texts), -1)
        except MemoryEngineError as exc:
            _log_failure(leg, len(texts), exc)
    return out


def item_legs(vectors: Mapping[str, np.ndarray], row: int) -> dict[str, tuple[float, ...]]:
    """The leg vectors of row ``row`` of :func:`embed_legs`' result (``NewMemory.legs``)."""
    return {leg: tuple(v[row].tolist()) for leg, v in vectors.items()}


def one_memory_legs(
    legs: Mapping[str, Embedder] | None,
    text: str,
    known: Mapping[str, Sequence[float] | None],
) -> dict[str, tuple[float, ...]]:
    """``NewMemory.legs`` of one new memory: the ``known`` vectors the caller already has of
    ``text`` (a None is embedded again), the other legs embedded now (:func:`embed_legs`)."""
    have = {leg: tuple(float(x) for x in v) for leg, v in known.items() if v is not None}
    wanted = {leg: e for leg, e in (legs or {}).items() if leg not in have}
    return {**item_legs(embed_legs(wanted, [text]), 0), **have}


def fitted_legs(store: object, items: Sequence[NewMemory]) -> list[NewMemory] | None:
    """After an insert of ``items`` failed: the items without the leg vectors the store's
    leg records, read again now, no longer take (another process replaced the leg with
    another dimension or dropped it since this process read them), so the memories can be
    inserted without them; ``None`` when every leg vector still fits (the failure was not the
    legs'). A leg left out is logged; ``memory-engine reembed --leg`` fills it later.
    """
    part = getattr(store, "legs", None)  # the store's VectorLegs part
    if part is None or not any(item.legs for item in items):
        return None
    try:
        records = part.leg_records()
    except MemoryEngineError:
        return None
    refused: dict[str, int] = {}
    out: list[NewMemory] = []
    for item in items:
        keep = {}
        for leg, vector in item.legs.items():
            record = records.get(leg)
            if record is not None and record.dim == len(vector):
                keep[leg] = vector
            else:
                refused[leg] = refused.get(leg, 0) + 1
        out.append(item if len(keep) == len(item.legs) else item.model_copy(update={"legs": keep}))
    if not refused:
        return None
    for leg, count in refused.items():
        _log_failure(leg, count, MemoryEngineError("the store's leg record changed"))
    return out


def fill_legs(
    store: object,
    legs: Mapping[str, Embedder] | None,
    created: Sequence[tuple[uuid.UUID, str]],
    *,
    scope: Scope,
) -> dict[str, int]:
    """Embed and store the extra legs' vectors of stored memories (an edited content).

    Args:
        store: the store (legs are skipped unless it has a ``legs`` part, ``VectorLegs``).
        legs: leg name -> embedder (``EngineDeps.dense_legs(searching=False)``).
        created: ``(memory id, content)`` of the memories just inserted.
        scope: their tenant.

    Returns:
        Vectors stored per leg (0 for a leg that failed; the failure is logged).
    """
    part = getattr(store, "legs", None)  # the store's VectorLegs part
    if not legs or not created or part is None:
        return {}
    done: dict[str, int] = {}
    for leg, embedder in legs.items():
        try:
            vectors = embedder.embed([text for _, text in created])
            done[leg] = part.set_leg_vectors(
                leg, {mid: v for (mid, _), v in zip(created, vectors, strict=True)}, scope=scope
            )
        except MemoryEngineError as exc:
            _log_failure(leg, len(created), exc)
            done[leg] = 0
    return done
