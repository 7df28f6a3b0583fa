"""Raw-mode write path: guard -> chunk -> embed (batches) -> exact dedupe -> commit.

No LLM here. The extraction pipeline (another stage) plugs in through ``Extractor``: it turns
one guarded input into facts; raw mode's extractor returns the chunks as episodic memories.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from datetime import datetime
from typing import Any, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.embedding.base import Embedder
from memory_engine.entities import memory_terms
from memory_engine.errors import (
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
    redact_stored,
)
from memory_engine.stores.base import BulkLoader, InsertOutcome, MemoryStore, NewMemory
from memory_engine.text import clean_text
from memory_engine.write.legs import embed_legs, fitted_legs, item_legs
from memory_engine.write.request_checks import (
    check_metadata,
    check_raw_untrusted,
    screen_request_fields,
)


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


#: Batches of at least this many memories use the store's bulk path (see ``write_batch``).
BULK_MIN_MEMORIES = 1000
#: Memories embedded in one embedder call. The offline models sort a call's texts by length
#: before cutting it into forward passes, so a larger window pads less (LoCoMo turns: ~1.5x
#: faster than embedding each 32-memory batch on its own).
EMBED_WINDOW_MEMORIES = 256
#: Embedded groups (``settings.embedding.batch_size`` memories of whole requests each) are
#: committed together in one transaction once they hold at least this many memories.
COMMIT_MAX_MEMORIES = 128

Group = list[tuple[int, Memory]]  # (request index, memory), whole requests only
#: The extra legs' vectors of each memory of a group (``NewMemory.legs``), in group order.
GroupLegs = list[dict[str, tuple[float, ...]]]
#: A group with its vectors (float32, one row per memory) or the typed error of embedding it,
#: and its memories' leg vectors (empty dicts when no leg is written or the group failed).
Embedded = tuple[Group, np.ndarray | MemoryEngineError, GroupLegs]


def _groups(pending: list[tuple[int, Memory]], size: int) -> list[Group]:
    """Cut ``pending`` into groups of whole requests of about ``size`` memories: a failure
    never leaves a request half-written."""
    groups: list[Group] = []
    current: Group = []
    for idx, mem in pending:
        if current and len(current) >= size and current[-1][0] != idx:
            groups.append(current)
            current = []
        current.append((idx, mem))
    if current:
        groups.append(current)
    return groups


def _embed_window(
    window: list[Group], embedder: Embedder, legs: Mapping[str, Embedder] | None = None
) -> list[Embedded]:
    """Embed every group of ``window`` in one embedder call; when that call fails, group by
    group, so only the groups that fail on their own get the error. Then the memories of the
    groups that embedded, once per extra leg (``write.legs.embed_legs``; a failing leg is
    left out, never failing the write)."""

    def embed(groups: list[Group]) -> np.ndarray:
        texts = [m.content for g in groups for _, m in g]
        return np.asarray(embedder.embed(texts), dtype=np.float32).reshape(len(texts), -1)

    primary: list[tuple[Group, np.ndarray | MemoryEngineError]] = []
    try:
        vectors = embed(window)
    except MemoryEngineError as exc:
        if len(window) == 1:
            primary = [(window[0], exc)]
        for group in window if len(window) > 1 else ():
            try:
                primary.append((group, embed([group])))
            except MemoryEngineError as err:
                primary.append((group, err))
    else:
        start = 0
        for group in window:
            primary.append((group, vectors[start : start + len(group)]))
            start += len(group)
    embedded = [m.content for g, v in primary if not isinstance(v, MemoryEngineError) for _, m in g]
    leg_vectors = embed_legs(legs, embedded)
    result: list[Embedded] = []
    row = 0
    for group, vecs in primary:
        if isinstance(vecs, MemoryEngineError):
            result.append((group, vecs, [{} for _ in group]))
            continue
        result.append((group, vecs, [item_legs(leg_vectors, row + i) for i in range(len(group))]))
        row += len(group)
    return result


def embedded_groups(
    groups: list[Group], embedder: Embedder, legs: Mapping[str, Embedder] | None = None
) -> Iterator[Embedded]:
    """Each group with its vectors and leg vectors, in order, embedded
    ``EMBED_WINDOW_MEMORIES`` at a time.

    With more than one window, the next window is embedded in a worker thread while the
    caller commits the current one (the model's matrix products release the GIL, the
    database round trips wait on the network): ingest then takes about as long as the slower
    of the two instead of their sum. The embedder is called from one thread at a time.
    """
    windows: list[list[Group]] = []
    size = 0
    for group in groups:
        if not windows or size >= EMBED_WINDOW_MEMORIES:
            windows.append([])
            size = 0
        windows[-1].append(group)
        size += len(group)
    if len(windows) <= 1:
        for window in windows:
            yield from _embed_window(window, embedder, legs)
        return
    with ThreadPoolExecutor(1, thread_name_prefix="memory-embed") as pool:
        future = pool.submit(_embed_window, windows[0], embedder, legs)
        for following in [*windows[1:], None]:
            done = future.result()
            if following is not None:
                future = pool.submit(_embed_window, following, embedder, legs)
            yield from done


def _new_memory(mem: Memory, vector: np.ndarray, legs: dict[str, tuple[float, ...]]) -> NewMemory:
    return NewMemory(
        memory=mem,
        embedding=tuple(vector.tolist()),
        terms=tuple(memory_terms(mem.content, mem.entities)),
        legs=legs,
    )


def _write_bulk(
    groups: list[Group],
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
) -> None:
    """One ``bulk_insert`` of every group that embeds, with the extra legs' vectors; the
    store streams the items while the next windows embed (float32 vectors, so memory stays
    bounded)."""
    flat: list[int] = []
    seen: set[int] = set()

    def items() -> Iterator[NewMemory]:
        for group, vectors, group_legs in embedded_groups(groups, embedder, legs):
            seen.update(idx for idx, _ in group)
            if isinstance(vectors, MemoryEngineError):
                for idx, _ in group:
                    failed[idx] = vectors.to_dict()
            else:
                for (idx, mem), vector, mem_legs in zip(group, vectors, group_legs, strict=True):
                    flat.append(idx)
                    yield _new_memory(mem, vector, mem_legs)
            if progress:
                progress(len(seen))

    try:
        stored = bulk_insert(items(), scope=scope, actor=actor, reason=reason)
    except MemoryEngineError as exc:  # one transaction: none of them was stored
        # Every request not already failed by its embedding, including those the store had
        # not yet read when it refused (it may stop at the first item).
        for idx in {idx for group in groups for idx, _ in group} - failed.keys():
            failed[idx] = exc.to_dict()
            outcomes[idx] = []
        return
    for idx, outcome in zip(flat, stored, strict=True):
        outcomes[idx].append(outcome)
    if progress:
        progress(len(seen))


def _commit_group(
    group: Group,
    items: list[NewMemory],
    store: MemoryStore,
    *,
    scope: Scope,
    actor: str,
    reason: str | None,
) -> tuple[dict[int, list[InsertOutcome]], dict[int, dict[str, Any]]]:
    """Insert one group (``items``: its memories ready to insert, in group order) in one
    store transaction; when it fails, once more without the leg vectors the store's leg
    records no longer take (``write.legs.fitted_legs``), then request by request, so only the
    requests that fail on their own get the error (and none is half-written).

    Returns:
        (outcomes of the stored requests, errors of the failed ones), by request index.
    """
    try:
        stored = store.insert(items, scope=scope, actor=actor, reason=reason)
    except MemoryEngineError as exc:
        fitted = fitted_legs(store, items)  # a leg replaced meanwhile never fails the write
        if fitted is not None:
            return _commit_group(group, fitted, store, scope=scope, actor=actor, reason=reason)
        requests = sorted({idx for idx, _ in group})
        if len(requests) == 1:
            return {}, {requests[0]: exc.to_dict()}
        done: dict[int, list[InsertOutcome]] = {}
        errors: dict[int, dict[str, Any]] = {}
        for idx in requests:
            rows = [i for i, (j, _) in enumerate(group) if j == idx]
            ok, bad = _commit_group(
                [group[i] for i in rows],
                [items[i] for i in rows],
                store,
                scope=scope,
                actor=actor,
                reason=reason,
            )
            done.update(ok)
            errors.update(bad)
        return done, errors
    out: dict[int, list[InsertOutcome]] = {}
    for (idx, _), outcome in zip(group, stored, strict=True):
        out.setdefault(idx, []).append(outcome)
    return out, {}


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
    memories are cut into groups of whole requests of ``settings.embedding.batch_size``
    memories, embedded ``EMBED_WINDOW_MEMORIES`` at a time (the next window in a worker
    thread while the current one is committed, see ``embedded_groups``; a failed window call
    is retried group by group, and a group that still fails gets the typed error), and
    committed about ``COMMIT_MAX_MEMORIES`` memories per store transaction (each memory with
    its ``create`` event, its keyword terms and entity links). A transaction that fails is
    retried request by request, so only the requests that fail on their own get the typed
    error; no request is ever half-written.

    Batches of at least ``BULK_MIN_MEMORIES`` memories go to the store's ``bulk_insert`` when
    it has one (PostgreSQL): the items stream into it while they embed (a group whose
    embedding fails gets the typed error), all the others committed in ONE transaction (a
    store failure gives every one of them the error; nothing is half-written either way).

    Args:
        progress: called with the number of requests finished after each committed
            transaction; on the bulk path, after each embedded group, and once more after the
            commit.
        legs: extra dense legs (leg -> embedder): the memories are embedded once per leg
            with their window and the vectors written by the same insert (``NewMemory.legs``).
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
    failed: dict[int, dict[str, Any]] = {}
    batch = settings.embedding.batch_size
    if isinstance(store, BulkLoader) and len(pending) >= BULK_MIN_MEMORIES:
        _write_bulk(
            _groups(pending, batch),
            store.bulk_insert,
            embedder,
            outcomes,
            failed,
            progress,
            scope=scope,
            actor=actor,
            reason=reason,
            legs=legs,
        )
    else:
        finished: set[int] = set()
        ready: list[tuple[Group, list[NewMemory]]] = []  # embedded, not yet committed

        def commit() -> None:
            if not ready:
                return
            group = [item for g, _ in ready for item in g]
            items = [item for _, its in ready for item in its]
            ready.clear()
            done, errors = _commit_group(
                group, items, store, scope=scope, actor=actor, reason=reason
            )
            for idx, stored in done.items():
                outcomes[idx].extend(stored)
            for idx, error in errors.items():
                failed[idx] = error
                outcomes[idx] = []
            finished.update(idx for idx, _ in group)
            if progress:
                progress(len(finished))

        for group, vectors, group_legs in embedded_groups(_groups(pending, batch), embedder, legs):
            if isinstance(vectors, MemoryEngineError):
                # no vectors: none of these requests' memories is stored
                for idx, _ in group:
                    failed[idx] = vectors.to_dict()
                    outcomes[idx] = []
                    finished.add(idx)
                commit()
                if progress:
                    progress(len(finished))
                continue
            ready.append(
                (
                    group,
                    [
                        _new_memory(m, v, g)
                        for (_, m), v, g in zip(group, vectors, group_legs, strict=True)
                    ],
                )
            )
            if sum(len(g) for g, _ in ready) >= COMMIT_MAX_MEMORIES:
                commit()
        commit()
    for idx, error in failed.items():
        results[idx] = WriteResult(index=idx, error=error)
    return [
        results[i].model_copy(update={"outcomes": outcomes[i]}) if results[i].ok else results[i]
        for i in sorted(results)
    ]
