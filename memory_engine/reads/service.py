"""``ReadService``, the read side of ``MemoryEngine``: get, list, facets, history, events, stats, export."""

from __future__ import annotations

import json
import uuid
from typing import Any

from memory_engine.deps import EngineDeps, as_uuid, check_scope
from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, MemoryFilter, Page, Scope
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
    ) -> Page:
        """Memories newest first, keyset-paginated; ``total`` = count under the filter."""
        return self._deps.store.list(
            scope=check_scope(scope),
            filters=filters,
            limit=self._deps.page_limit(limit),
            cursor=cursor,
        )

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
