"""``MemoryEngine``: the facade every caller uses (CLI, dashboard, MCP server, benchmarks).

Every method takes a ``Scope`` first; there is no unscoped call. Cross-tenant reads go through
``tenant_counts`` only, which the store audits.
"""

from __future__ import annotations

import csv
import difflib
import io
import json
import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import ValidationError

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.embedding.base import Embedder
from memory_engine.errors import InvalidInputError, error_from_dict
from memory_engine.ingest import Turn
from memory_engine.models import (
    EventAction,
    Memory,
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Page,
    Scope,
    SearchResult,
    Trace,
)
from memory_engine.retrieval.pipeline import SearchOptions, run_search
from memory_engine.stores.base import MemoryStore, StoreStats
from memory_engine.write.guard import clean_text
from memory_engine.write.raw import Extractor, WriteRequest, WriteResult, raw_extractor, write_batch

log = logging.getLogger(__name__)

#: Longest accepted search query, in characters.
MAX_QUERY_CHARS = 4000

EDITABLE_FIELDS = ("content", "importance", "memory_type", "tags", "entities", "confidence")


def _check_scope(scope: Any) -> Scope:
    if not isinstance(scope, Scope):
        raise InvalidInputError("scope must be a memory_engine.Scope (use Scope.of(tenant))")
    return scope


