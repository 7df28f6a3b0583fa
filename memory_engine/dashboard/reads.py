"""The dashboard's scoped reads: every page search, listing and lookup goes through here.

Each call first checks that the signed-in ``Account`` may read the tenant (role viewer or
above, tenant granted), then calls the engine with ``Scope.of(tenant)``. The Query Replay and
Memories pages call these functions, and so does the isolation check's dashboard path
(``memory_engine.dashboard.isolation_probe``), with a viewer granted a single tenant.

No Streamlit import: usable (and tested) outside a script run.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

from memory_engine import MemoryEngine
from memory_engine.models import Entity, Memory, MemoryFilter, Page, Scope, SearchResult
from memory_engine.security.auth import Account, Action, PermissionDeniedError


def _scope(account: Account | None, tenant: str, **narrow: str | None) -> Scope:
    """``Scope.of(tenant, **narrow)`` after the grant check (``narrow``: user_id, agent_id,
    session_id, each None = any).

    Raises:
        PermissionDeniedError: no account, or the account may not read ``tenant``.
        TenantScopeError: ``tenant`` is not a valid id.
    """
    if account is None:
        raise PermissionDeniedError("not signed in", action=Action.READ.value, tenant=tenant)
    account.require(Action.READ, tenant)
    return Scope.of(tenant, **narrow)


def search(
    engine: MemoryEngine, account: Account | None, tenant: str, query: str, **options: Any
) -> SearchResult:
    """A traced search of ``tenant`` for ``account`` (``options`` as ``MemoryEngine.search``).

    Raises:
        PermissionDeniedError: the account may not read ``tenant``; engine errors propagate.
    """
    return engine.search(_scope(account, tenant), query, **options)


def list_memories(
    engine: MemoryEngine,
    account: Account | None,
    tenant: str,
    *,
    filters: MemoryFilter | None = None,
    limit: int = 50,
    cursor: str | None = None,
    narrow: Mapping[str, str | None] | None = None,
) -> Page:
    """One keyset page of ``tenant``'s memories (bounded by ``limit``; ``truncated``/cursor).

    Args:
        narrow: only the memories of these ``user_id``/``agent_id``/``session_id`` values
            (None or a missing key = any).

    Raises:
        PermissionDeniedError: the account may not read ``tenant``; engine errors propagate.
        TenantScopeError: a ``narrow`` value is not a valid id.
    """
    scope = _scope(account, tenant, **dict(narrow or {}))
    return engine.list(scope, filters=filters, limit=limit, cursor=cursor)


def get_memory(
    engine: MemoryEngine, account: Account | None, tenant: str, memory_id: uuid.UUID | str
) -> Memory:
    """One memory of ``tenant`` by id.

    Raises:
        PermissionDeniedError: the account may not read ``tenant``.
        MemoryNotFoundError: no such memory in ``tenant`` (also when it belongs to another).
    """
    return engine.get(_scope(account, tenant), memory_id)


def list_entities(
    engine: MemoryEngine, account: Account | None, tenant: str, *, limit: int = 200
) -> Page:
    """The entities of ``tenant``, most linked first, with counts (``truncated`` when more).

    Raises:
        PermissionDeniedError: the account may not read ``tenant``; engine errors propagate.
    """
    return engine.list_entities(_scope(account, tenant), limit=limit)


def memory_entities(
    engine: MemoryEngine, account: Account | None, tenant: str, memory_id: uuid.UUID | str
) -> list[Entity]:
    """The entities one memory of ``tenant`` is linked to, in the order it names them.

    Raises:
        PermissionDeniedError: the account may not read ``tenant``.
        MemoryNotFoundError: no such memory in ``tenant`` (also when it belongs to another).
    """
    return engine.memory_entities(_scope(account, tenant), memory_id)
