"""Backend-neutral logic shared by the PostgreSQL and Qdrant stores.

Validation of arguments and changes, scope filling, embedding checks, keyset cursors and the
small constants both backends must agree on live here, so that the two stores (which share
one conformance suite) cannot drift apart. Nothing here touches a database client.
"""

from __future__ import annotations

import base64
import json
import math
import uuid
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, timedelta
from typing import Any

import numpy as np
from pydantic import ValidationError

from memory_engine.errors import (
    EmbeddingMismatchError,
    InvalidInputError,
    MemoryNotFoundError,
    TenantScopeError,
    VersionConflictError,
)
from memory_engine.models import Event, Memory, MemoryStatus, Scope, Trace, ensure_utc
from memory_engine.stores.base import InsertOutcome, MemoryRecord, NewMemory, StoreStats

#: Largest ``k`` a search accepts (pgvector's ef_search ceiling is 1000 as well).
MAX_K = 1000

#: BM25 parameters (Robertson & Zaragoza 2009, "The Probabilistic Relevance Framework"),
#: shared by the Qdrant store's term weights and the as-of snapshot search so that scores agree
#: with the PostgreSQL store's SQL (``stores.postgres.keyword``, same constants and formula).
BM25_K1 = 1.2
BM25_B = 0.75


def bm25_idf(n: float, df: float) -> float:
    """Lucene's non-negative BM25 idf ``ln(1 + (N - df + 0.5) / (df + 0.5))``.

    Args:
        n: number of documents searched (N >= df).
        df: documents containing the term.
    """
    return math.log(1.0 + (n - df + 0.5) / (df + 0.5))


def bm25_tf(tf: float, dl: float, avgdl: float) -> float:
    """BM25 term-frequency weight ``tf (k1 + 1) / (tf + k1 (1 - b + b |d| / avgdl))``.

    Args:
        tf: occurrences of the term in the document (>= 0; 0 gives 0).
        dl: document length in terms.
        avgdl: average document length in terms (clamped to >= 1e-9).

    Returns:
        A weight in ``[0, k1 + 1)``.
    """
    norm = BM25_K1 * (1 - BM25_B + BM25_B * dl / max(avgdl, 1e-9))
    return tf * (BM25_K1 + 1) / (tf + norm) if tf else 0.0


#: Actions ``update()`` accepts.
UPDATE_ACTIONS = frozenset({"update", "archive", "restore", "supersede", "delete", "merge"})

#: Keys ``update(changes=...)`` accepts.
UPDATABLE_FIELDS: frozenset[str] = frozenset(
    {
        "content",
        "content_hash",
        "importance",
        "memory_type",
        "tags",
        "entities",
        "status",
        "superseded_by",
        "valid_from",
        "valid_until",
        "metadata",
        "confidence",
    }
)

#: Event actions counted as writes in ``stats().writes_per_day``.
WRITE_ACTIONS: tuple[str, ...] = (
    "create",
    "update",
    "archive",
    "restore",
    "supersede",
    "delete",
    "purge",
    "merge",
)


# ----------------------------------------------------------------------------- arguments


def check_k(k: int) -> None:
    """Raises InvalidInputError unless 1 <= k <= MAX_K."""
    if not 1 <= k <= MAX_K:
        raise InvalidInputError(f"k must be in [1, {MAX_K}]", k=k)


def check_limit(limit: int, maximum: int) -> int:
    """``limit`` clamped to ``maximum``.

    Raises:
        InvalidInputError: limit < 1.
    """
    if limit < 1:
        raise InvalidInputError("limit must be >= 1", limit=limit)
    return min(limit, maximum)


def vector_param(values: Sequence[float], dim: int | None, what: str) -> np.ndarray:
    """Validate an embedding and return it as float32.

    Args:
        values: the vector.
        dim: required length, or None to skip the check.
        what: name used in error messages.

    Raises:
        InvalidInputError: wrong length, non-finite values, or zero norm (cosine undefined).
    """
    arr = np.asarray(values, dtype=np.float32)
    if arr.ndim != 1 or arr.size == 0:
        raise InvalidInputError(f"{what} must be a non-empty 1-d vector")
    if dim is not None and arr.size != dim:
        raise InvalidInputError(
            f"{what} has {arr.size} dimensions, the store holds {dim}-dimensional vectors",
            expected=dim,
            actual=int(arr.size),
        )
    if not np.all(np.isfinite(arr)):
        raise InvalidInputError(f"{what} contains NaN or infinite values")
    if float(np.linalg.norm(arr)) == 0.0:
        raise InvalidInputError(f"{what} has zero norm; cosine similarity is undefined")
    return arr


