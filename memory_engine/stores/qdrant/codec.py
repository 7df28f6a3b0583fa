"""Pure helpers of the Qdrant store: payloads, filters, keyword sparse vectors, ids, times.

Nothing here talks to Qdrant; everything is unit-testable without a client.

Keyword vectors (``keyword``, a sparse vector with ``Modifier.IDF``): each keyword term of a
memory (``NewMemory.terms``, made by :mod:`memory_engine.text`, the tokenizer PostgreSQL uses
too) maps to a dimension by a stable 32-bit hash (:func:`term_index`, BLAKE2b). Two different
terms may share a dimension (a collision; with 100k distinct terms about one pair in 86k
shares one); their term frequencies are then added, so a query for one also matches the other.
The value of a dimension is the BM25 term-frequency part, computed client-side at write time::

    tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl))      k1 = 1.2, b = 0.75

where ``avgdl`` is the tenant's average number of terms per memory *when the memory is
written* (kept in a per-tenant statistics point). Qdrant multiplies the query weight (1 per
distinct query term) by ``idf = ln(1 + (N - df + 0.5) / (df + 0.5))`` computed at query time
over the points matching the search filter (``SearchParams(idf=IdfCorpusParams(corpus=...))``,
Qdrant >= 1.19, local mode included). The resulting ``bm25`` score is BM25-like: equal to the
PostgreSQL store's when the tenant's average length has not changed since the memories were
written, otherwise it differs in the length normalisation only.
"""

from __future__ import annotations

import hashlib
import uuid
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from qdrant_client import models

from memory_engine.entities import entity_keys
from memory_engine.models import (
    Event,
    Memory,
    MemoryFilter,
    MemoryStatus,
    Scope,
    ensure_utc,
)
from memory_engine.stores.common import bm25_tf, search_statuses, status_values

#: Names of the vectors of a memory point.
DENSE = "dense"
KEYWORD = "keyword"

#: Event states: only ``committed`` events are shown by history()/events()/stats().
PENDING, COMMITTED, ROLLED_BACK = "pending", "committed", "rolled_back"

#: Namespace of derived point ids (meta points, traces).
_NS = uuid.UUID("7d4c2f0e-4b8a-5c1e-9a57-3f6d2b1c0e91")

#: Payload keys the store adds to a memory's fields (stripped when reading a Memory back).
_MEMORY_EXTRA = ("created_us", "content_lc", "doc_len", "entity_keys")
_MEMORY_FIELDS = tuple(f for f in Memory.model_fields if f != "embedding")
_TIME_FIELDS = (
    "observed_at",
    "valid_from",
    "valid_until",
    "created_at",
    "updated_at",
    "last_accessed_at",
)


# ----------------------------------------------------------------------------- ids and times


def derived_id(*parts: str) -> str:
    """A stable UUID (string) for a meta or trace point, from its parts."""
    return str(uuid.uuid5(_NS, "\x1f".join(parts)))


def to_us(value: datetime) -> int:
    """Microseconds since the Unix epoch (UTC) of ``value`` (naive = UTC); exact, no float."""
    aware = ensure_utc(value)
    assert aware is not None
    delta = aware - datetime(1970, 1, 1, tzinfo=UTC)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000 + delta.microseconds


# ----------------------------------------------------------------------------- keyword vectors


def term_index(term: str) -> int:
    """Stable 32-bit dimension of a keyword term: the first 4 bytes of BLAKE2b(UTF-8), unsigned.

    Stable across processes and Python versions (unlike ``hash()``); see the module docstring
    for collisions.
    """
    return int.from_bytes(hashlib.blake2b(term.encode("utf-8"), digest_size=4).digest(), "big")


def bm25_doc_vector(terms: Sequence[str], avgdl: float) -> models.SparseVector:
    """The ``keyword`` sparse vector of a memory (possibly empty: it still counts in N).

    Args:
        terms: the memory's keyword terms, with repetitions (``|d| = len(terms)``).
        avgdl: average number of terms per memory of the tenant (> 0 when terms is non-empty).

    Returns:
        Indices sorted ascending; values are BM25 term-frequency weights (> 0).
    """
    words = [str(t) for t in terms if t]
    if not words:
        return models.SparseVector(indices=[], values=[])
    tf = Counter(term_index(t) for t in words)
    indices = sorted(tf)
    values = [bm25_tf(tf[i], len(words), avgdl) for i in indices]
    return models.SparseVector(indices=indices, values=values)


