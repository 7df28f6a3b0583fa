"""Typed records of the engine (docs/architecture.md#data-model).

All datetimes are timezone-aware UTC. Records are frozen pydantic models: they are values,
never mutated in place; use ``model_copy(update=...)``.
"""

from __future__ import annotations

import enum
import re
import uuid
from datetime import UTC, datetime
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory_engine.entities import entity_key
from memory_engine.errors import InvalidInputError, TenantScopeError, quoted

ID_PATTERN = re.compile(r"^[A-Za-z0-9_.:-]{1,64}$")


def utcnow() -> datetime:
    """Current time, timezone-aware UTC."""
    return datetime.now(UTC)


def ensure_utc(value: datetime | None) -> datetime | None:
    """Return ``value`` as aware UTC; naive datetimes are taken to be UTC."""
    if value is None:
        return None
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class MemoryType(enum.StrEnum):
    """Kind of memory: what happened, what is true, how to do something."""

    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"


class MemoryStatus(enum.StrEnum):
    """Lifecycle status. Only ``active`` memories are returned by default searches."""

    ACTIVE = "active"
    ARCHIVED = "archived"
    SUPERSEDED = "superseded"
    DELETED = "deleted"


class MemorySource(enum.StrEnum):
    """Where a memory came from."""

    CONVERSATION = "conversation"
    TOOL_OUTPUT = "tool_output"
    MANUAL = "manual"
    IMPORT = "import"


class EventAction(enum.StrEnum):
    """What an audit event records."""

    CREATE = "create"
    UPDATE = "update"
    ARCHIVE = "archive"
    RESTORE = "restore"
    SUPERSEDE = "supersede"
    DELETE = "delete"
    PURGE = "purge"
    MERGE = "merge"
    DECISION = "decision"
    ADMIN_READ = "admin_read"
    PURGE_PROOF = "purge_proof"  # verified deletion: what was re-queried, when, result
    TENANT_ALARM = "tenant_alarm"  # a search met another tenant's rows (stores.guard)


#: Reserved ``Memory.metadata`` key: the memory's turn index (int, 0..``MAX_TURN_INDEX``) in
#: the conversation session named by ``Memory.session_id``. Together they are a memory's
#: *explicit conversation structure*, the only structure session smoothing uses
#: (``retrieval.session``); set by the importers that know it (LoCoMo, OpenAI chat), by
#: ``write(..., turn=)``, MCP ``memory_write`` and ``observe(..., turn=)``, and copied onto
#: the facts extracted from a turn. Never derived from ``source_ref`` or tags.
TURN_KEY = "turn"
#: Largest turn index accepted.
MAX_TURN_INDEX = 1_000_000_000


def explicit_turn(metadata: dict[str, Any]) -> int | None:
    """The turn index stored under ``TURN_KEY``, or None when absent or not a valid index."""
    turn = metadata.get(TURN_KEY)
    if isinstance(turn, int) and not isinstance(turn, bool) and 0 <= turn <= MAX_TURN_INDEX:
        return turn
    return None


def check_turn_metadata(metadata: dict[str, Any]) -> None:
    """Refuse a ``TURN_KEY`` entry that is not an int in 0..``MAX_TURN_INDEX``.

    Raises:
        InvalidInputError: the value is a string, float, bool, negative or too large.
    """
    if TURN_KEY in metadata and explicit_turn(metadata) is None:
        raise InvalidInputError(
            f"the turn index (metadata[{TURN_KEY!r}]) must be an integer 0..{MAX_TURN_INDEX}, "
            f"got {quoted(metadata[TURN_KEY])}",
            field=f"metadata.{TURN_KEY}",
        )


