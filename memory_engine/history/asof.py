"""As-of reconstruction: a tenant's memories at a past time, rebuilt from the audit events,
and an in-memory snapshot store that the normal search pipeline runs over.

Bi-temporal (docs/architecture.md#data-model):

* **recorded time** ``as_of``: a memory's state at ``as_of`` is the ``after`` snapshot of its
  last event recorded at or before ``as_of`` (events are applied in event-id order). A memory
  whose last such event is a ``purge`` did not exist any more; one with no event yet did not
  exist yet. Events without a snapshot (``purge_proof``, ``decision``) change nothing.
* **world time** ``valid_at`` (default: ``as_of``): the fact holds when
  ``valid_from <= valid_at < valid_until`` (a missing bound is open). :func:`valid_at` filters.

Erasure wins over history: a purged memory's snapshots are redacted (content ``[purged]``),
so as of a time before its purge it is listed (id, type, status, times) but its text is gone
and no search can match it (:data:`memory_engine.stores.redaction.REDACTED`).

:class:`SnapshotStore` is a ``stores.base.SearchIndex`` (the capability
``retrieval.pipeline.run_search`` takes) over such a snapshot: exact cosine over vectors
supplied by the caller and BM25 with the stores' formula and constants
(``stores.common.bm25_idf`` and ``bm25_tf``: k1 = 1.2, b = 0.75, Lucene's idf; N and average
length over the rows of the searched statuses).
"""

from __future__ import annotations

import builtins
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime

import numpy as np

from memory_engine.models import (
    Candidate,
    Event,
    EventAction,
    Memory,
    MemoryStatus,
    Scope,
    ensure_utc,
)
from memory_engine.stores.common import bm25_idf, bm25_tf
from memory_engine.stores.redaction import REDACTED


def replay_events(events: Iterable[Event], as_of: datetime) -> dict[uuid.UUID, Memory]:
    """Memories as of ``as_of`` (recorded time) from events in any order (sorted by id)."""
    cutoff = ensure_utc(as_of)
    assert cutoff is not None
    state: dict[uuid.UUID, Memory] = {}
    ordered = sorted(
        (e for e in events if e.memory_id is not None),
        key=lambda e: (e.id if e.id is not None else 0, ensure_utc(e.at)),
    )
    for e in ordered:
        at = ensure_utc(e.at)
        assert at is not None and e.memory_id is not None
        if at > cutoff:
            continue
        if e.action is EventAction.PURGE:
            state.pop(e.memory_id, None)
        elif e.after is not None:
            state[e.memory_id] = snapshot_memory(e.after)
    return state


def snapshot_memory(snapshot: Mapping[str, object]) -> Memory:
    """A Memory from an event snapshot (``Memory.public_dict``); unknown keys are ignored."""
    fields = Memory.model_fields
    return Memory.model_validate({k: v for k, v in snapshot.items() if k in fields})


def is_redacted(memory: Memory) -> bool:
    """True when the memory's content was erased by a later purge."""
    return memory.content == REDACTED


def valid_at(memory: Memory, when: datetime) -> bool:
    """World-time validity: ``valid_from <= when < valid_until`` (missing bounds are open)."""
    t = ensure_utc(when)
    start, end = ensure_utc(memory.valid_from), ensure_utc(memory.valid_until)
    assert t is not None
    return (start is None or start <= t) and (end is None or t < end)


def in_scope(memory: Memory, scope: Scope) -> bool:
    """The scope's tenant and every id it sets match the memory."""
    return memory.tenant_id == scope.tenant_id and all(
        getattr(scope, f) is None or getattr(scope, f) == getattr(memory, f)
        for f in ("user_id", "agent_id", "session_id")
    )


class SnapshotStore:
    """A ``SearchIndex`` over a fixed list of memories (as-of search); legs run in turn.

    Args:
        memories: the reconstructed memories (one tenant).
        vectors: memory id -> unit-normalised embedding (memories without one are not found by
            the dense leg).
        terms: memory id -> keyword terms with repetition (``memory_engine.text.tokenize``).
    """

    name = "snapshot"
    concurrent_legs = False  # in-process numpy work: two threads would only contend

    def __init__(
        self,
        memories: Sequence[Memory],
        vectors: Mapping[uuid.UUID, np.ndarray],
        terms: Mapping[uuid.UUID, Sequence[str]],
    ) -> None:
        self._memories = list(memories)
        self._vectors = vectors
        self._terms = {k: Counter(v) for k, v in terms.items()}
        self._lengths = {k: len(v) for k, v in terms.items()}

    def _rows(self, scope: Scope, statuses: Sequence[MemoryStatus]) -> list[Memory]:
        wanted = {MemoryStatus(s) for s in statuses}
        return [m for m in self._memories if m.status in wanted and in_scope(m, scope)]

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """Exact cosine top-``k``; scores ``cosine`` in [-1, 1]."""
        q = np.asarray(vector, dtype=np.float64)
        q = q / (np.linalg.norm(q) or 1.0)
        scored = []
        for m in self._rows(scope, statuses):
            v = self._vectors.get(m.id)
            if v is not None:
                scored.append((float(np.dot(q, v)), m))
        scored.sort(key=lambda p: (-p[0], str(p[1].id)))
        return [Candidate(memory=m, scores={"cosine": s}) for s, m in scored[:k]]

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """BM25 top-``k`` (constants in the module docstring); scores ``bm25`` > 0."""
        rows = self._rows(scope, statuses)
        query = list(dict.fromkeys(t for t in terms if t))
        if not rows or not query:
            return []
        n = len(rows)
        avgdl = sum(self._lengths.get(m.id, 0) for m in rows) / n or 1.0
        empty: Counter[str] = Counter()
        df = {t: sum(1 for m in rows if self._terms.get(m.id, empty)[t]) for t in query}
        idf = {t: bm25_idf(n, df[t]) for t in query}
        scored = []
        for m in rows:
            tf_all = self._terms.get(m.id, empty)
            dl = self._lengths.get(m.id, 0)
            score = sum(idf[t] * bm25_tf(tf_all[t], dl, avgdl) for t in query)
            if score > 0:
                scored.append((score, m))
        scored.sort(key=lambda p: (-p[0], str(p[1].id)))
        return [Candidate(memory=m, scores={"bm25": s}) for s, m in scored[:k]]