class MemoryEngine:
    """Agent memory: write, ingest, search, inspect, edit and audit, per tenant.

    Args:
        settings: engine settings (default: read from ``MEMORY_*`` env and ``.env``).
        store: a ``MemoryStore`` (default: built from settings on first use).
        embedder: an ``Embedder`` (default: built from settings on first write or search).
        extractor: turns one input into memories (default: raw mode, one memory per chunk).
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: MemoryStore | None = None,
        embedder: Embedder | None = None,
        extractor: Extractor | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self._store = store
        self._embedder = embedder
        self._embedding_checked = False
        self._extractor = extractor or raw_extractor(self.settings)
        self._lock = threading.Lock()

    # ------------------------------------------------------------------ wiring
    @property
    def store(self) -> MemoryStore:
        """The store (opened on first use). Raises StoreUnavailableError."""
        if self._store is None:
            with self._lock:
                if self._store is None:
                    from memory_engine.stores import build_store

                    self._store = build_store(self.settings)
        return self._store

    @property
    def embedder(self) -> Embedder:
        """The embedder, checked against the store's recorded model and dimension.

        Raises:
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    from memory_engine.embedding import build_embedder

                    self._embedder = build_embedder(self.settings)
        if not self._embedding_checked:
            self.store.ensure_embedding(self._embedder.model_name, self._embedder.dim)
            self._embedding_checked = True
        return self._embedder

    def close(self) -> None:
        """Close the store's connections. Safe to call twice."""
        if self._store is not None:
            self._store.close()

    def __enter__(self) -> MemoryEngine:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

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
    ) -> WriteResult:
        """Remember ``text`` (chunked when long). Raises the typed error of a bad input.

        Returns:
            WriteResult with one outcome per chunk: ``created`` or ``duplicate``.

        Raises:
            EmptyContentError, ContentTooLargeError, InvalidInputError, EmbeddingMismatchError.
        """
        clean_text(text, max_chars=self.settings.max_input_chars)  # raises the typed error
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
        scope = _check_scope(scope)
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
    ) -> list[WriteResult]:
        """Store each turn as one episodic memory (speaker, time and turn id kept)."""
        requests = [
            WriteRequest(
                text=turn.content(),
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
        return self.write_many(scope, requests, actor=actor, reason="ingest", progress=progress)

    # ------------------------------------------------------------------ search
    def search_options(self, **overrides: Any) -> SearchOptions:
        """Default ``SearchOptions`` from settings, with ``overrides`` (None values ignored)."""
        s = self.settings
        base = {
            "k": s.search_k,
            "candidates_per_leg": s.candidates_per_leg,
            "rrf_k": s.rrf_k,
            "min_score": s.min_score,
            "min_cosine": s.min_cosine,
            "token_budget": s.token_budget,
        }
        base.update({k: v for k, v in overrides.items() if v is not None})
        if base["k"] > s.search_max_k:
            raise InvalidInputError(f"k must be <= {s.search_max_k}", k=base["k"])
        try:
            return SearchOptions(**base)
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
        options: SearchOptions | None = None,
        save_trace: bool = True,
    ) -> SearchResult:
        """Hybrid search: dense + keyword legs, RRF, threshold, top-k, token budget, block.

        Returns:
            SearchResult whose ``trace`` holds every candidate of every leg with named scores
            (``cosine`` in [-1,1], ``bm25`` >= 0, ``rrf``; higher is better), ranks, drop
            reasons and per-stage timings (ms). The trace is stored unless ``save_trace=False``.

        Raises:
            EmptyContentError, InvalidInputError, EmbeddingMismatchError, StoreError.
        """
        scope = _check_scope(scope)
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
        )
        if not opts.legs:
            raise InvalidInputError("at least one retrieval leg is needed")
        embedder = self.embedder if "dense" in opts.legs else None
        result = run_search(query, scope=scope, options=opts, store=self.store, embedder=embedder)
        if save_trace:
            self.store.save_trace(result.trace, scope=scope)
        return result

    def replay(self, scope: Scope, trace_id: uuid.UUID) -> SearchResult:
        """Re-run a stored trace's query with its stored configuration (a new trace)."""
        trace = self.get_trace(scope, trace_id)
        return self.search(scope, trace.query, options=SearchOptions(**trace.config))

    def get_trace(self, scope: Scope, trace_id: uuid.UUID) -> Trace:
        """One stored trace. Raises MemoryNotFoundError."""
        return self.store.get_trace(trace_id, scope=_check_scope(scope))

    def list_traces(self, scope: Scope, *, limit: int = 50, cursor: str | None = None) -> Page:
        """Stored traces newest first (dicts ``{id, query, created_at, returned}``)."""
        return self.store.list_traces(
            scope=_check_scope(scope), limit=self._limit(limit), cursor=cursor
        )

    # ------------------------------------------------------------------ inspect
    def _limit(self, limit: int) -> int:
        if limit < 1:
            raise InvalidInputError("limit must be >= 1", limit=limit)
        return min(limit, self.settings.list_max_limit)

    def get(self, scope: Scope, memory_id: uuid.UUID | str) -> Memory:
        """One memory of the scope (any status). Raises MemoryNotFoundError."""
        return self.store.get(_as_uuid(memory_id), scope=_check_scope(scope))

    def list(
        self,
        scope: Scope,
        *,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """Memories newest first, keyset-paginated; ``total`` = count under the filter."""
        return self.store.list(
            scope=_check_scope(scope), filters=filters, limit=self._limit(limit), cursor=cursor
        )

    def facet_counts(
        self, scope: Scope, *, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """Counts per memory_type, status and source under ``filters``."""
        return self.store.facet_counts(scope=_check_scope(scope), filters=filters)

    def history(self, scope: Scope, memory_id: uuid.UUID | str) -> Page:
        """Audit events of one memory, oldest first."""
        return self.store.history(_as_uuid(memory_id), scope=_check_scope(scope))

    def events(self, scope: Scope, *, limit: int = 100, cursor: str | None = None) -> Page:
        """Audit events of the tenant, newest first."""
        return self.store.events(scope=_check_scope(scope), limit=self._limit(limit), cursor=cursor)

    def stats(self, scope: Scope, *, days: int = 90) -> StoreStats:
        """Counts by type/status/source and writes per day (UTC) of one tenant."""
        return self.store.stats(scope=_check_scope(scope), days=days)

    def tenant_counts(self, *, actor: str, reason: str = "overview") -> dict[str, int]:
        """Memories per tenant, across tenants: the one audited admin path."""
        return self.store.admin_tenant_counts(actor=actor, reason=reason)

    def export(
        self,
        scope: Scope,
        *,
        filters: MemoryFilter | None = None,
        fmt: str = "json",
        max_rows: int = 100_000,
    ) -> tuple[bytes, bool]:
        """Export memories under ``filters`` as ``json`` or ``csv`` bytes (UTF-8).

        Returns:
            (data, truncated): ``truncated`` is True when more than ``max_rows`` matched.
        """
        if fmt not in ("json", "csv"):
            raise InvalidInputError("fmt must be 'json' or 'csv'", fmt=fmt)
        rows: list[dict[str, Any]] = []
        cursor = None
        truncated = False
        while True:
            page = self.list(
                scope, filters=filters, limit=self.settings.list_max_limit, cursor=cursor
            )
            for m in page.items:
                if len(rows) >= max_rows:
                    truncated = True
                    break
                rows.append(m.public_dict())
            cursor = page.next_cursor
            if truncated or not cursor:
                break
        if fmt == "json":
            return json.dumps(rows, ensure_ascii=False, indent=1).encode("utf-8"), truncated
        buf = io.StringIO()
        fields = list(rows[0]) if rows else list(Memory.model_fields)
        writer = csv.DictWriter(buf, fieldnames=[f for f in fields if f != "embedding"])
        writer.writeheader()
        for r in rows:
            writer.writerow(
                {
                    k: json.dumps(v, ensure_ascii=False) if isinstance(v, (list, dict)) else v
                    for k, v in r.items()
                }
            )
        return buf.getvalue().encode("utf-8"), truncated

    # ------------------------------------------------------------------ edit
    def preview_update(
        self, scope: Scope, memory_id: uuid.UUID | str, **changes: Any
    ) -> dict[str, Any]:
        """What ``update`` would change: ``{field: (before, after)}`` plus ``content_diff``.

        Unchanged fields are omitted; ``content_diff`` is a unified diff (may be empty).
        """
        mem = self.get(scope, memory_id)
        normalised = self._normalise_changes(changes)
        diff: dict[str, Any] = {}
        for key, value in normalised.items():
            before = getattr(mem, key)
            if before != value:
                diff[key] = (before, value)
        content_diff = ""
        if "content" in diff:
            content_diff = "\n".join(
                difflib.unified_diff(
                    mem.content.splitlines(),
                    diff["content"][1].splitlines(),
                    "before",
                    "after",
                    lineterm="",
                )
            )
        return {"fields": diff, "content_diff": content_diff, "version": mem.version}

    def _normalise_changes(self, changes: dict[str, Any]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, value in changes.items():
            if value is None:
                continue
            if key not in EDITABLE_FIELDS:
                raise InvalidInputError(f"field {key!r} cannot be edited", field=key)
            if key == "content":
                value = clean_text(value, max_chars=self.settings.max_input_chars, field="content")
            elif key in ("importance", "confidence"):
                value = float(value)
                if not 0.0 <= value <= 1.0:
                    raise InvalidInputError(f"{key} must be in [0, 1]", field=key, value=value)
            elif key == "memory_type":
                value = MemoryType(value)
            elif key in ("tags", "entities"):
                value = tuple(dict.fromkeys(str(t).strip() for t in value if str(t).strip()))
            out[key] = value
        return out

    def update(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str,
        actor: str = "api",
        content: str | None = None,
        importance: float | None = None,
        memory_type: MemoryType | str | None = None,
        tags: Sequence[str] | None = None,
        entities: Sequence[str] | None = None,
        confidence: float | None = None,
    ) -> Memory:
        """Edit a memory; re-embeds when the content changes. ``reason`` is required.

        Raises:
            InvalidInputError (no reason, bad value), MemoryNotFoundError, VersionConflictError.
        """
        scope = _check_scope(scope)
        if not reason or not str(reason).strip():
            raise InvalidInputError("a reason is required for every edit")
        changes = self._normalise_changes(
            {
                "content": content,
                "importance": importance,
                "memory_type": memory_type,
                "tags": tags,
                "entities": entities,
                "confidence": confidence,
            }
        )
        if not changes:
            raise InvalidInputError("nothing to change")
        embedding = terms = None
        if "content" in changes:
            changes["content_hash"] = textmod.content_hash(changes["content"])
            embedding = self.embedder.embed([changes["content"]])[0]
            terms = textmod.tokenize(changes["content"])
        return self.store.update(
            _as_uuid(memory_id),
            scope=scope,
            expected_version=expected_version,
            changes=changes,
            embedding=embedding,
            terms=terms,
            actor=actor,
            reason=reason,
        )

    def _set_status(
        self,
        status: MemoryStatus,
        scope: Scope,
        memory_id: uuid.UUID | str,
        expected_version: int,
        reason: str | None,
        actor: str,
    ) -> Memory:
        """Change the status with its event action (archive, restore or delete)."""
        return self.store.update(
            _as_uuid(memory_id),
            scope=_check_scope(scope),
            expected_version=expected_version,
            changes={"status": status},
            actor=actor,
            reason=reason,
            action=_STATUS_ACTIONS[status].value,
        )

    def archive(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str | None = None,
        actor: str = "api",
    ) -> Memory:
        """Hide a memory from default search (kept, restorable)."""
        return self._set_status(
            MemoryStatus.ARCHIVED, scope, memory_id, expected_version, reason, actor
        )

    def restore(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str | None = None,
        actor: str = "api",
    ) -> Memory:
        """Make an archived or deleted memory active again."""
        return self._set_status(
            MemoryStatus.ACTIVE, scope, memory_id, expected_version, reason, actor
        )

    def delete(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str | None = None,
        actor: str = "api",
    ) -> Memory:
        """Soft delete: status ``deleted`` (hidden everywhere by default; purge removes it)."""
        return self._set_status(
            MemoryStatus.DELETED, scope, memory_id, expected_version, reason, actor
        )

    def purge(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        reason: str | None = None,
        actor: str = "api",
    ) -> None:
        """Hard delete: row, vector and keyword terms removed; a ``purge`` event remains.

        Not yet an erasure: earlier audit events' snapshots and stored search traces still hold
        the content (redacting them is part of verified deletion, a separate lifecycle job).
        """
        self.store.purge(_as_uuid(memory_id), scope=_check_scope(scope), actor=actor, reason=reason)


#: The event action of each status change made by archive(), restore() and delete().
_STATUS_ACTIONS = {
    MemoryStatus.ARCHIVED: EventAction.ARCHIVE,
    MemoryStatus.ACTIVE: EventAction.RESTORE,
    MemoryStatus.DELETED: EventAction.DELETE,
}


def _as_uuid(value: uuid.UUID | str) -> uuid.UUID:
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError as exc:
        from memory_engine.errors import MemoryNotFoundError

        raise MemoryNotFoundError(f"no memory {value!r}", memory_id=value) from exc