def with_turn(
    metadata: dict[str, Any], turn: int | None, *, session_id: str | None
) -> dict[str, Any]:
    """``metadata`` with ``TURN_KEY`` set to ``turn`` (a copy; ``metadata`` itself when
    ``turn`` is None).

    Raises:
        InvalidInputError: ``turn`` is not an int in 0..``MAX_TURN_INDEX``, or it is given
            without a ``session_id`` (a turn index means nothing outside its session).
    """
    if turn is None:
        return metadata
    if not session_id:
        raise InvalidInputError(
            "a turn index needs a session id (give session_id with turn)", field="turn"
        )
    out = {**metadata, TURN_KEY: turn}
    check_turn_metadata(out)
    return out


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Scope(_Frozen):
    """Who a read or write acts for. ``tenant_id`` is required; the other ids only narrow.

    Ids match ``[A-Za-z0-9_.:-]{1,64}``; raises TenantScopeError otherwise.
    """

    tenant_id: str
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None

    @field_validator("tenant_id", "user_id", "agent_id", "session_id", mode="before")
    @classmethod
    def _check_id(cls, value: Any, info: Any) -> Any:
        if value is None and info.field_name != "tenant_id":
            return None
        if not isinstance(value, str) or not ID_PATTERN.match(value):
            raise TenantScopeError(
                f"{info.field_name} must match [A-Za-z0-9_.:-]{{1,64}}, got {quoted(value)}",
                field=info.field_name,
            )
        return value

    @classmethod
    def of(cls, tenant_id: str, **narrow: str | None) -> Scope:
        """Build a scope, re-raising validation problems as TenantScopeError."""
        try:
            return cls(tenant_id=tenant_id, **narrow)
        except TenantScopeError:
            raise
        except Exception as exc:  # pydantic wraps validator errors
            cause = exc.__cause__ if isinstance(exc.__cause__, TenantScopeError) else None
            errs: list[dict[str, Any]] = getattr(exc, "errors", lambda: [])()
            for err in errs:
                ctx_err = err.get("ctx", {}).get("error")
                if isinstance(ctx_err, TenantScopeError):
                    cause = ctx_err
            if cause:
                raise cause from exc
            raise TenantScopeError(f"invalid scope: {exc}") from exc


class Memory(_Frozen):
    """One stored memory: a small typed fact or one conversation turn, with provenance."""

    id: uuid.UUID = Field(default_factory=uuid.uuid4)
    tenant_id: str
    user_id: str | None = None
    agent_id: str | None = None
    session_id: str | None = None
    content: str
    memory_type: MemoryType = MemoryType.EPISODIC
    entities: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    importance: float = Field(default=0.5, ge=0.0, le=1.0)
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    source: MemorySource = MemorySource.CONVERSATION
    source_ref: str | None = None
    observed_at: datetime | None = None
    status: MemoryStatus = MemoryStatus.ACTIVE
    superseded_by: uuid.UUID | None = None
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    created_at: datetime = Field(default_factory=utcnow)
    updated_at: datetime = Field(default_factory=utcnow)
    last_accessed_at: datetime | None = None
    access_count: int = 0
    version: int = 1
    embedding_model: str | None = None
    content_hash: str = ""
    metadata: dict[str, Any] = Field(default_factory=dict)
    embedding: tuple[float, ...] | None = Field(default=None, repr=False)

    def public_dict(self) -> dict[str, Any]:
        """JSON-ready dict without the embedding vector."""
        return self.model_dump(mode="json", exclude={"embedding"})


class Event(_Frozen):
    """One append-only audit event."""

    id: int | None = None
    tenant_id: str
    memory_id: uuid.UUID | None = None
    action: EventAction
    actor: str
    at: datetime = Field(default_factory=utcnow)
    before: dict[str, Any] | None = None
    after: dict[str, Any] | None = None
    reason: str | None = None
    request_id: str | None = None
    details: dict[str, Any] = Field(default_factory=dict)


class Candidate(_Frozen):
    """A memory proposed by one retrieval leg or stage.

    ``scores`` names each score by kind; every score is "higher is better":
    ``cosine`` in [-1, 1], ``bm25`` >= 0 (unbounded), ``rrf`` in (0, legs/(rrf_k+1)].
    ``ranks`` are 1-based positions per leg/stage (``dense``, ``keyword``, ``fused``, ``final``).
    ``flags`` (returned memories only): the injection-screening rules the memory is flagged
    for (``security.injection.memory_flags``), sorted; empty for a clean memory.
    """

    memory: Memory
    scores: dict[str, float] = Field(default_factory=dict)
    ranks: dict[str, int] = Field(default_factory=dict)
    flags: tuple[str, ...] = ()


