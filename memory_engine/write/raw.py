"""Raw-mode write path: guard -> chunk -> embed (batches) -> exact dedupe -> commit.

No LLM here. The extraction pipeline (another stage) plugs in through ``Extractor``: it turns
one guarded input into facts; raw mode's extractor returns the chunks as episodic memories.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.embedding.base import Embedder
from memory_engine.entities import memory_terms
from memory_engine.errors import (
    ContentTooLargeError,
    InvalidInputError,
    MemoryEngineError,
    SensitiveDataError,
)
from memory_engine.models import (
    Memory,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
    ensure_utc,
)
from memory_engine.security.policy import (
    WriteScreen,
    findings_in,
    redact_stored,
    refuse_blocked,
    screen_write,
)
from memory_engine.stores.base import BulkLoader, InsertOutcome, MemoryStore, NewMemory
from memory_engine.text import clean_text
from memory_engine.write.guard import is_memory_tool_call
from memory_engine.write.legs import fill_legs


class WriteRequest(BaseModel):
    """One text to remember, with its provenance."""

    model_config = ConfigDict(frozen=True)

    text: str
    source: MemorySource = MemorySource.MANUAL
    source_ref: str | None = None
    session_id: str | None = None  # used only when the scope has no session_id
    observed_at: datetime | None = None
    memory_type: MemoryType = MemoryType.EPISODIC
    importance: float = Field(0.5, ge=0.0, le=1.0)
    confidence: float = Field(1.0, ge=0.0, le=1.0)
    tags: tuple[str, ...] = ()
    entities: tuple[str, ...] = ()
    metadata: dict[str, Any] = Field(default_factory=dict)


class WriteResult(BaseModel):
    """Outcome of one request: one outcome per stored chunk, or the typed error."""

    model_config = ConfigDict(frozen=True)

    index: int
    outcomes: list[InsertOutcome] = Field(default_factory=list)
    error: dict[str, Any] | None = None  # MemoryEngineError.to_dict()
    # extract mode (write/extract.py): the journal id, decision and actions of the write
    write_id: str | None = None
    remembered: bool | None = None
    reason: str | None = None
    actions: list[dict[str, Any]] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # LLM usage of an extract-mode write: prompt_tokens, completion_tokens, requests, cost
    usage: dict[str, Any] | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def memory_ids(self) -> list[uuid.UUID]:
        return [o.existing_id or o.memory_id for o in self.outcomes]


class Extractor(Protocol):
    """Turns one guarded text into the memories to store (seam for the LLM pipeline)."""

    def __call__(self, scope: Scope, request: WriteRequest, text: str) -> list[Memory]: ...


def raw_extractor(settings: Settings) -> Extractor:
    """Raw mode: each chunk of the text becomes one memory with the request's fields."""

    def extract(scope: Scope, request: WriteRequest, text: str) -> list[Memory]:
        chunks = textmod.chunk_text(
            text, min_chars=settings.write.chunk_min_chars, max_chars=settings.write.chunk_max_chars
        )
        out = []
        for i, chunk in enumerate(chunks):
            meta = dict(request.metadata)
            if len(chunks) > 1:
                meta.update({"chunk": i, "chunks": len(chunks)})
            out.append(
                Memory(
                    tenant_id=scope.tenant_id,
                    user_id=scope.user_id,
                    agent_id=scope.agent_id,
                    session_id=scope.session_id or request.session_id,
                    content=chunk,
                    memory_type=request.memory_type,
                    entities=request.entities,
                    tags=request.tags,
                    importance=request.importance,
                    confidence=request.confidence,
                    source=request.source,
                    source_ref=request.source_ref,
                    observed_at=ensure_utc(request.observed_at),
                    valid_from=ensure_utc(request.observed_at),
                    content_hash=textmod.content_hash(chunk),
                    metadata=meta,
                )
            )
        return out

    return extract