def query_vector(terms: Iterable[str]) -> models.SparseVector | None:
    """Sparse query of distinct non-empty terms, weight 1 each; None when there is none."""
    indices = sorted({term_index(str(t)) for t in terms if t})
    if not indices:
        return None
    return models.SparseVector(indices=indices, values=[1.0] * len(indices))


# ----------------------------------------------------------------------------- payloads


def utc_memory(memory: Memory) -> Memory:
    """The memory with every datetime field as aware UTC (naive values are taken as UTC)."""
    fix = {f: ensure_utc(getattr(memory, f)) for f in _TIME_FIELDS if getattr(memory, f)}
    return memory.model_copy(update=fix)


def memory_payload(
    memory: Memory, doc_len: int, terms: Sequence[str] | None = None
) -> dict[str, Any]:
    """JSON payload of a memory point: the Memory fields plus ``created_us`` (order key),
    ``content_lc`` (lower-cased content for ``text_contains``), ``doc_len`` (terms),
    ``entity_keys`` (the normalised keys of ``entities``: the memory's entity links, see
    :mod:`.entities`) and ``terms`` (the keyword terms with repetitions, kept so a copy to
    another store needs no re-tokenizing; absent on points written before they were kept)."""
    data = memory.public_dict()
    data["created_us"] = to_us(memory.created_at)
    data["content_lc"] = memory.content.lower()
    data["doc_len"] = int(doc_len)
    data["entity_keys"] = entity_keys(memory.entities)
    if terms is not None:
        data["terms"] = [str(t) for t in terms]
    return data


def memory_point(
    memory: Memory,
    vector: list[float],
    terms: list[str],
    avgdl: float,
    legs: Mapping[str, list[float]] | None = None,
) -> models.PointStruct:
    """The point of a memory: id = memory id, ``dense`` = ``vector``, ``keyword`` = the BM25
    weights of ``terms`` at the tenant's average length ``avgdl``, each extra leg's named
    vector from ``legs`` (leg name -> vector), payload with the terms."""
    vectors: dict[str, Any] = {**(legs or {}), DENSE: vector}
    vectors[KEYWORD] = bm25_doc_vector(terms, avgdl)
    return models.PointStruct(
        id=str(memory.id),
        vector=vectors,
        payload=memory_payload(memory, len(terms), terms),
    )


def memory_from_payload(payload: dict[str, Any] | None) -> Memory:
    """Rebuild a Memory (``embedding`` stays None) from a point payload."""
    data = payload or {}
    return Memory.model_validate({k: data[k] for k in _MEMORY_FIELDS if k in data})


def event_payload(
    seq: int,
    memory: Memory,
    action: str,
    actor: str,
    *,
    before: Memory | None = None,
    after: Memory | None = None,
    reason: str | None = None,
    request_id: str | None = None,
    state: str = PENDING,
) -> dict[str, Any]:
    """Payload of an event point (point id = ``seq``)."""
    at = datetime.now(UTC)
    return {
        "seq": seq,
        "tenant_id": memory.tenant_id,
        "user_id": memory.user_id,
        "agent_id": memory.agent_id,
        "session_id": memory.session_id,
        "memory_id": str(memory.id),
        "action": action,
        "actor": actor,
        "at": at.isoformat(),
        "at_us": to_us(at),
        "day": at.date().isoformat(),
        "before": before.public_dict() if before is not None else None,
        "after": after.public_dict() if after is not None else None,
        "version_after": after.version if after is not None else None,
        "reason": reason,
        "request_id": request_id,
        "details": {},
        "state": state,
    }


def event_point(
    seq: int, event: Event, owner: Mapping[str, str | None], *, at: datetime, state: str
) -> dict[str, Any]:
    """Payload of an event point holding ``event`` as given (actor, snapshots, reason,
    details), recorded at ``at`` (aware UTC) with ``state``; ``owner`` holds the
    ``user_id``/``agent_id``/``session_id`` of the point."""
    after = event.after or None
    return {
        "seq": seq,
        "tenant_id": event.tenant_id,
        **owner,
        "memory_id": str(event.memory_id) if event.memory_id else None,
        "action": event.action.value,
        "actor": event.actor,
        "at": at.isoformat(),
        "at_us": to_us(at),
        "day": at.date().isoformat(),
        "before": event.before,
        "after": event.after,
        "version_after": after.get("version") if after else None,
        "reason": event.reason,
        "request_id": event.request_id,
        "details": event.details,
        "state": state,
    }