class TraceCandidate(_Frozen):
    """A candidate as recorded in a trace (memory summarised, not embedded)."""

    memory_id: uuid.UUID
    content: str
    memory_type: MemoryType
    source: MemorySource
    observed_at: datetime | None = None
    created_at: datetime | None = None
    scores: dict[str, float] = Field(default_factory=dict)
    ranks: dict[str, int] = Field(default_factory=dict)
    dropped: str | None = None  # drop reason, None when returned
    # what the score waterfall and the stale-fact check read (retrieval.waterfall); empty in
    # traces stored before they were recorded:
    #: leg name -> the leg's score normalised over the fused pool by the fusion method
    #: (z-score or min-max; empty under rrf, which uses ranks only).
    normalised: dict[str, float] = Field(default_factory=dict)
    #: the session neighbour whose score lifted this one (None: no lift).
    lift_from: uuid.UUID | None = None
    #: cl100k tokens of the memory's block line (returned and over-budget candidates).
    tokens: int | None = None
    entities: tuple[str, ...] = ()
    status: MemoryStatus | None = None
    superseded_by: uuid.UUID | None = None


class Trace(_Frozen):
    """Everything one search did: candidates of every leg, scores, ranks, drops, timings."""

    id: uuid.UUID = Field(default_factory=uuid.uuid4)
    tenant_id: str
    scope: Scope
    query: str
    created_at: datetime = Field(default_factory=utcnow)
    config: dict[str, Any] = Field(default_factory=dict)
    embedding_model: str | None = None
    query_terms: tuple[str, ...] = ()
    legs: dict[str, list[TraceCandidate]] = Field(default_factory=dict)
    candidates: list[TraceCandidate] = Field(default_factory=list)
    block: str = ""
    timings_ms: dict[str, float] = Field(default_factory=dict)
    warnings: list[str] = Field(default_factory=list)
    # retrieval stages: the stages run in order, each leg's health
    # ({"count": int, "empty": bool}) and the queries the legs searched (expansion)
    stages: list[str] = Field(default_factory=list)
    leg_health: dict[str, dict[str, Any]] = Field(default_factory=dict)
    searched_queries: list[str] = Field(default_factory=list)
    tenant_alarms: list[dict[str, Any]] = Field(default_factory=list)  # stores.guard


class SearchResult(_Frozen):
    """Result of ``MemoryEngine.search``: ranked memories, the memory block and its trace."""

    memories: list[Candidate]
    block: str
    trace: Trace


class Page(_Frozen):
    """One bounded page of a listing; ``next_cursor`` is None on the last page."""

    items: list[Any]
    total: int | None = None
    next_cursor: str | None = None
    truncated: bool = False


class MemoryFilter(_Frozen):
    """Filters of a listing; all optional, combined with AND."""

    memory_types: tuple[MemoryType, ...] = ()
    statuses: tuple[MemoryStatus, ...] = ()
    sources: tuple[MemorySource, ...] = ()
    text_contains: str | None = None
    created_from: datetime | None = None
    created_to: datetime | None = None
    #: Only memories linked to this entity: a name or a key, held as its normalised key
    #: (``entities.entity_key``: "ACME Inc." -> "acme"); None = any.
    entity: str | None = None

    @field_validator("entity", mode="before")
    @classmethod
    def _entity_key(cls, value: Any) -> Any:
        if value is None or not isinstance(value, str):
            return value
        key = entity_key(value)
        if not key:
            raise InvalidInputError(f"entity {value!r} names no entity", entity=value)
        return key


class Entity(_Frozen):
    """An entity of one tenant (a person, organisation, place, ...) that memories name.

    ``key`` is the normalised name (``entities.entity_key``), unique per tenant; ``id`` is
    derived from tenant and key (``entities.entity_id``), the same in every store; ``name``
    is the display name as first seen; ``kind`` is set when known. ``memory_count`` is the
    number of linked memories in the scope of the listing that returned it (None when the
    entity was read without counting).
    """

    id: uuid.UUID
    tenant_id: str
    key: str
    name: str
    kind: str | None = None
    created_at: datetime
    memory_count: int | None = None