def query_vector_param(values: Sequence[float], dim: int | None) -> np.ndarray:
    """Validate a query embedding against the store's recorded dimension; float32.

    A query vector comes from the caller's embedder, so a length other than the store's means
    that embedder is not the store's (or another process switched the store with
    ``memory-engine reembed`` while this engine was open): an ``EmbeddingMismatchError``, not
    bad input.

    Raises:
        EmbeddingMismatchError: the vector's length differs from ``dim``.
        InvalidInputError: not a non-empty 1-d vector, non-finite values, or zero norm.
    """
    arr = np.asarray(values, dtype=np.float32)
    if dim is not None and arr.ndim == 1 and arr.size and arr.size != dim:
        raise EmbeddingMismatchError(
            f"the query vector has {arr.size} dimensions, the store holds {dim}-dimensional "
            "vectors: configure the store's embedder, or switch the store to this one with "
            "`memory-engine reembed`",
            expected=dim,
            actual=int(arr.size),
        )
    return vector_param(values, dim, "query vector")


def status_values(statuses: Iterable[MemoryStatus | str]) -> list[str]:
    """Validated status strings (order kept, duplicates dropped).

    Raises:
        InvalidInputError: an unknown status.
    """
    try:
        return list(dict.fromkeys(MemoryStatus(s).value for s in statuses))
    except ValueError as exc:
        raise InvalidInputError(f"unknown status: {exc}") from exc


def search_statuses(statuses: Iterable[MemoryStatus | str]) -> list[str]:
    """Statuses of a search: at least one (an empty filter is refused, never "everything").

    Raises:
        InvalidInputError: empty or unknown status.
    """
    values = status_values(statuses)
    if not values:
        raise InvalidInputError("a search needs at least one status")
    return values


# ----------------------------------------------------------------------------- scope and model


def scoped_memory(memory: Memory, scope: Scope) -> Memory:
    """The memory with the scope's narrowing ids filled in; refuses contradicting ids.

    Raises:
        TenantScopeError: another tenant, or a user/agent/session id differing from the scope's.
    """
    if memory.tenant_id != scope.tenant_id:
        raise TenantScopeError(
            "memory.tenant_id differs from the scope's tenant",
            memory_id=memory.id,
            field="tenant_id",
        )
    fill: dict[str, Any] = {}
    for field in ("user_id", "agent_id", "session_id"):
        want, have = getattr(scope, field), getattr(memory, field)
        if want is None:
            continue
        if have is None:
            fill[field] = want
        elif have != want:
            raise TenantScopeError(
                f"memory.{field} differs from the scope's {field}", memory_id=memory.id, field=field
            )
    return memory.model_copy(update=fill) if fill else memory


def check_trace_scope(trace: Trace, scope: Scope) -> None:
    """Raises TenantScopeError when the trace belongs to another tenant than the scope."""
    if trace.tenant_id != scope.tenant_id or trace.scope.tenant_id != scope.tenant_id:
        raise TenantScopeError("trace tenant differs from the scope's tenant", field="tenant_id")


def embedded_with(memory: Memory, model: str) -> Memory:
    """The memory with ``embedding_model`` set to the store's ``model`` when it names none.

    Raises:
        EmbeddingMismatchError: the memory names another embedding model.
    """
    if memory.embedding_model is None:
        return memory.model_copy(update={"embedding_model": model})
    if memory.embedding_model != model:
        raise EmbeddingMismatchError(
            f"memory embedded with {memory.embedding_model}, the store holds {model}; "
            "re-embed required (memory-engine reembed)",
            memory_id=memory.id,
            stored_model=model,
            configured_model=memory.embedding_model,
        )
    return memory


