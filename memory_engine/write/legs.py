"""Extra dense legs on the write path: each new memory gets one vector per extra leg.

After a batch is committed, the created memories' contents are embedded once per leg (in the
leg embedder's own batches) and stored with ``VectorLegs.set_leg_vectors``. A leg that fails
(its model cannot load, the store refuses) never fails the write: the memory is stored and
searchable on the other legs, the failure is logged, and ``memory-engine reembed --leg``
fills the missing vectors later.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Mapping, Sequence

from memory_engine.embedding.base import Embedder
from memory_engine.errors import MemoryEngineError
from memory_engine.models import Scope

logger = logging.getLogger(__name__)

__all__ = ["fill_legs"]


def fill_legs(
    store: object,
    legs: Mapping[str, Embedder] | None,
    created: Sequence[tuple[uuid.UUID, str]],
    *,
    scope: Scope,
) -> dict[str, int]:
    """Embed and store the extra legs' vectors of the ``created`` memories.

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
            logger.warning(
                "dense leg %s: %d new memories without a vector (%s); "
                "`memory-engine reembed --leg %s` fills them",
                leg,
                len(created),
                exc.message,
                leg,
            )
            done[leg] = 0
    return done