def imported_event_payload(
    seq: int, event: Event, owner: dict[str, str | None], *, import_point: bool
) -> dict[str, Any]:
    """Payload of a copied event (``write_records``): the event's own actor, time, snapshots
    and reason, a new ``seq``, state ``pending``. ``import_point`` tells the reconciler whether
    the event's record also writes a memory point (commit iff the point exists) or is a purged
    memory's history (events only: always committed)."""
    at = ensure_utc(event.at)
    assert at is not None
    return {**event_point(seq, event, owner, at=at, state=PENDING), "import_point": import_point}


def event_from_payload(payload: dict[str, Any] | None) -> Event:
    """Rebuild an Event (``id`` = the event's sequence number) from a point payload."""
    p = payload or {}
    return Event.model_validate(
        {
            "id": p.get("seq"),
            "tenant_id": p["tenant_id"],
            "memory_id": p.get("memory_id"),
            "action": p["action"],
            "actor": p["actor"],
            "at": p["at"],
            "before": p.get("before"),
            "after": p.get("after"),
            "reason": p.get("reason"),
            "request_id": p.get("request_id"),
            "details": p.get("details") or {},
        }
    )


# ----------------------------------------------------------------------------- filters


def match(key: str, value: Any) -> models.FieldCondition:
    """``key == value`` (keyword/integer/bool exact match)."""
    return models.FieldCondition(key=key, match=models.MatchValue(value=value))


def match_any(key: str, values: Sequence[Any]) -> models.FieldCondition:
    """``key`` is one of ``values``."""
    return models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))


def us_range(key: str, **bounds: int) -> models.FieldCondition:
    """Integer range condition (``gt``/``gte``/``lt``/``lte``) on ``key``."""
    return models.FieldCondition(key=key, range=models.Range(**bounds))


def scope_conditions(scope: Scope) -> list[models.Condition]:
    """``tenant_id == ...`` plus one condition per narrowing id that is set."""
    conds: list[models.Condition] = [match("tenant_id", scope.tenant_id)]
    for field in ("user_id", "agent_id", "session_id"):
        value = getattr(scope, field)
        if value is not None:
            conds.append(match(field, value))
    return conds


def scope_filter(scope: Scope, *extra: models.Condition) -> models.Filter:
    """A filter of the scope (tenant first) AND ``extra``."""
    return models.Filter(must=[*scope_conditions(scope), *extra])


def search_filter(scope: Scope, statuses: Iterable[MemoryStatus | str]) -> models.Filter:
    """Scope + status filter of a search; at least one status (empty is refused).

    Raises:
        InvalidInputError: empty or unknown status.
    """
    return scope_filter(scope, match_any("status", search_statuses(statuses)))


def memory_filter(scope: Scope, filters: MemoryFilter | None) -> models.Filter:
    """Filter of a listing: scope plus the MemoryFilter fields (AND).

    ``created_from``/``created_to`` are inclusive; ``text_contains`` is a case-insensitive
    substring match (``MatchSubstring`` on the lower-cased ``content_lc`` payload field: no
    wildcards, served by reading the payload of the points left by the other conditions);
    ``entity`` matches the key in the ``entity_keys`` payload array.
    """
    f = filters or MemoryFilter()
    extra: list[models.Condition] = []
    if f.memory_types:
        extra.append(match_any("memory_type", [t.value for t in f.memory_types]))
    if f.statuses:
        extra.append(match_any("status", status_values(f.statuses)))
    if f.sources:
        extra.append(match_any("source", [s.value for s in f.sources]))
    if f.text_contains:
        extra.append(
            models.FieldCondition(
                key="content_lc",
                match=models.MatchSubstring(substring=f.text_contains.lower()),
            )
        )
    bounds: dict[str, int] = {}
    if f.created_from is not None:
        bounds["gte"] = to_us(f.created_from)
    if f.created_to is not None:
        bounds["lte"] = to_us(f.created_to)
    if bounds:
        extra.append(us_range("created_us", **bounds))
    if f.entity is not None:
        extra.append(match("entity_keys", f.entity))
    return scope_filter(scope, *extra)


def has_tenant_condition(flt: models.Filter | None, tenant_id: str) -> bool:
    """Whether ``flt.must`` holds ``tenant_id == tenant_id`` (used by tests and assertions)."""
    if flt is None or not isinstance(flt.must, list):
        return False
    return any(
        isinstance(c, models.FieldCondition)
        and c.key == "tenant_id"
        and isinstance(c.match, models.MatchValue)
        and c.match.value == tenant_id
        for c in flt.must
    )