def dedupe_key(memory: Memory) -> tuple[str, str] | None:
    """``(user_id or "", content_hash)`` of an ACTIVE memory with a hash: no two active
    memories of a tenant share it. None when the memory is exempt from dedupe."""
    if memory.status is not MemoryStatus.ACTIVE or not memory.content_hash:
        return None
    return (memory.user_id or "", memory.content_hash)


def dedupe_inserts(
    memories: Sequence[Memory], existing: Mapping[tuple[str, str], uuid.UUID]
) -> tuple[list[InsertOutcome], list[int]]:
    """The outcome of inserting each memory (in order) and the indexes of those to insert.

    A memory whose :func:`dedupe_key` is in ``existing`` (key -> id of the active memory
    holding it) or equals an earlier memory's key is a ``duplicate`` of that one (with its
    ``existing_id``); every other memory is ``created``.
    """
    seen = dict(existing)
    outcomes: list[InsertOutcome] = []
    keep: list[int] = []
    for i, memory in enumerate(memories):
        key = dedupe_key(memory)
        if key is not None:
            if key in seen:
                outcomes.append(
                    InsertOutcome(memory_id=memory.id, status="duplicate", existing_id=seen[key])
                )
                continue
            seen[key] = memory.id
        outcomes.append(InsertOutcome(memory_id=memory.id, status="created"))
        keep.append(i)
    return outcomes, keep


#: Largest vector dimension a store records.
MAX_EMBEDDING_DIM = 16000


def check_embedding_spec(model: str, dim: int) -> None:
    """Raises InvalidInputError for an empty model name or a dimension outside
    1..:data:`MAX_EMBEDDING_DIM` (what ``ensure_embedding`` accepts)."""
    if not model or not 1 <= dim <= MAX_EMBEDDING_DIM:
        raise InvalidInputError(
            f"model must be non-empty and dim in [1, {MAX_EMBEDDING_DIM}]", dim=dim
        )


def check_same_embedding(recorded: tuple[str, int], model: str, dim: int) -> None:
    """Raises EmbeddingMismatchError unless the recorded (model, dim) is ``(model, dim)``."""
    if recorded != (model, dim):
        raise EmbeddingMismatchError(
            f"model or dimension mismatch: the store holds {recorded[0]} ({recorded[1]}-d) "
            f"vectors, configured {model} ({dim}-d); re-embed required: run "
            f"`memory-engine reembed` to switch the store in place",
            stored_model=recorded[0],
            stored_dim=recorded[1],
            configured_model=model,
            configured_dim=dim,
        )


def first_embedding(first: NewMemory) -> tuple[str, int]:
    """(model, dim) to record from the first inserted item when the store has none yet.

    Raises:
        InvalidInputError: the item names no embedding model.
    """
    if not first.memory.embedding_model:
        raise InvalidInputError(
            "no embedding model recorded: call ensure_embedding(model, dim) first"
        )
    return first.memory.embedding_model, len(first.embedding)


# ----------------------------------------------------------------------------- updates


def check_admin_read(actor: str, reason: str) -> None:
    """Refuse a cross-tenant (admin) read without an actor and a reason to audit.

    Raises:
        InvalidInputError: empty or blank actor or reason.
    """
    if not actor.strip() or not reason.strip():
        raise InvalidInputError("admin reads need an actor and a reason")


def check_update(memory_id: uuid.UUID, changes: dict[str, Any], action: str) -> None:
    """Raises InvalidInputError for an unknown change key or update action."""
    unknown = sorted(set(changes) - UPDATABLE_FIELDS)
    if unknown:
        raise InvalidInputError(f"cannot change {', '.join(unknown)}", memory_id=memory_id)
    if action not in UPDATE_ACTIONS:
        raise InvalidInputError(f"unknown update action {action!r}", action=action)


def not_found(memory_id: uuid.UUID, scope: Scope) -> MemoryNotFoundError:
    """The error for a memory id that is not in the scope."""
    return MemoryNotFoundError(
        f"memory {memory_id} not found", memory_id=memory_id, tenant_id=scope.tenant_id
    )


