"""What the user's previous message left in memory, for a message that continues it.

People talk in turns that lean on the one before: "we got a dog last year" then "she's a
border collie, her name's Pepper"; "I play piano" then "mostly jazz stuff"; "我有高血压" then
"在吃氨氯地平". The second message names no subject, so its fact is far from the first in
embedding space, and the judge never saw the memory it adds to. This module finds the
memories the previous message stored (the *recent* memories):

* the previous message is the write journalled just before this one for exactly the same
  scope (tenant, user, agent and session ids: another user's or agent's write never counts),
  of the same source (a conversation turn after a conversation turn, never a tool output),
  at most :data:`CONTINUATION_WINDOW` earlier (UTC); when it stored nothing, there is none;
* its memories that are still active (at most :data:`MAX_RECENT`) are given to the extractor
  as ``ExtractInput.context`` (an LLM reads its pronouns with them; the prompt marks them as
  context, never facts to repeat) and shown to the judge as candidates with ``recent=True``,
  with their cosine to each new fact, whether or not the similarity search found them (they
  are embedded once per write).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from contextlib import AbstractContextManager
from datetime import datetime, timedelta
from typing import Any

import numpy as np

from memory_engine.embedding.base import Embedder
from memory_engine.errors import MemoryEngineError, MemoryNotFoundError
from memory_engine.models import Candidate, Memory, MemoryStatus, Scope, ensure_utc, utcnow
from memory_engine.stores.base import MemoryStore

__all__ = [
    "CONTINUATION_WINDOW",
    "MAX_RECENT",
    "previous_rows",
    "recent_candidates",
    "recent_context",
    "recent_memories",
]

#: How long after a write its memories count as the previous message's.
CONTINUATION_WINDOW = timedelta(minutes=10)
#: Most recent memories shown (the facts of one earlier message).
MAX_RECENT = 3


def previous_rows(previous: dict[str, Any] | None, current: dict[str, Any]) -> list[str]:
    """Memory ids the previous write stored, or none: ``previous`` and ``current`` are the
    journal rows of the previous write (``WriteJournal.previous``) and of this one. None when
    the previous write stored nothing, or was accepted more than the window before this one,
    or said something observed more than the window apart (``observed_at``: an import of an
    old conversation keeps its own times)."""
    if not previous or previous.get("status") != "done":
        return []
    if _apart(previous.get("created_at"), current.get("created_at")):
        return []
    then = (previous.get("request") or {}).get("observed_at")
    now = (current.get("request") or {}).get("observed_at")
    if then and now and _apart(then, now):
        return []
    return [str(r) for r in (previous.get("result") or {}).get("rows") or []]


def _apart(earlier: Any, later: Any) -> bool:
    """True when the two ISO 8601 times are more than the window apart (or unreadable)."""
    try:
        a = ensure_utc(datetime.fromisoformat(str(earlier)))
        b = ensure_utc(datetime.fromisoformat(str(later))) if later else utcnow()
    except ValueError:
        return True
    return a is None or b is None or abs(b - a) > CONTINUATION_WINDOW


def recent_memories(store: MemoryStore, scope: Scope, ids: Sequence[str]) -> list[Memory]:
    """The still-active memories among ``ids`` (the previous write's rows), oldest first (the
    last one is what the message said last), at most :data:`MAX_RECENT`; one that was deleted
    meanwhile is left out. Raises StoreError."""
    out: list[Memory] = []
    for raw in ids[:MAX_RECENT]:
        try:
            memory = store.get(uuid.UUID(raw), scope=scope)
        except (MemoryNotFoundError, ValueError):
            continue
        if memory.status == MemoryStatus.ACTIVE and memory.tenant_id == scope.tenant_id:
            out.append(memory)
    return sorted(out, key=lambda m: (m.created_at, m.version))


def recent_context(
    store: MemoryStore,
    embedder: Embedder,
    limit: AbstractContextManager[Any],
    scope: Scope,
    ids: Sequence[str],
    warnings: list[str],
) -> tuple[list[Memory], list[list[float]]]:
    """:func:`recent_memories` of the previous write's rows with their vectors, embedded once
    per write under ``limit`` (the shared embedding-call limit). A store or embedder that
    fails gives none and a warning in ``warnings``: the context helps a write, it never fails
    one."""
    if not ids:
        return [], []
    try:
        recent = recent_memories(store, scope, ids)
        if not recent:
            return [], []
        with limit:
            return recent, embedder.embed([m.content for m in recent])
    except MemoryEngineError as exc:
        warnings.append(f"previous message's memories not read: {exc.message}")
        return [], []


def recent_candidates(
    recent: Sequence[Memory],
    vectors: Sequence[Sequence[float]],
    found: Sequence[Candidate],
    vector: Sequence[float],
) -> list[Candidate]:
    """The ``recent`` memories (embedded as ``vectors``) the candidate search did not find,
    as candidates whose ``cosine`` (in [-1, 1], higher is more similar) to the new fact's
    ``vector`` is computed here."""
    known = {c.memory.id for c in found}
    pairs = [(m, v) for m, v in zip(recent, vectors, strict=True) if m.id not in known]
    if not pairs:
        return []
    vecs = np.asarray([v for _, v in pairs], dtype=np.float64)
    query = np.asarray(vector, dtype=np.float64)
    norms = np.linalg.norm(vecs, axis=1) * max(float(np.linalg.norm(query)), 1e-12)
    cosines = vecs @ query / np.maximum(norms, 1e-12)
    return [
        Candidate(memory=m, scores={"cosine": float(c)}, ranks={"recent": i + 1})
        for i, ((m, _), c) in enumerate(zip(pairs, cosines, strict=True))
    ]
