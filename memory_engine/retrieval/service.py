"""``SearchService``: hybrid search, replay and stored traces of ``MemoryEngine``.

The walk of one search (``SearchService.search``): check the scope and the query
(``clean_query``) -> options from settings (``search_options``) -> as-of searches go to the
history service -> ``guarded_search`` (``retrieval.pipeline.run_search`` behind the
cross-tenant guard) -> store the trace -> queue the after-search bookkeeping (access counts,
restore on a strong match) -> freeze the garbage collector once per process.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any, Protocol

from pydantic import ValidationError

from memory_engine.config import Settings
from memory_engine.deps import EngineDeps, check_scope
from memory_engine.errors import InvalidInputError
from memory_engine.models import Page, Scope, SearchResult, Trace, TraceCandidate
from memory_engine.retrieval.gcfreeze import freeze_once
from memory_engine.retrieval.guarded import guarded_search
from memory_engine.retrieval.pipeline import SearchOptions
from memory_engine.retrieval.weighting import WeightFn, retention_weight_fn
from memory_engine.scoring import RetentionParams
from memory_engine.security.policy import redact_stored
from memory_engine.text import clean_text

#: Longest accepted search query, in characters.
MAX_QUERY_CHARS = 4000


def clean_query(query: str) -> str:
    """``query`` cleaned like every write text (``text.clean_text``).

    Raises:
        InvalidInputError, EmptyContentError, ContentTooLargeError (over MAX_QUERY_CHARS).
    """
    return clean_text(
        query, max_chars=MAX_QUERY_CHARS, field="query", limit_name="maximum query length"
    )


def search_options(settings: Settings, **overrides: Any) -> SearchOptions:
    """``settings.retrieval`` with ``overrides`` (None values ignored) validated on top.

    Raises:
        InvalidInputError: ``k`` above ``limits.search_max_k``, or an override out of range
            (``field`` names it).
    """
    given = {name: value for name, value in overrides.items() if value is not None}
    k = given.get("k", settings.retrieval.k)
    if k > settings.limits.search_max_k:
        raise InvalidInputError(f"k must be <= {settings.limits.search_max_k}", k=k)
    try:
        return SearchOptions.model_validate({**settings.retrieval.model_dump(), **given})
    except ValidationError as exc:
        first = exc.errors()[0]
        field = ".".join(str(p) for p in first.get("loc", ()))
        raise InvalidInputError(f"invalid {field}: {first.get('msg')}", field=field) from exc


def stored_trace(trace: Trace, settings: Settings) -> Trace:
    """``trace`` as it is stored: every text in it through the PII redaction pass
    (``security.policy.redact_stored`` under the trace tenant's policy): the query, the
    searched queries and terms, the recent turns of its configuration, every candidate's
    content snapshot, the memory block and the warnings. The same object when nothing changed.
    """

    def redact(value: Any) -> Any:
        return redact_stored(value, tenant_id=trace.tenant_id, settings=settings)

    seen: dict[str, str] = {}  # a memory is in several legs: each content is screened once

    def candidate(c: TraceCandidate) -> TraceCandidate:
        if c.content not in seen:
            seen[c.content] = redact(c.content)
        content = seen[c.content]
        entities = tuple(redact(list(c.entities))) if c.entities else c.entities
        if content == c.content and entities == c.entities:
            return c
        return c.model_copy(update={"content": content, "entities": entities})

    config = dict(trace.config)
    if config.get("recent_turns"):
        config["recent_turns"] = redact(config["recent_turns"])
    update: dict[str, Any] = {
        "query": redact(trace.query),
        "searched_queries": redact(trace.searched_queries),
        "query_terms": redact(trace.query_terms),
        "config": config,
        "candidates": [candidate(c) for c in trace.candidates],
        "legs": {name: [candidate(c) for c in leg] for name, leg in trace.legs.items()},
        "block": redact(trace.block),
        "warnings": redact(trace.warnings),
    }
    if all(update[k] == getattr(trace, k) for k in update):
        return trace
    return trace.model_copy(update=update)


class AsOfSearch(Protocol):
    """The search over the past that ``search(..., as_of=...)`` hands over to."""

    def search_as_of(
        self, scope: Scope, query: str, *, as_of: datetime, options: SearchOptions | None = None
    ) -> SearchResult: ...


class AfterSearch(Protocol):
    """The bookkeeping queued after a stored search (access counts, restore on a match)."""

    def after_search(self, scope: Scope, query: str, result: SearchResult) -> None: ...


class SearchService:
    """Search, replay and traces over ``deps.store``.

    Args:
        deps: the bundle (settings, store, embedder, reranker, clock).
        history: runs searches with ``as_of`` (``history.service.HistoryService``).
        bookkeeping: runs after each stored search (``lifecycle.access.AccessBookkeeper``).
        retention_params: the retention parameters of the retention weight
            (``LifecycleService.retention_params``).
    """

    def __init__(
        self,
        deps: EngineDeps,
        *,
        history: AsOfSearch,
        bookkeeping: AfterSearch,
        retention_params: Callable[[], RetentionParams],
    ) -> None:
        self._deps = deps
        self._history = history
        self._bookkeeping = bookkeeping
        self._retention_params = retention_params

    def search_options(self, **overrides: Any) -> SearchOptions:
        """Default ``SearchOptions`` from settings, with ``overrides`` (None values ignored)."""
        return search_options(self._deps.settings, **overrides)

    def search(
        self,
        scope: Scope,
        query: str,
        *,
        k: int | None = None,
        legs: Sequence[str] | None = None,
        min_score: float | None = None,
        min_cosine: float | None = None,
        token_budget: int | None = None,
        candidates_per_leg: int | None = None,
        task_type: str | None = None,
        recent_turns: Sequence[str] | None = None,
        options: SearchOptions | None = None,
        save_trace: bool = True,
        as_of: datetime | None = None,
        weight_fn: WeightFn | None = None,
    ) -> SearchResult:
        """Hybrid search: dense + keyword legs, RRF, threshold, top-k, token budget, block.

        ``task_type`` (general, consultation, knowledge_qa, workflow) weights memory types;
        ``recent_turns`` (oldest first) build the composite query; ``weight_fn`` is the
        retention/recency hook (memory -> weight >= 0); without one, ``options.retention_weight``
        (``MEMORY_RETENTION_SEARCH_WEIGHT``, default 0 = off) blends in the retention score
        of ``scoring.py`` under the configured preset.

        Returns:
            SearchResult whose ``trace`` holds every candidate of every leg with named scores
            (``retrieval.scores.SCORE_KINDS``; all higher is better), ranks per stage, drop
            reasons, leg health and per-stage timings (ms). The trace is stored, accesses
            counted and strong matches restored unless ``save_trace=False`` (a what-if:
            comparisons, golden-set runs, benchmarks). With ``as_of`` (UTC), searches the store
            as it was then (``search_as_of``: rebuilt from events, facts valid at that time; no
            trace stored, no access counted).

        Raises:
            EmptyContentError, InvalidInputError, EmbeddingMismatchError, StoreError.
        """
        deps = self._deps
        scope = check_scope(scope)
        # the query and recent turns are stored in the trace: the PII redaction pass first
        query = redact_stored(clean_query(query), tenant_id=scope.tenant_id, settings=deps.settings)
        opts = options or self.search_options(
            k=k,
            legs=tuple(legs) if legs is not None else None,
            min_score=min_score,
            min_cosine=min_cosine,
            token_budget=token_budget,
            candidates_per_leg=candidates_per_leg,
            task_type=task_type,
            recent_turns=tuple(recent_turns) if recent_turns else None,
        )
        if not opts.legs:
            raise InvalidInputError("at least one retrieval leg is needed")
        if opts.recent_turns:
            turns = redact_stored(
                opts.recent_turns, tenant_id=scope.tenant_id, settings=deps.settings
            )
            opts = (
                opts
                if turns == opts.recent_turns
                else opts.model_copy(update={"recent_turns": turns})
            )
        if as_of is not None:
            return self._history.search_as_of(scope, query, as_of=as_of, options=opts)
        embedder = deps.embedder if "dense" in opts.legs else None
        extra_legs = deps.dense_legs(searching=True) if embedder is not None else {}
        if weight_fn is None and opts.retention_weight > 0:
            weight_fn = retention_weight_fn(
                opts.retention_weight, self._retention_params(), deps.clock()
            )
        result = guarded_search(  # run_search + the cross-tenant alarm (retrieval.guarded)
            query,
            scope=scope,
            options=opts,
            store=deps.store,
            embedder=embedder,
            weight_fn=weight_fn,
            reranker=deps.reranker,
            extra_legs=extra_legs,
        )
        if save_trace:
            deps.store.save_trace(stored_trace(result.trace, deps.settings), scope=scope)
            self._bookkeeping.after_search(scope, query, result)  # access counts, restore
        if deps.settings.gc_freeze:
            freeze_once()  # once per process: no more 70-160 ms full collections mid-search
        return result

    def replay(self, scope: Scope, trace_id: uuid.UUID) -> SearchResult:
        """Re-run a stored trace's query with its stored configuration (a new trace)."""
        trace = self.get_trace(scope, trace_id)
        return self.search(
            scope, trace.query, options=SearchOptions.from_trace_config(trace.config)
        )

    def get_trace(self, scope: Scope, trace_id: uuid.UUID) -> Trace:
        """One stored trace. Raises MemoryNotFoundError."""
        return self._deps.store.get_trace(trace_id, scope=check_scope(scope))

    def list_traces(self, scope: Scope, *, limit: int = 50, cursor: str | None = None) -> Page:
        """Stored traces newest first (dicts ``{id, query, created_at, returned}``)."""
        return self._deps.store.list_traces(
            scope=check_scope(scope), limit=self._deps.page_limit(limit), cursor=cursor
        )
