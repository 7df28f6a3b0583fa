"""What the user's previous message left in memory, for a message that continues it.

People talk in turns that lean on the one before: "we got a dog last year" then "she's a
border collie, her name's Pepper"; "I play piano" then "mostly jazz stuff"; "我有高血压" then
"在吃氨氯地平". The second message names no subject, so its fact is far from the first in
embedding space, and the judge never saw the memory it adds to. This module finds the
memories the previous write of the same scope stored a moment ago (the *recent* memories):

* they are given to the extractor as ``ExtractInput.context`` (an LLM reads its pronouns with
  them; the prompt marks them as context, never facts to repeat);
* they are shown to the judge as candidates with ``recent=True``, with their cosine to the new
  fact, whether or not the similarity search found them.

Recent = active memories of the same scope (tenant, and session/user/agent when the scope
names them) created at most :data:`CONTINUATION_WINDOW` ago (UTC, the store's ``created_at``)
by one other write: the newest such write only, at most :data:`MAX_RECENT` memories.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta

import numpy as np

from memory_engine.embedding.base import Embedder
from memory_engine.models import Candidate, Memory, MemoryFilter, MemoryStatus, Scope, utcnow
from memory_engine.stores.base import MemoryStore

__all__ = ["CONTINUATION_WINDOW", "MAX_RECENT", "recent_candidates", "recent_memories"]

#: How long after a write its memories count as the previous message's.
CONTINUATION_WINDOW = timedelta(minutes=10)
#: Most recent memories shown (the facts of one earlier message).
MAX_RECENT = 3
#: Memories listed to find the newest other write (a write stores a few facts at most).
_LISTED = 8


def recent_memories(store: MemoryStore, scope: Scope, *, write_id: str) -> list[Memory]:
    """The memories the newest other write in ``scope`` stored within the window, newest
    first (at most :data:`MAX_RECENT`; empty when there is none or the store fails to list).

    Args:
        store: the tenant's store (``list`` is tenant-scoped; rows of another tenant are
            dropped here too).
        scope: the writing scope.
        write_id: the current write's id (its own memories are not "previous").
    """
    page = store.list(
        scope=scope,
        filters=MemoryFilter(
            statuses=(MemoryStatus.ACTIVE,), created_from=utcnow() - CONTINUATION_WINDOW
        ),
        limit=_LISTED,
    )
    others = [
        m
        for m in page.items
        if m.tenant_id == scope.tenant_id and m.metadata.get("write_id") not in (None, write_id)
    ]
    if not others:
        return []
    newest = others[0].metadata.get("write_id")
    return [m for m in others if m.metadata.get("write_id") == newest][:MAX_RECENT]


def recent_candidates(
    recent: Sequence[Memory],
    found: Sequence[Candidate],
    vector: Sequence[float],
    embedder: Embedder,
) -> list[Candidate]:
    """The ``recent`` memories the candidate search did not find, as candidates whose
    ``cosine`` (in [-1, 1], higher is more similar) to the new fact's ``vector`` is computed
    with ``embedder`` (one batch call; raises EmbeddingError as the embedder does)."""
    known = {c.memory.id for c in found}
    missing = [m for m in recent if m.id not in known]
    if not missing:
        return []
    vecs = np.asarray(embedder.embed([m.content for m in missing]), dtype=np.float64)
    query = np.asarray(vector, dtype=np.float64)
    norms = np.linalg.norm(vecs, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    cosines = vecs @ query / np.maximum(norms, 1e-12)
    return [
        Candidate(memory=m, scores={"cosine": float(c)}, ranks={"recent": i + 1})
        for i, (m, c) in enumerate(zip(missing, cosines, strict=True))
    ]
