"""``ReadService``, the read side of ``MemoryEngine``: get, list, facets, history, events, stats,
export, and the entity views (entities of a tenant, of a memory, memories of an entity)."""

from __future__ import annotations

import builtins
import json
import uuid
from collections.abc import Sequence
from typing import Any

from memory_engine.deps import EngineDeps, as_uuid, check_scope
from memory_engine.errors import InvalidInputError
from memory_engine.models import Entity, Memory, MemoryFilter, MemoryStatus, Page, Scope
from memory_engine.reads.spreadsheet import spreadsheet_csv
from memory_engine.stores.base import StoreStats


class ReadService:
    """Inspection calls; every one takes a ``Scope`` and is bounded by ``list_max_limit``.

    Args:
        deps: the bundle (settings, store).
    """

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def get(self, scope: Scope, memory_id: uuid.UUID | str) -> Memory:
        """One memory of the scope (any status). Raises MemoryNotFoundError."""
        return self._deps.store.get(as_uuid(memory_id), scope=check_scope(scope))

    def list(
        self,
        scope: Scope,
        *,
        filters: MemoryFilter | None = None,
        limit: int = 50,
        cursor: str | None = None,
        entity: str | None = None,
    ) -> Page:
        """Memories newest first, keyset-paginated; ``total`` = count under the filter.

        Args:
            entity: only memories linked to this entity (a name or a key: "ACME Inc." and
                "acme" are the same entity); overrides ``filters.entity``.

        Raises:
            InvalidInputError: ``entity`` names no entity, a bad limit or cursor.
        """
        if entity is not None:
            filters = (filters or MemoryFilter()).model_copy(
                update={"entity": MemoryFilter(entity=entity).entity}
            )
        return self._deps.store.list(
            scope=check_scope(scope),
            filters=filters,
            limit=self._deps.page_limit(limit),
            cursor=cursor,
        )

    def list_entities(
        self,
        scope: Scope,
        *,
        limit: int = 50,
        statuses: Sequence[MemoryStatus] = (),
    ) -> Page:
        """Entities the scope's memories name, most linked first (ties by key); ``items`` are
        :class:`~memory_engine.models.Entity` with ``memory_count`` (memories of ``statuses``,
        every status when empty); ``truncated`` when more entities exist than ``limit``
        (clamped to ``limits.list_max_limit``).

        Raises:
            InvalidInputError: limit < 1 or an unknown status.
        """
        return self._deps.store.list_entities(
            scope=check_scope(scope), limit=self._deps.page_limit(limit), statuses=statuses
        )

    def memory_entities(self, scope: Scope, memory_id: uuid.UUID | str) -> builtins.list[Entity]:
        """The entities one memory of the scope is linked to, in the order it names them.

        Raises:
            MemoryNotFoundError: no such memory in the scope.
        """
        return self._deps.store.memory_entities(as_uuid(memory_id), scope=check_scope(scope))

    def facet_counts(
        self, scope: Scope, *, filters: MemoryFilter | None = None
    ) -> dict[str, dict[str, int]]:
        """Counts per memory_type, status and source under ``filters``."""
        return self._deps.store.facet_counts(scope=check_scope(scope), filters=filters)

    def history(self, scope: Scope, memory_id: uuid.UUID | str) -> Page:
        """Audit events of one memory, oldest first."""
        return self._deps.store.history(as_uuid(memory_id), scope=check_scope(scope))

    def events(self, scope: Scope, *, limit: int = 100, cursor: str | None = None) -> Page:
        """Audit events of the tenant, newest first."""
        return self._deps.store.events(
            scope=check_scope(scope), limit=self._deps.page_limit(limit), cursor=cursor
        )

    def stats(self, scope: Scope, *, days: int = 90) -> StoreStats:
        """Counts by type/status/source and writes per day (UTC) of one tenant."""
        return self._deps.store.stats(scope=check_scope(scope), days=days)

    def tenant_counts(self, *, actor: str, reason: str = "overview") -> dict[str, int]:
        """Memories per tenant, across tenants: the one audited admin path."""
        return self._deps.store.admin_tenant_counts(actor=actor, reason=reason)

    def export(
        self,
        scope: Scope,
        *,
        filters: MemoryFilter | None = None,
        fmt: str = "json",
        max_rows: int = 100_000,
    ) -> tuple[bytes, bool]:
        """Export memories under ``filters`` as ``json`` (UTF-8, exact) or ``csv`` bytes (for
        spreadsheets: UTF-8 with BOM, formula-like cells prefixed with ``'``; ``csvsafe.py``).

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
                scope,
                filters=filters,
                limit=self._deps.settings.limits.list_max_limit,
                cursor=cursor,
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
        fields = list(rows[0]) if rows else list(Memory.model_fields)
        fields = [f for f in fields if f != "embedding"]
        return spreadsheet_csv(rows, fields), truncated
