"""``HistoryService``: the store as it was at a past time, searched with the same
pipeline, and a stored trace re-run "as of then" versus "now".

The normal search path is untouched: ``search(..., as_of=None)`` never comes here. An as-of
search rebuilds the tenant's memories at ``as_of`` from the audit events
(:func:`memory_engine.history.asof.replay_events`), keeps those in the scope, valid in the world at
``valid_at`` and not erased, embeds their content (cached by content hash; the store keeps no
history of vectors) and runs ``retrieval.pipeline.run_search`` over a
:class:`~memory_engine.history.asof.SnapshotStore`. As-of searches do not store a trace and do not
count accesses (they read the past, they are not a recall).

Cost: one pass over the tenant's events (bounded by :data:`MAX_ASOF_EVENTS`) plus one embedding
per distinct content not embedded before by this engine object.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memory_engine.deps import EngineDeps, as_uuid, check_scope
from memory_engine.entities import memory_terms
from memory_engine.errors import InvalidInputError
from memory_engine.history.asof import SnapshotStore, in_scope, is_redacted, replay_events, valid_at
from memory_engine.models import Event, Memory, MemoryStatus, Scope, SearchResult, ensure_utc
from memory_engine.retrieval.guarded import guarded_search
from memory_engine.retrieval.pipeline import SearchOptions, run_search
from memory_engine.retrieval.service import clean_query, search_options
from memory_engine.stores.redaction import REDACTED

#: Most events an as-of reconstruction reads (InvalidInputError above).
MAX_ASOF_EVENTS = 200_000
#: Most cached as-of embeddings per engine object.
_CACHE_MAX = 50_000


class RankChange(BaseModel):
    """One memory in a then-versus-now comparison; ranks are 1-based final ranks (None =
    not returned), ``rrf`` the fused scores (higher is better)."""

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    content: str
    rank_then: int | None = None
    rank_now: int | None = None
    rrf_then: float | None = None
    rrf_now: float | None = None


class TraceComparison(BaseModel):
    """A stored trace re-run as of its time and now: entered, left, moved, unchanged.

    ``reproduced`` is True when the as-of-then run returned the same ids in the same order as
    the stored trace did, leaving out memories erased since (``erased``: they cannot be
    searched as of any time).
    """

    model_config = ConfigDict(frozen=True)

    trace_id: uuid.UUID
    query: str
    then: datetime
    now: datetime
    reproduced: bool
    erased: list[uuid.UUID] = Field(default_factory=list)
    entered: list[RankChange] = Field(default_factory=list)
    left: list[RankChange] = Field(default_factory=list)
    moved: list[RankChange] = Field(default_factory=list)
    unchanged: list[RankChange] = Field(default_factory=list)


class HistoryService:
    """Time travel over the audit events (recorded time) and validity (world time).

    Args:
        deps: the bundle (settings, store, embedder).

    The embeddings of past contents are cached per service object (at most ``_CACHE_MAX``;
    the cache is emptied when it would grow past that); a purge drops the erased text's entry
    (:meth:`forget_content`, counted by :meth:`cached_copies` in the deletion receipt).
    """

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._vector_cache: dict[str, np.ndarray] = {}

    def cached_copies(self, content: str) -> int:
        """Entries of the as-of embedding cache keyed by ``content`` (0 or 1)."""
        return int(content in self._vector_cache)

    def forget_content(self, content: str) -> int:
        """Drop ``content`` (an erased memory's text) and its embedding from the as-of cache;
        returns the entries removed (0 or 1)."""
        return int(self._vector_cache.pop(content, None) is not None)

    def _tenant_events(self, scope: Scope) -> list[Event]:
        tenant = Scope.of(scope.tenant_id)
        events: list[Event] = []
        cursor: str | None = None
        while True:
            page = self._deps.store.events(
                scope=tenant, limit=self._deps.settings.limits.list_max_limit, cursor=cursor
            )
            events.extend(page.items)
            if len(events) > MAX_ASOF_EVENTS:
                raise InvalidInputError(
                    f"as-of reconstruction reads at most {MAX_ASOF_EVENTS} events",
                    tenant_id=scope.tenant_id,
                )
            cursor = page.next_cursor
            if not cursor:
                return events

    def state_as_of(
        self,
        scope: Scope,
        as_of: datetime,
        *,
        valid_at_time: datetime | None = None,
        statuses: tuple[MemoryStatus, ...] = (),
    ) -> list[Memory]:
        """Memories of the scope as recorded at ``as_of`` (UTC), newest first.

        Args:
            valid_at_time: also keep only facts valid in the world then (None = no filter).
            statuses: keep only these statuses (all when empty).

        Erased memories are included with content ``[purged]`` (see ``asof.is_redacted``).
        """
        scope = check_scope(scope)
        state = replay_events(self._tenant_events(scope), as_of).values()
        out = [
            m
            for m in state
            if in_scope(m, scope)
            and (not statuses or m.status in statuses)
            and (valid_at_time is None or valid_at(m, valid_at_time))
        ]
        out.sort(key=lambda m: (ensure_utc(m.created_at), str(m.id)), reverse=True)
        return out

    def memory_as_of(
        self, scope: Scope, memory_id: uuid.UUID | str, as_of: datetime
    ) -> Memory | None:
        """One memory as recorded at ``as_of``; None when it did not exist (yet, or any more).

        Raises:
            MemoryNotFoundError: the id never existed in the scope.
        """
        history = self._deps.store.history(as_uuid(memory_id), scope=check_scope(scope))
        return replay_events(history.items, as_of).get(as_uuid(memory_id))

    def _vectors(self, memories: list[Memory]) -> dict[uuid.UUID, np.ndarray]:
        cache = self._vector_cache
        todo = sorted({m.content for m in memories if m.content not in cache})
        if todo:
            vecs = self._deps.embedder.embed(todo)
            if len(cache) + len(todo) > _CACHE_MAX:
                cache.clear()
            for text, v in zip(todo, vecs, strict=True):
                arr = np.asarray(v, dtype=np.float64)
                cache[text] = arr / (np.linalg.norm(arr) or 1.0)
        return {m.id: cache[m.content] for m in memories}

    def search_as_of(
        self,
        scope: Scope,
        query: str,
        *,
        as_of: datetime,
        valid_at_time: datetime | None = None,
        options: SearchOptions | None = None,
        **overrides: Any,
    ) -> SearchResult:
        """The normal search pipeline over the store as it was at ``as_of``.

        Args:
            as_of: recorded time (UTC); the state is rebuilt from events up to it.
            valid_at_time: world time the facts must hold at (default ``as_of``).
            options: search options (default: ``search_options(**overrides)``).

        Returns:
            SearchResult whose trace ``config`` also names ``as_of`` and ``valid_at``.
        """
        scope = check_scope(scope)
        query = clean_query(query)
        opts = options or search_options(self._deps.settings, **overrides)
        when = ensure_utc(valid_at_time or as_of)
        assert when is not None
        memories = [
            m for m in self.state_as_of(scope, as_of, valid_at_time=when) if not is_redacted(m)
        ]
        dense = "dense" in opts.legs
        snap = SnapshotStore(
            memories,
            self._vectors(memories) if dense else {},
            {m.id: memory_terms(m.content, m.entities) for m in memories},
        )
        result = run_search(
            query,
            scope=scope,
            options=opts,
            store=snap,
            embedder=self._deps.embedder if dense else None,
            reranker=self._deps.reranker,
        )
        config = {
            **result.trace.config,
            "as_of": ensure_utc(as_of).isoformat(),  # type: ignore[union-attr]
            "valid_at": when.isoformat(),
        }
        trace = result.trace.model_copy(update={"config": config})
        return result.model_copy(update={"trace": trace})

    def compare_trace(self, scope: Scope, trace_id: uuid.UUID | str) -> TraceComparison:
        """Re-run a stored trace's query and options as of the trace's time and now (neither
        run is stored nor counted as an access); list entered, left, moved, unchanged."""
        scope = check_scope(scope)
        trace = self._deps.store.get_trace(as_uuid(trace_id), scope=scope)
        opts = SearchOptions.from_trace_config(trace.config)
        then = self.search_as_of(trace.scope, trace.query, as_of=trace.created_at, options=opts)
        embedder = self._deps.embedder if "dense" in opts.legs else None
        now = guarded_search(
            trace.query,
            scope=trace.scope,
            options=opts,
            store=self._deps.store,
            embedder=embedder,
            reranker=self._deps.reranker,
        )
        erased = {c.memory_id for c in trace.candidates if c.content == REDACTED}
        stored = [c.memory_id for c in trace.candidates if c.dropped is None]
        stored = [i for i in stored if i not in erased]
        then_ids = [c.memory.id for c in then.memories]
        a = {c.memory.id: (i, c) for i, c in enumerate(then.memories, start=1)}
        b = {c.memory.id: (i, c) for i, c in enumerate(now.memories, start=1)}
        groups: dict[str, list[RankChange]] = {
            "entered": [],
            "left": [],
            "moved": [],
            "unchanged": [],
        }
        for mid in list(dict.fromkeys([*a, *b])):
            ta, tb = a.get(mid), b.get(mid)
            change = RankChange(
                memory_id=mid,
                content=(tb or ta)[1].memory.content,  # type: ignore[index]
                rank_then=ta[0] if ta else None,
                rank_now=tb[0] if tb else None,
                rrf_then=ta[1].scores.get("rrf") if ta else None,
                rrf_now=tb[1].scores.get("rrf") if tb else None,
            )
            key = (
                "entered"
                if ta is None
                else "left"
                if tb is None
                else "unchanged"
                if ta[0] == tb[0]
                else "moved"
            )
            groups[key].append(change)
        return TraceComparison(
            trace_id=trace.id,
            query=trace.query,
            then=trace.created_at,
            now=now.trace.created_at,
            reproduced=stored == then_ids,
            erased=sorted(erased, key=str),
            **groups,
        )
