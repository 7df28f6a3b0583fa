"""The store capabilities, one small Protocol each, and ``MemoryStore``, their union.

Callers take the capability they use: search takes :class:`SearchIndex`; the entity views
an :class:`EntityIndex`; the tenant guard an
:class:`AuditedSearchIndex`; the copy between stores a :class:`RecordTransfer`; the raw write
path checks for the optional :class:`BulkLoader`. Every backend (PostgreSQL, Qdrant) implements
all of :class:`MemoryStore`.

Rules every implementation keeps (checked by ``tests/conformance``):

* Every method takes ``scope`` (keyword-only); rows of other tenants are invisible: reading,
  updating or deleting another tenant's memory raises MemoryNotFoundError.
* ``user_id``/``agent_id``/``session_id`` of the scope narrow reads (rows must match each id
  that is set).
* Every change writes its audit ``Event`` atomically with the change.
* Updates name the version they read; a stale version raises VersionConflictError.
* Every listing is bounded (``limit`` <= settings.limits.list_max_limit) and returns a ``Page`` with a
  keyset cursor; searches return ``min(k, matching rows)`` candidates.
* Scores: ``cosine`` in [-1, 1] (higher is more similar), ``bm25`` >= 0 (higher is better).
* ``MemoryFilter.entity`` narrows a listing to the memories linked to that entity key.
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict, Field

from memory_engine.models import (
    Candidate,
    Entity,
    Event,
    Memory,
    MemoryFilter,
    MemoryStatus,
    Page,
    Scope,
    Trace,
)


class NewMemory(BaseModel):
    """A memory ready to insert: content, its embedding and keyword terms computed upstream."""

    model_config = ConfigDict(frozen=True)

    memory: Memory
    embedding: tuple[float, ...]
    terms: tuple[str, ...] = Field(default=(), description="Keyword terms (memory_engine.text).")
    legs: dict[str, tuple[float, ...]] = Field(
        default_factory=dict,
        description="Vectors of extra dense legs (EXTRA_LEGS) by leg name, written by the same "
        "insert; each leg must be recorded (VectorLegs.ensure_leg) with this dimension. A leg "
        "left out has no vector for this memory (not found by that leg until reembedded).",
    )


class InsertOutcome(BaseModel):
    """Result of inserting one memory: ``created`` or ``duplicate`` (same content_hash)."""

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    status: str  # "created" | "duplicate"
    existing_id: uuid.UUID | None = None


class StoreStats(BaseModel):
    """Counts of one tenant, for the Overview page."""

    model_config = ConfigDict(frozen=True)

    total: int
    by_type: dict[str, int]
    by_status: dict[str, int]
    by_source: dict[str, int]
    writes_per_day: list[tuple[str, int]]  # (YYYY-MM-DD UTC, count), oldest first


class MemoryRecord(BaseModel):
    """Everything a store holds about one memory id, for copying it to another store.

    ``memory`` is None when the memory was purged (only its events remain). ``embedding`` is
    the stored vector (None with ``memory``); ``terms`` the stored keyword terms with
    repetitions, or None when the store did not keep them (the copy then re-tokenizes the
    content). ``legs`` holds the memory's vectors of the extra dense legs
    (:data:`EXTRA_LEGS`), by leg name, for the legs that have one (never the staging leg).
    ``events`` are the memory's committed events, oldest first, with the ids of the store that
    read them (ids are not copied: the target numbers them anew).
    """

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    memory: Memory | None = None
    embedding: tuple[float, ...] | None = None
    terms: tuple[str, ...] | None = None
    legs: Mapping[str, tuple[float, ...]] = Field(default_factory=dict)
    events: tuple[Event, ...] = ()

    @property
    def empty(self) -> bool:
        """True when the store holds neither the memory nor any event of it."""
        return self.memory is None and not self.events


@runtime_checkable
class SearchIndex(Protocol):
    """The candidate searches of the retrieval legs: dense (cosine) and keyword (BM25).

    What search takes (``retrieval.pipeline``, ``retrieval.legs``, the guarded search); the
    as-of snapshot and the tenant guard implement only this."""

    #: True when ``dense_search`` and ``keyword_search`` may run at the same time from two
    #: threads (the retrieval pipeline then runs the legs of a query concurrently).
    concurrent_legs: bool

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """Nearest memories by cosine; returns min(k, matching rows), scores ``cosine``."""
        ...

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """BM25 (k1=1.2, b=0.75) over stored terms, computed by the store; scores ``bm25``."""
        ...


#: Name of the primary dense leg (the ``embedding`` every store has).
PRIMARY_LEG = "dense"
#: Extra dense legs a store can hold beside the primary one (one vector each per memory).
EXTRA_LEGS: tuple[str, ...] = ("dense_ml",)

#: Internal leg holding the new primary vectors while ``memory-engine reembed`` switches the
#: primary embedder (never searched by the retrieval pipeline).
STAGING_LEG = "dense_next"

#: A leg's vectors are complete (searched) / still being filled by ``memory-engine reembed``.
LegState = Literal["ready", "filling"]


class LegRecord(BaseModel):
    """What a store records of one extra dense leg: its model, dimension and fill state.

    ``state`` is ``ready`` when every searchable memory has the leg's vector (a leg recorded
    on an empty store, or after ``memory-engine reembed`` verified it), ``filling`` while
    older memories still lack it; searches use only ``ready`` legs.
    """

    model_config = ConfigDict(frozen=True)

    leg: str
    model: str
    dim: int = Field(ge=1, le=16000)
    state: LegState = "filling"


@runtime_checkable
class VectorLegs(Protocol):
    """Extra dense legs (:data:`EXTRA_LEGS`): a second vector per memory, indexed like the
    primary one (PostgreSQL: its own ``vector`` column and HNSW index; Qdrant: a named vector).
    A store that has them exposes this part as its ``legs`` attribute (``store.legs``).

    A new memory's leg vectors travel in its insert (``NewMemory.legs``); ``set_leg_vectors``
    sets them on stored memories (re-embedding, copies). A memory without the leg's vector is
    simply not found by that leg.
    """

    def leg_records(self) -> dict[str, LegRecord]:
        """Every recorded extra leg, by name (``{}`` when none)."""
        ...

    def ensure_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """Record the leg (first use; ``ready`` when the store holds no memory yet, else
        ``filling``) or return its record. A record of another model or dimension is returned
        as it is: the caller compares (``memory-engine reembed`` switches it).

        Raises:
            InvalidInputError: unknown leg, empty model or dimension out of range.
            LegUnavailableError: the store cannot hold this leg without a rebuild.
        """
        ...

    def set_leg_vectors(
        self, leg: str, vectors: Mapping[uuid.UUID, Sequence[float]], *, scope: Scope
    ) -> int:
        """Store the leg's vector of each memory of the scope's tenant; returns how many rows
        were set (ids of other tenants or purged memories are skipped).

        Raises:
            InvalidInputError: the leg is not recorded, or a vector has the wrong dimension.
        """
        ...

    def leg_search(
        self,
        leg: str,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """Nearest memories on the leg's vectors; ``min(k, rows with the vector)``, scores
        ``cosine``.

        Raises:
            InvalidInputError: the leg is not recorded, bad k or a bad query vector.
            EmbeddingMismatchError: the query vector's length is not the store's dimension.
        """
        ...

    def leg_missing(
        self, leg: str, *, scope: Scope, limit: int = 256, after: uuid.UUID | None = None
    ) -> builtins.list[tuple[uuid.UUID, str]]:
        """``(id, content)`` of memories of the tenant (any status but purged) that lack the
        leg's vector, by id ascending after ``after``, at most ``limit``."""
        ...

    def leg_counts(self, leg: str, *, scope: Scope) -> tuple[int, int]:
        """``(with the leg's vector, embedded memories)`` of the tenant (purged excluded)."""
        ...

    def leg_vectors(
        self, leg: str, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> dict[uuid.UUID, tuple[float, ...]]:
        """The leg's stored vector of each of ``memory_ids`` (of the scope's tenant) that has
        one; ids without a vector, purged or of another tenant are left out. ``{}`` when the
        leg is not recorded.

        Raises:
            InvalidInputError: unknown leg, or more than ``list_max_limit`` ids.
        """
        ...

    def set_leg_state(self, leg: str, state: LegState) -> None:
        """Mark the leg ``ready`` (searched) or ``filling``."""
        ...

    def commit_primary(self, model: str, dim: int) -> None:
        """Make the :data:`STAGING_LEG` vectors the primary ones, recorded as ``(model, dim)``,
        in one step (searches before it use the old vectors, after it the new ones); the
        staging leg is dropped.

        Raises:
            InvalidInputError: a memory with a primary vector has no staged vector (fill it
                and call again); the staging leg is not recorded as ``(model, dim)``.
        """
        ...

    def replace_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """Record the leg anew for another model or dimension: its vectors are dropped and it
        is ``filling`` (searches skip it) until ``memory-engine reembed`` fills and verifies
        it. Qdrant adds a leg missing from an existing collection this way (a rebuild).
        """
        ...


@runtime_checkable
class MemoryRepository(Protocol):
    """Memories of one tenant: insert, read, list, change, erase."""

    def insert(
        self,
        items: Sequence[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
    ) -> list[InsertOutcome]:
        """Insert memories with one ``create`` event each, in one transaction.

        An item whose ``content_hash`` equals an active memory of the same scope is not
        inserted: its outcome is ``duplicate`` with ``existing_id``. Each item's leg vectors
        (``NewMemory.legs``) are written by the same insert.

        Raises:
            InvalidInputError: a bad vector, an unknown or unrecorded leg, or a leg vector of
                another dimension than the leg's record (nothing is written).
        """
        ...

    def get(self, memory_id: uuid.UUID, *, scope: Scope) -> Memory:
        """One memory (any status). Raises MemoryNotFoundError."""
        ...

    def list(
        self,
        *,
        scope: Scope,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
    ) -> Page:
        """Memories newest first (created_at desc, id desc), keyset-paginated.

        ``Page.total`` is the count matching the filter; ``items`` are Memory.
        """
        ...

    def facet_counts(
        self, *, scope: Scope, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """Counts per ``memory_type``, ``status`` and ``source`` under the filter."""
        ...

    def count(self, *, scope: Scope, statuses: Sequence[MemoryStatus] = ()) -> int:
        """Number of memories in scope (all statuses when ``statuses`` is empty)."""
        ...

    def update(
        self,
        memory_id: uuid.UUID,
        *,
        scope: Scope,
        expected_version: int,
        changes: dict[str, Any],
        embedding: Sequence[float] | None = None,
        terms: Sequence[str] | None = None,
        actor: str,
        reason: str | None = None,
        action: str = "update",
        request_id: str | None = None,
    ) -> Memory:
        """Apply ``changes`` (Memory field -> value), bump version, write the event.

        ``action`` names the event (update, archive, restore, delete, supersede).
        Raises MemoryNotFoundError, VersionConflictError.
        """
        ...

    def purge(
        self,
        memory_id: uuid.UUID,
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        expected_version: int | None = None,
    ) -> None:
        """Erase a memory: remove the row, its vector and keyword terms, redact its content
        from every event snapshot and stored trace (:mod:`.redaction`), keep a ``purge`` event.

        Raises MemoryNotFoundError, VersionConflictError (``expected_version`` given and stale).
        """
        ...

    def record_access(self, memory_ids: Sequence[uuid.UUID], *, scope: Scope, at: datetime) -> int:
        """Add 1 to ``access_count`` and set ``last_accessed_at`` (never backwards) of each id.

        One batched write, no event, no version bump (an access is not an edit). Ids not in
        the scope are ignored. Returns the number of memories updated.
        """
        ...

    def redact_history(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """Redact the memory's content from its events' snapshots and reasons and from stored
        traces (:mod:`.redaction`); ``content``, the purged text when the caller knows it,
        also finds the traces whose query quotes it.

        Idempotent. Returns ``{"events": n, "traces": m}`` (records changed by this call).
        """
        ...

    def index_presence(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """Where the id is still stored: ``{"row", "vector", "keyword_terms", "entity_links",
        "events_with_content", "reasons_with_content", "traces_with_content"}`` -> count (all
        0 after a purge); with ``content``, a trace whose query quotes it counts too."""
        ...


@runtime_checkable
class AuditLog(Protocol):
    """The append-only audit events of one tenant."""

    def append_event(self, event: Event, *, scope: Scope) -> None:
        """Append a standalone event (e.g. a purge proof). Raises TenantScopeError when the
        event's tenant is not the scope's."""
        ...

    def history(self, memory_id: uuid.UUID, *, scope: Scope, limit: int = 200) -> Page:
        """Events of one memory, oldest first. ``items`` are Event."""
        ...

    def events(self, *, scope: Scope, limit: int = 100, cursor: str | None = None) -> Page:
        """Events of the tenant, newest first. ``items`` are Event."""
        ...


@runtime_checkable
class TraceStore(Protocol):
    """Stored search traces (bounded retention per tenant)."""

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """Store a trace; keeps at most ``trace_retention`` per tenant."""
        ...

    def get_trace(self, trace_id: uuid.UUID, *, scope: Scope) -> Trace:
        """One trace. Raises MemoryNotFoundError."""
        ...

    def list_traces(self, *, scope: Scope, limit: int = 50, cursor: str | None = None) -> Page:
        """Traces newest first; ``items`` are dicts {id, query, created_at, returned}."""
        ...

    def delete_traces(self, *, scope: Scope) -> int:
        """Delete the stored traces of searches made in ``scope`` (its user/agent/session ids
        narrow). Returns the number deleted."""
        ...


@runtime_checkable
class AdminOps(Protocol):
    """Store-wide operations: the embedding model record, counts, the audited admin path."""

    def ensure_embedding(self, model: str, dim: int) -> None:
        """Record (first use) or check the embedding model and dimension.

        Raises:
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        ...

    def embedding_info(self) -> tuple[str, int] | None:
        """The recorded (model, dim), or None on an empty store."""
        ...

    def stats(self, *, scope: Scope, days: int = 90) -> StoreStats:
        """Counts for the Overview page."""
        ...

    def admin_tenant_counts(self, *, actor: str, reason: str) -> dict[str, int]:
        """Active+archived memory count per tenant, across tenants. Audited (admin event)."""
        ...

    def admin_tenant_ids(self, *, actor: str, reason: str) -> builtins.list[str]:
        """Every tenant holding a memory (any status) or an event, sorted. Audited like
        ``admin_tenant_counts``."""
        ...


@runtime_checkable
class RecordTransfer(Protocol):
    """Export and import of whole memory records (``stores.transfer``, ``memory-engine copy``)."""

    def record_ids(self, *, scope: Scope, limit: int = 500, cursor: str | None = None) -> Page:
        """Ids of every memory record of the tenant: stored memories (any status) by id, then
        purged memories (those with a ``purge`` event) in event order. ``items`` are UUIDs,
        ``total`` the number of records; keyset cursor (``next_cursor``), ``limit`` clamped to
        ``list_max_limit``."""
        ...

    def read_records(
        self, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> builtins.list[MemoryRecord]:
        """One MemoryRecord per id, in order (``empty`` when the store has nothing of it).

        Raises:
            InvalidInputError: more than ``list_max_limit`` ids.
        """
        ...

    def write_records(self, records: Sequence[MemoryRecord], *, scope: Scope) -> None:
        """Write records verbatim: memory fields (id, version, timestamps, status, ...),
        vector, terms and events (actor, time, snapshots; new event ids, in event-time order).

        No dedupe and no new events. Atomic per batch on PostgreSQL; on Qdrant per record with
        the pending -> point -> committed protocol.

        Raises:
            TransferConflictError: a record's id (or an event of it) already exists in the
                store, or an active memory with the same content exists; nothing is written.
            TenantScopeError: a record of another tenant.
            InvalidInputError: a record without terms, or a memory without its vector.
            EmbeddingMismatchError: a memory embedded with another model than the store's.
        """
        ...


@runtime_checkable
class EntityIndex(Protocol):
    """The entities memories name, per tenant, and the links between memories and entities.

    A memory is linked to one entity per distinct key (``memory_engine.entities.entity_key``)
    of its ``Memory.entities``, written with the memory (same transaction on PostgreSQL, same
    point upsert on Qdrant) and changed with it (an update of ``entities`` relinks it). A purge
    removes the memory's links and every entity left without a link. Entities carry the id
    ``entities.entity_id(tenant, key)``, equal in every store.
    """

    def list_entities(
        self,
        *,
        scope: Scope,
        limit: int = 50,
        statuses: Sequence[MemoryStatus] = (),
    ) -> Page:
        """Entities linked to memories of the scope, most linked first (ties by key in
        code-point order); ``items`` are Entity with ``memory_count`` = linked memories of
        ``statuses`` (every status when empty) in the scope; ``limit`` clamped to
        ``list_max_limit``; ``truncated`` when more entities are linked; ``total`` None.

        Raises:
            InvalidInputError: limit < 1 or an unknown status.
        """
        ...

    def memory_entities(self, memory_id: uuid.UUID, *, scope: Scope) -> builtins.list[Entity]:
        """The entities one memory (any status) is linked to, in the order it names them
        (``memory_count`` None).

        Raises:
            MemoryNotFoundError: no such memory in the scope.
        """
        ...

    def entity_memories(
        self,
        entity: str,
        *,
        scope: Scope,
        limit: int = 50,
        cursor: str | None = None,
        statuses: Sequence[MemoryStatus] = (),
    ) -> Page:
        """Memories linked to ``entity`` (a name or a key: "ACME Inc." finds "acme"), newest
        first, keyset-paginated, as ``list(filters=MemoryFilter(entity=...))``.

        Raises:
            InvalidInputError: ``entity`` names no entity, a bad limit, status or cursor.
        """
        ...


@runtime_checkable
class AuditedSearchIndex(SearchIndex, AuditLog, Protocol):
    """A search index whose cross-tenant alarms go to the audit log of the same store (what
    :class:`memory_engine.stores.guard.GuardedStore` wraps)."""


@runtime_checkable
class BulkLoader(Protocol):
    """Optional: a bulk import path for large batches (PostgreSQL). Callers check
    ``isinstance(store, BulkLoader)`` and fall back to ``MemoryRepository.insert``."""

    def bulk_insert(
        self,
        items: Iterable[NewMemory],
        *,
        scope: Scope,
        actor: str,
        reason: str | None = None,
        request_id: str | None = None,
        rebuild_index: bool | None = None,
    ) -> builtins.list[InsertOutcome]:
        """Same contract as ``MemoryRepository.insert`` for any iterable (consumed once), in
        one transaction; ``rebuild_index`` None = the store decides by size."""
        ...


@runtime_checkable
class MemoryStore(
    SearchIndex,
    MemoryRepository,
    AuditLog,
    TraceStore,
    AdminOps,
    RecordTransfer,
    EntityIndex,
    Protocol,
):
    """Storage of memories, events, traces and entities, isolated by tenant: every capability
    at once (what ``build_store`` returns and the conformance suite checks)."""

    name: str

    def close(self) -> None:
        """Release connections. Safe to call twice."""
        ...
