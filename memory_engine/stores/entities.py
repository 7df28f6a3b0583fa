"""Backend-neutral logic of the entity index (:class:`~memory_engine.stores.base.EntityIndex`).

Both stores link a memory to the entities its ``Memory.entities`` names, keyed by
:func:`memory_engine.entities.entity_key` and identified by
:func:`memory_engine.entities.entity_id` (so the same name gives the same id in PostgreSQL
and Qdrant). What differs is only where the links live (a link table; a payload field of the
memory point); what a listing returns, in which order, how it is bounded and how a memory's
entities are ordered is decided here, once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, datetime

from memory_engine.entities import EntityRef, entity_id, entity_refs
from memory_engine.models import Entity, Memory, MemoryFilter, MemoryStatus, Page, Scope
from memory_engine.stores.common import check_limit, status_values

__all__ = [
    "ENTITY_KINDS_KEY",
    "EntityRef",
    "entity_limit",
    "entity_memories",
    "entity_page",
    "entity_record",
    "link_refs",
    "ordered_entities",
    "ranked_keys",
    "status_filter",
]


#: Metadata key of a memory holding the kinds of its entities (name -> kind), optional.
ENTITY_KINDS_KEY = "entity_kinds"


def link_refs(memory: Memory) -> list[EntityRef]:
    """The entities a memory is linked to: one per distinct key of ``memory.entities``, in
    first-seen order (bounded by ``entities.MAX_ENTITIES_PER_MEMORY``), with the kinds of
    ``memory.metadata["entity_kinds"]`` when a writer gave them (kept on the entity when it
    is first created)."""
    kinds = memory.metadata.get(ENTITY_KINDS_KEY)
    return entity_refs(memory.entities, kinds if isinstance(kinds, Mapping) else None)


def entity_record(
    tenant_id: str,
    key: str,
    name: str,
    kind: str | None,
    created_at: datetime,
    memory_count: int | None = None,
) -> Entity:
    """An :class:`Entity` with the id derived from tenant and key."""
    return Entity(
        id=entity_id(tenant_id, key),
        tenant_id=tenant_id,
        key=key,
        name=name,
        kind=kind,
        created_at=created_at,
        memory_count=memory_count,
    )


def ranked_keys(counts: Mapping[str, int], limit: int) -> tuple[list[tuple[str, int]], bool]:
    """The ``limit`` most linked keys, most linked first, ties by key (code-point order).

    Returns:
        ((key, count) pairs, truncated): ``truncated`` is True when more keys have links.
    """
    ordered = sorted(((k, n) for k, n in counts.items() if n > 0), key=lambda kv: (-kv[1], kv[0]))
    return ordered[:limit], len(ordered) > limit


def entity_page(
    scope: Scope,
    ranked: Sequence[tuple[str, int]],
    truncated: bool,
    records: Mapping[str, Entity],
) -> Page:
    """The page of a listing: one Entity per ranked key with its count, in rank order.

    A key without a stored entity record (a link written by an older version, or an entity
    record lost in a crash between the two writes) is shown with its key as the name.
    """
    items: list[Entity] = []
    for key, n in ranked:
        known = records.get(key)
        if known is not None:
            items.append(known.model_copy(update={"memory_count": n}))
        else:
            items.append(entity_record(scope.tenant_id, key, key, None, _EPOCH, n))
    return Page(items=items, total=None, truncated=truncated)


def ordered_entities(memory: Memory, records: Mapping[str, Entity]) -> list[Entity]:
    """The entities of ``memory`` in the order its ``entities`` name them (see
    :func:`entity_page` for a key without a stored record)."""
    out: list[Entity] = []
    for ref in link_refs(memory):
        known = records.get(ref.key)
        out.append(
            known
            if known is not None
            else entity_record(memory.tenant_id, ref.key, ref.name, ref.kind, memory.created_at)
        )
    return out


def status_filter(statuses: Sequence[MemoryStatus | str]) -> list[str]:
    """The statuses whose memories count (every status when empty).

    Raises:
        InvalidInputError: an unknown status.
    """
    return status_values(statuses) if statuses else [s.value for s in MemoryStatus]


def entity_limit(limit: int, hard_max: int) -> int:
    """``limit`` clamped to ``hard_max`` (``settings.limits.list_max_limit``).

    Raises:
        InvalidInputError: limit < 1.
    """
    return check_limit(limit, hard_max)


def entity_memories(
    list_memories: Callable[..., Page],
    entity: str,
    *,
    scope: Scope,
    limit: int,
    cursor: str | None,
    statuses: Sequence[MemoryStatus],
) -> Page:
    """Memories linked to ``entity`` (a name or a key) through the store's own ``list``:
    newest first, keyset-paginated, ``total`` = the number linked in the scope.

    Raises:
        InvalidInputError: ``entity`` names no entity, a bad limit or cursor.
    """
    filters = MemoryFilter(entity=entity, statuses=tuple(MemoryStatus(s) for s in statuses))
    page: Page = list_memories(scope=scope, filters=filters, limit=limit, cursor=cursor)
    return page


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