def check_metadata(metadata: dict[str, Any], *, max_bytes: int = 16_384) -> None:
    """Refuse metadata that is not a JSON object of at most ``max_bytes`` (UTF-8).

    Raises:
        InvalidInputError: not JSON-serialisable, or too large.
    """
    try:
        encoded = json.dumps(metadata, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from exc
    if len(encoded.encode("utf-8")) > max_bytes:
        raise InvalidInputError(
            f"metadata is larger than {max_bytes} bytes", size=len(encoded.encode("utf-8"))
        )


#: The fields of a ``WriteRequest`` besides ``text`` that are stored (and so screened).
SCREENED_FIELDS = ("tags", "entities", "metadata", "source_ref")


def screen_request_fields(
    req: WriteRequest, scope: Scope, settings: Settings
) -> tuple[WriteRequest, str, WriteScreen]:
    """``req`` through the write screen: its text by ``screen_write`` (the tenant's PII
    policy, then injection), its other stored fields (``SCREENED_FIELDS``) by the same PII
    policy (``security.policy.redact_stored``), the findings of all of them in
    ``metadata["pii"]``.

    Returns:
        (the screened request, its text cleaned by ``clean_text``, the text's screen).

    Raises:
        SensitiveDataError: the tenant's PII policy is ``block`` and the text or a field holds
            listed PII.
        EmptyContentError, ContentTooLargeError, InvalidInputError: the text itself is bad.
    """
    cleaned = clean_text(req.text, max_chars=settings.write.max_input_chars)
    fields = {name: getattr(req, name) for name in SCREENED_FIELDS}
    in_fields = findings_in(fields, settings)
    refuse_blocked(in_fields, tenant_id=scope.tenant_id, settings=settings)
    screened = screen_write(
        cleaned, source=req.source, tenant_id=scope.tenant_id, settings=settings
    )
    if not screened.pii and not in_fields:
        return req, cleaned, screened
    update = redact_stored(fields, tenant_id=scope.tenant_id, settings=settings)
    pii = [*screened.pii, *in_fields]
    update["metadata"] = {
        **update["metadata"],
        "pii": {
            "policy": screened.policy.value,
            "kinds": sorted({f.kind.value for f in pii}),
            "count": len(pii),
        },
    }
    update["text"] = screened.text
    redacted = req.model_copy(update=update)
    return redacted, clean_text(screened.text, max_chars=settings.write.max_input_chars), screened


def screen_request(req: WriteRequest, scope: Scope, settings: Settings) -> tuple[WriteRequest, str]:
    """``req`` with its text and stored fields through the tenant's PII policy (see
    ``screen_request_fields``; the same object when nothing was found), and the returned
    request's text cleaned (``clean_text``).

    Raises:
        SensitiveDataError: the tenant's PII policy is ``block`` and listed PII was found.
        EmptyContentError, ContentTooLargeError, InvalidInputError: the text itself is bad.
    """
    screened, text, _ = screen_request_fields(req, scope, settings)
    return screened, text


def check_raw_untrusted(req: WriteRequest, text: str, settings: Settings) -> None:
    """Raw mode stores text as is, so it refuses what must never be stored whole.

    Raises:
        InvalidInputError: a call of the memory tools themselves (never stored).
        ContentTooLargeError: a tool output over ``MEMORY_TOOL_OUTPUT_MAX_CHARS`` (use extract
            mode, which reduces it to facts).
    """
    if is_memory_tool_call(text, req.metadata):
        raise InvalidInputError("calls of the memory tools are never stored as memories")
    if req.source == MemorySource.TOOL_OUTPUT and len(text) > settings.write.tool_output_max_chars:
        raise ContentTooLargeError(
            f"tool output has {len(text):,} characters; raw mode stores at most "
            f"{settings.write.tool_output_max_chars:,} (MEMORY_TOOL_OUTPUT_MAX_CHARS); "
            "use extract mode to keep its conclusions",
            length=len(text),
            limit=settings.write.tool_output_max_chars,
        )


#: Batches of at least this many memories use the store's bulk path (see ``write_batch``).
BULK_MIN_MEMORIES = 1000


def _write_bulk(
    groups: list[list[tuple[int, Memory]]],
    bulk_insert: Callable[..., list[InsertOutcome]],
    embedder: Embedder,
    outcomes: dict[int, list[InsertOutcome]],
    failed: dict[int, dict[str, Any]],
    progress: Callable[[int], None] | None,
    *,
    scope: Scope,
    actor: str,
    reason: str | None,
    legs: Mapping[str, Embedder] | None = None,
    leg_store: object = None,
) -> None:
    """Embed every group (float32, to bound memory), then one ``bulk_insert`` of the rest;
    then the extra dense legs of the created memories (``write.legs.fill_legs``)."""
    embedded: list[tuple[list[tuple[int, Memory]], np.ndarray]] = []
    seen: set[int] = set()
    for batch in groups:
        try:
            vectors = np.asarray(embedder.embed([m.content for _, m in batch]), dtype=np.float32)
        except MemoryEngineError as exc:
            for idx, _ in batch:
                failed[idx] = exc.to_dict()
        else:
            embedded.append((batch, vectors))
        seen.update(idx for idx, _ in batch)
        if progress:
            progress(len(seen))
    items = (
        NewMemory(
            memory=m, embedding=tuple(v.tolist()), terms=tuple(memory_terms(m.content, m.entities))
        )
        for batch, vectors in embedded
        for (_, m), v in zip(batch, vectors, strict=True)
    )
    try:
        stored = bulk_insert(items, scope=scope, actor=actor, reason=reason)
    except MemoryEngineError as exc:  # one transaction: none of them was stored
        for batch, _ in embedded:
            for idx, _ in batch:
                failed[idx] = exc.to_dict()
                outcomes[idx] = []
        return
    flat = [idx for batch, _ in embedded for idx, _ in batch]
    mems = [m for batch, _ in embedded for _, m in batch]
    fill_legs(
        leg_store,
        legs,
        [(m.id, m.content) for m, o in zip(mems, stored, strict=True) if o.status == "created"],
        scope=scope,
    )
    for idx, outcome in zip(flat, stored, strict=True):
        outcomes[idx].append(outcome)
    if progress:
        progress(len(seen))


def write_batch(
    requests: Sequence[WriteRequest],
    *,
    scope: Scope,
    settings: Settings,
    store: MemoryStore,
    embedder: Embedder,
    extractor: Extractor,
    actor: str,
    reason: str | None = None,
    progress: Callable[[int], None] | None = None,
    legs: Mapping[str, Embedder] | None = None,
) -> list[WriteResult]:
    """Write many requests. Bad items get their typed error; good items are all stored.

    Guard and extraction run per item first (so one bad item never aborts the others), then
    memories are embedded in batches of ``settings.embedding.batch_size`` and committed one
    store transaction per embedding batch (each memory with its ``create`` event).

    Batches of at least ``BULK_MIN_MEMORIES`` memories go to the store's ``bulk_insert`` when
    it has one (PostgreSQL): every embedding batch is embedded first (a batch whose embedding
    fails gets the typed error), then all the others are committed in ONE transaction (a store
    failure gives every one of them the error; nothing is half-written either way).

    Args:
        progress: called with the number of requests finished after each committed batch; on
            the bulk path, after each embedded batch, and once more after the commit.
        legs: extra dense legs (leg -> embedder): each committed batch's created memories are
            embedded once per leg and their vectors stored (``write.legs.fill_legs``).
    """
    results: dict[int, WriteResult] = {}
    pending: list[tuple[int, Memory]] = []
    reason = redact_stored(reason, tenant_id=scope.tenant_id, settings=settings)
    for i, req in enumerate(requests):
        try:
            if not isinstance(req, WriteRequest):
                raise InvalidInputError(f"item {i} is not a WriteRequest", index=i)
            cleaned = clean_text(req.text, max_chars=settings.write.max_input_chars)
            check_metadata(req.metadata)
            check_raw_untrusted(req, cleaned, settings)
            req, text, screened = screen_request_fields(req, scope, settings)
            found = {k: v for k, v in screened.metadata().items() if k != "pii"}
            if found:
                req = req.model_copy(update={"metadata": {**req.metadata, **found}})
            update: dict[str, Any] = {"embedding_model": embedder.model_name}
            if screened.quarantine:  # stored for review, not searchable until restored
                update["status"] = MemoryStatus.ARCHIVED
            for mem in extractor(scope, req, text):
                pending.append((i, mem.model_copy(update=update)))
            results[i] = WriteResult(index=i)
        except MemoryEngineError as exc:
            if isinstance(exc, SensitiveDataError):  # refused by the PII policy: audited
                from memory_engine.write.refusals import record_refusal_event  # (import cycle)

                record_refusal_event(store, scope, exc, actor=actor)
            results[i] = WriteResult(index=i, error=exc.to_dict())

    outcomes: dict[int, list[InsertOutcome]] = {i: [] for i in results}
    # Group whole requests so one request's chunks are committed in one transaction:
    # a failure never leaves a request half-written.
    groups: list[list[tuple[int, Memory]]] = []
    current: list[tuple[int, Memory]] = []
    for idx, mem in pending:
        if current and len(current) >= settings.embedding.batch_size and current[-1][0] != idx:
            groups.append(current)
            current = []
        current.append((idx, mem))
    if current:
        groups.append(current)
    done_items: set[int] = set()
    failed: dict[int, dict[str, Any]] = {}
    if isinstance(store, BulkLoader) and len(pending) >= BULK_MIN_MEMORIES:
        _write_bulk(
            groups,
            store.bulk_insert,
            embedder,
            outcomes,
            failed,
            progress,
            scope=scope,
            actor=actor,
            reason=reason,
            legs=legs,
            leg_store=store,
        )
        groups = []
    for batch in groups:
        try:
            vectors = embedder.embed([m.content for _, m in batch])
            items = [
                NewMemory(
                    memory=m, embedding=tuple(v), terms=tuple(memory_terms(m.content, m.entities))
                )
                for (_, m), v in zip(batch, vectors, strict=True)
            ]
            stored = store.insert(items, scope=scope, actor=actor, reason=reason)
        except MemoryEngineError as exc:
            # This group's transaction did not commit: its requests get the typed error and
            # no memory of theirs exists; other groups are unaffected.
            for idx, _ in batch:
                failed[idx] = exc.to_dict()
                outcomes[idx] = []
            if progress:
                progress(len(done_items) + len(failed))
            continue
        fill_legs(
            store,
            legs,
            [
                (m.id, m.content)
                for (_, m), o in zip(batch, stored, strict=True)
                if o.status == "created"
            ],
            scope=scope,
        )
        for (idx, _), outcome in zip(batch, stored, strict=True):
            outcomes[idx].append(outcome)
            done_items.add(idx)
        if progress:
            progress(len(done_items) + len(failed))
    for idx, error in failed.items():
        results[idx] = WriteResult(index=idx, error=error)
    return [
        results[i].model_copy(update={"outcomes": outcomes[i]}) if results[i].ok else results[i]
        for i in sorted(results)
    ]