def check_version(before: Memory, expected_version: int) -> None:
    """Raises VersionConflictError unless ``before`` is at ``expected_version``."""
    if before.version != expected_version:
        raise VersionConflictError(
            f"memory {before.id} is at version {before.version}, not {expected_version}",
            memory_id=before.id,
            expected=expected_version,
            actual=before.version,
        )


def merged_memory(before: Memory, changes: dict[str, Any]) -> Memory:
    """``before`` with ``changes`` applied and validated.

    Raises:
        InvalidInputError: a change is not a valid value.
    """
    try:
        return Memory.model_validate({**before.model_dump(), **changes})
    except ValidationError as exc:
        raise InvalidInputError(f"invalid change: {exc}", memory_id=before.id) from exc


# ----------------------------------------------------------------------------- reads


def stats_start(days: int) -> date:
    """First UTC date of a ``days``-long writes-per-day window ending today.

    Raises:
        InvalidInputError: ``days`` outside 1..3660.
    """
    if not 1 <= days <= 3660:
        raise InvalidInputError("days must be in [1, 3660]", days=days)
    return datetime.now(UTC).date() - timedelta(days=days - 1)


def writes_series(start: date, days: int, per_day: dict[str, int]) -> list[tuple[str, int]]:
    """(ISO date, writes) for each of the ``days`` dates from ``start``, zero-filled."""
    dates = [(start + timedelta(days=i)).isoformat() for i in range(days)]
    return [(d, per_day.get(d, 0)) for d in dates]


def store_stats(facets: dict[str, dict[str, int]], series: list[tuple[str, int]]) -> StoreStats:
    """StoreStats from the status/memory_type/source facets and the writes-per-day series."""
    return StoreStats(
        total=sum(facets["status"].values()),
        by_type=facets["memory_type"],
        by_status=facets["status"],
        by_source=facets["source"],
        writes_per_day=series,
    )


def encode_cursor(*values: Any) -> str:
    """Opaque keyset cursor (URL-safe base64 of JSON) from datetimes, UUIDs and ints."""
    payload: list[list[Any]] = []
    for v in values:
        if isinstance(v, datetime):
            payload.append(["t", v.isoformat()])
        elif isinstance(v, uuid.UUID):
            payload.append(["u", str(v)])
        elif isinstance(v, int):
            payload.append(["i", v])
        else:
            raise TypeError(f"cannot encode {type(v).__name__} in a cursor")
    raw = json.dumps(payload, separators=(",", ":")).encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def decode_cursor(cursor: str, kinds: str) -> list[Any]:
    """Decode a cursor made by :func:`encode_cursor`.

    Args:
        cursor: the opaque string.
        kinds: expected kinds in order, e.g. ``"tu"`` (datetime, UUID) or ``"i"`` (int).

    Raises:
        InvalidInputError: malformed cursor or one made for another listing.
    """
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4))
        payload = json.loads(raw)
        if [p[0] for p in payload] != list(kinds):
            raise ValueError("cursor kind mismatch")
        out: list[Any] = []
        for kind, value in payload:
            if kind == "t":
                out.append(ensure_utc(datetime.fromisoformat(value)))
            elif kind == "u":
                out.append(uuid.UUID(value))
            else:
                out.append(int(value))
        return out
    except (ValueError, TypeError, KeyError, IndexError) as exc:
        raise InvalidInputError("invalid cursor", cursor=cursor) from exc


# ----------------------------------------------------------------------------- records (copy)

#: Phases of ``record_ids``: stored memories by id, then purged memories by purge event id.
RECORDS_STORED, RECORDS_PURGED = 1, 2


def record_cursor(phase: int, key: uuid.UUID | int) -> str:
    """Cursor of ``record_ids``: the phase and the last key read in it."""
    return encode_cursor(phase, key)


def parse_record_cursor(cursor: str | None) -> tuple[int, uuid.UUID | int | None]:
    """(phase, last key) of a ``record_ids`` cursor; ``(RECORDS_STORED, None)`` for None.

    Raises:
        InvalidInputError: malformed cursor.
    """
    if not cursor:
        return RECORDS_STORED, None
    try:
        phase, key = decode_cursor(cursor, "iu")
    except InvalidInputError:
        phase, key = decode_cursor(cursor, "ii")
    if phase not in (RECORDS_STORED, RECORDS_PURGED):
        raise InvalidInputError("invalid cursor", cursor=cursor)
    return int(phase), key


