"""``MemoryEngine``: the facade every caller uses (CLI, dashboard, MCP server, benchmarks).

Every method takes a ``Scope`` first; there is no unscoped call. Cross-tenant reads go through
``tenant_counts`` only, which the store audits.
"""

from __future__ import annotations

import logging
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import ValidationError

from memory_engine.context.service import ContextMixin
from memory_engine.deps import check_scope
from memory_engine.edits.conflicts import ConflictsMixin
from memory_engine.edits.service import EDITABLE_FIELDS, EditsMixin
from memory_engine.errors import InvalidInputError, error_from_dict
from memory_engine.history.service import AsOfMixin
from memory_engine.lifecycle.service import LifecycleMixin
from memory_engine.models import (
    MemorySource,
    MemoryType,
    Page,
    Scope,
    SearchResult,
    Trace,
)
from memory_engine.reads.service import ReadsMixin
from memory_engine.retrieval.gcfreeze import freeze_once
from memory_engine.retrieval.guarded import guarded_search
from memory_engine.retrieval.pipeline import SearchOptions
from memory_engine.retrieval.weighting import WeightFn, retention_weight_fn
from memory_engine.write.guard import clean_text
from memory_engine.write.ingest import Turn
from memory_engine.write.raw import WriteRequest, WriteResult, write_batch

log = logging.getLogger(__name__)

#: Longest accepted search query, in characters.
MAX_QUERY_CHARS = 4000

__all__ = ["EDITABLE_FIELDS", "MAX_QUERY_CHARS", "MemoryEngine"]