def check_record_ids(memory_ids: Sequence[uuid.UUID], maximum: int) -> list[uuid.UUID]:
    """The ids as UUIDs, at most ``maximum`` of them, no repeats.

    Raises:
        InvalidInputError: too many ids, a repeated id or a value that is not a UUID.
    """
    if len(memory_ids) > maximum:
        raise InvalidInputError(f"at most {maximum} ids per call", count=len(memory_ids))
    try:
        out = [m if isinstance(m, uuid.UUID) else uuid.UUID(str(m)) for m in memory_ids]
    except ValueError as exc:
        raise InvalidInputError(f"not a memory id: {exc}") from exc
    if len(set(out)) != len(out):
        raise InvalidInputError("the same memory id is given twice")
    return out


def check_records(records: Sequence[MemoryRecord], scope: Scope) -> None:
    """Validate records before ``write_records``.

    Raises:
        TenantScopeError: a memory or event of another tenant.
        InvalidInputError: a record without terms or vector, events of another memory id,
            or the same id twice.
    """
    seen: set[uuid.UUID] = set()
    for rec in records:
        if rec.memory_id in seen:
            raise InvalidInputError("the same memory id is given twice", memory_id=rec.memory_id)
        seen.add(rec.memory_id)
        if rec.memory is not None:
            if rec.memory.id != rec.memory_id:
                raise InvalidInputError("record id differs from its memory's id")
            scoped_memory(rec.memory, Scope.of(scope.tenant_id))
            if rec.embedding is None or rec.terms is None:
                raise InvalidInputError(
                    "a record with a memory needs its embedding and terms", memory_id=rec.memory_id
                )
        for ev in rec.events:
            if ev.tenant_id != scope.tenant_id:
                raise TenantScopeError("event of another tenant", memory_id=rec.memory_id)
            if ev.memory_id != rec.memory_id:
                raise InvalidInputError("event of another memory", memory_id=rec.memory_id)


def record_owner(record: MemoryRecord) -> dict[str, str | None]:
    """user/agent/session ids of a record: its memory's, else the last event snapshot's."""
    snap: dict[str, Any] = {}
    if record.memory is not None:
        snap = record.memory.public_dict()
    else:
        for ev in reversed(record.events):
            snap = ev.after or ev.before or {}
            if snap:
                break
    return {k: snap.get(k) for k in ("user_id", "agent_id", "session_id")}


def events_in_time_order(records: Sequence[MemoryRecord]) -> list[Event]:
    """Every event of ``records`` ordered by time (ties: record order, then event order).

    The target numbers copied events in this order, so its event ids follow event time.
    """
    indexed = [
        (ev.at, r, e, ev) for r, rec in enumerate(records) for e, ev in enumerate(rec.events)
    ]
    return [ev for *_, ev in sorted(indexed, key=lambda x: (x[0], x[1], x[2]))]


def assemble_records(
    memory_ids: Sequence[uuid.UUID],
    stored: Mapping[uuid.UUID, tuple[Memory, tuple[float, ...] | None, tuple[str, ...] | None]],
    events: Iterable[Event],
) -> list[MemoryRecord]:
    """One record per id, in order, for ``read_records``.

    Args:
        memory_ids: the ids asked for.
        stored: id -> (memory, embedding, terms) of the ids still stored (a purged id has
            none: its record holds its events only).
        events: the committed events of the ids, oldest first.
    """
    by_memory: dict[uuid.UUID | None, list[Event]] = {}
    for ev in events:
        by_memory.setdefault(ev.memory_id, []).append(ev)
    out = []
    for mid in memory_ids:
        mem, emb, terms = stored.get(mid, (None, None, None))
        out.append(
            MemoryRecord(
                memory_id=mid,
                memory=mem,
                embedding=emb,
                terms=terms,
                events=tuple(by_memory.get(mid, ())),
            )
        )
    return out