class MemoryEngine(ReadsMixin, EditsMixin, LifecycleMixin, AsOfMixin, ContextMixin, ConflictsMixin):
    """Agent memory: write, ingest, search, inspect, edit and audit, per tenant.

    Args:
        settings: engine settings (default: read from ``MEMORY_*`` env and ``.env``).
        store: a ``MemoryStore`` (default: built from settings on first use).
        embedder: an ``Embedder`` (default: built from settings on first write or search).
        extractor: turns one input into memories (default: raw mode, one memory per chunk).

    The read calls live in ``engine_reads.ReadsMixin``, the edits in ``engine_edits.EditsMixin``
    and the wiring (store, embedder, limits) in ``engine_base.EngineBase``.
    """

    # ------------------------------------------------------------------ write
    def write(
        self,
        scope: Scope,
        text: str,
        *,
        source: MemorySource = MemorySource.MANUAL,
        source_ref: str | None = None,
        observed_at: Any = None,
        memory_type: MemoryType = MemoryType.EPISODIC,
        importance: float = 0.5,
        tags: Sequence[str] = (),
        metadata: dict[str, Any] | None = None,
        actor: str = "api",
        reason: str | None = None,
        mode: Literal["raw", "extract"] | None = None,
        wait: bool = True,
    ) -> WriteResult:
        """Remember ``text``. Raises the typed error of a bad input.

        Args:
            mode: ``raw`` (one memory per chunk) or ``extract`` (should-remember, facts,
                duplicates and conflicts; see ``PipelineMixin.write_extract``); default
                ``MEMORY_WRITE_MODE``.
            wait: False = accept into the durable queue and return at once: the result has
                only ``write_id`` (poll ``write_status``); the write survives a process kill.

        Returns:
            WriteResult with one outcome per stored memory: ``created`` or ``duplicate``
            (extract mode adds ``remembered``, ``reason``, ``actions``, ``warnings``).

        Raises:
            EmptyContentError, ContentTooLargeError, InvalidInputError, EmbeddingMismatchError,
            RateLimitedError (more than ``MEMORY_WRITE_RATE_PER_SESSION`` writes/s for 30 s).
        """
        clean_text(text, max_chars=self.settings.max_input_chars)  # raises the typed error
        mode = mode or self.settings.write_mode
        req = WriteRequest(
            text=text,
            source=source,
            source_ref=source_ref,
            observed_at=observed_at,
            memory_type=memory_type,
            importance=importance,
            tags=tuple(tags),
            metadata=metadata or {},
        )
        if mode == "extract" or not wait:
            self.rate_limit(check_scope(scope))
            if not wait:
                return WriteResult(index=0, write_id=self.enqueue_write(scope, req, mode=mode))
            result = self.write_extract(scope, req, actor=actor)
            if result.error:
                raise error_from_dict(result.error)
            return result
        result = self.write_many(scope, [req], actor=actor, reason=reason)[0]
        if result.error:
            raise error_from_dict(result.error)
        return result

    def write_many(
        self,
        scope: Scope,
        requests: Sequence[WriteRequest],
        *,
        actor: str = "api",
        reason: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> list[WriteResult]:
        """Write a batch: each bad item gets its typed error, every good item is stored."""
        scope = check_scope(scope)
        return write_batch(
            requests,
            scope=scope,
            settings=self.settings,
            store=self.store,
            embedder=self.embedder,
            extractor=self._extractor,
            actor=actor,
            reason=reason,
            progress=progress,
        )

    def ingest(
        self,
        scope: Scope,
        conversation: Sequence[Turn],
        *,
        source: MemorySource = MemorySource.CONVERSATION,
        actor: str = "ingest",
        progress: Callable[[int], None] | None = None,
        mode: Literal["raw", "extract"] = "raw",
    ) -> list[WriteResult]:
        """Store each turn as one episodic memory (speaker, time and turn id kept).

        ``mode="extract"`` runs each turn through the extract pipeline instead (assistant and
        system turns skipped), see ``PipelineMixin.ingest_extract``.
        """
        requests = [
            WriteRequest(
                text=turn.text if mode == "extract" else turn.content(),
                source=source,
                source_ref=turn.turn_id,
                session_id=turn.session_id,
                observed_at=turn.observed_at,
                memory_type=MemoryType.EPISODIC,
                metadata={"speaker": turn.speaker, **turn.metadata}
                if turn.speaker
                else dict(turn.metadata),
            )
            for turn in conversation
        ]
        if mode == "extract":
            return self.ingest_extract(scope, requests, actor=actor, progress=progress)
        return self.write_many(scope, requests, actor=actor, reason="ingest", progress=progress)

    # ------------------------------------------------------------------ search
    def search_options(self, **overrides: Any) -> SearchOptions:
        """``settings.retrieval`` with ``overrides`` (None values ignored) validated on top.

        Raises:
            InvalidInputError: ``k`` above ``limits.search_max_k``, or an override out of range
                (``field`` names it).
        """
        s = self.settings
        given = {name: value for name, value in overrides.items() if value is not None}
        k = given.get("k", s.retrieval.k)
        if k > s.limits.search_max_k:
            raise InvalidInputError(f"k must be <= {s.limits.search_max_k}", k=k)
        try:
            return SearchOptions.model_validate({**s.retrieval.model_dump(), **given})
        except ValidationError as exc:
            first = exc.errors()[0]
            field = ".".join(str(p) for p in first.get("loc", ()))
            raise InvalidInputError(f"invalid {field}: {first.get('msg')}", field=field) from exc

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
            comparisons, golden-set runs, benchmarks). With ``as_of`` (UTC), searches the store as it was then
            (``search_as_of``: rebuilt from events, facts valid at that time; no trace stored,
            no access counted).

        Raises:
            EmptyContentError, InvalidInputError, EmbeddingMismatchError, StoreError.
        """
        scope = check_scope(scope)
        query = clean_text(
            query, max_chars=MAX_QUERY_CHARS, field="query", limit_name="maximum query length"
        )
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
        if as_of is not None:
            return self.search_as_of(scope, query, as_of=as_of, options=opts)
        embedder = self.embedder if "dense" in opts.legs else None
        if weight_fn is None and opts.retention_weight > 0:
            weight_fn = retention_weight_fn(
                opts.retention_weight, self.retention_params(), datetime.now(UTC)
            )
        result = guarded_search(  # run_search + the cross-tenant alarm (security.tenant_guard)
            query,
            scope=scope,
            options=opts,
            store=self.store,
            embedder=embedder,
            weight_fn=weight_fn,
        )
        if save_trace:
            self.store.save_trace(result.trace, scope=scope)
            self._after_search(scope, query, result)  # access counts, restore on match
        if self.settings.gc_freeze:
            freeze_once()  # once per process: no more 70-160 ms full collections mid-search
        return result

    def replay(self, scope: Scope, trace_id: uuid.UUID) -> SearchResult:
        """Re-run a stored trace's query with its stored configuration (a new trace)."""
        trace = self.get_trace(scope, trace_id)
        return self.search(scope, trace.query, options=SearchOptions(**trace.config))

    def get_trace(self, scope: Scope, trace_id: uuid.UUID) -> Trace:
        """One stored trace. Raises MemoryNotFoundError."""
        return self.store.get_trace(trace_id, scope=check_scope(scope))

    def list_traces(self, scope: Scope, *, limit: int = 50, cursor: str | None = None) -> Page:
        """Stored traces newest first (dicts ``{id, query, created_at, returned}``)."""
        return self.store.list_traces(
            scope=check_scope(scope), limit=self._limit(limit), cursor=cursor
        )
