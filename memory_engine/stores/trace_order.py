"""Trace retention by insertion ordinals, the same rule in every store.

Every stored trace gets two ordinals: ``client_seq`` among the traces of its client (tenant,
user and agent id) and ``tenant_seq`` among the tenant's. They only grow, so a client holds at
most ``newest client_seq - oldest client_seq + 1`` traces: deleting its traces with
``client_seq <= newest - trace_retention`` keeps at most ``trace_retention`` (the newest; fewer
when some were deleted in between), and the same with ``tenant_seq`` for
``trace_retention_tenant``. A save then deletes what usually is a single trace, found by an
index range, where counting or ordering the tenant's traces (up to 20,000) on every search
grew with the history.

The stores keep the ordinals their own way: PostgreSQL in two columns (migration 0008, the
newest read under an advisory lock), Qdrant in two counter points of its ``meta`` collection
(``stores/qdrant/traces.py``). Traces stored before the ordinals existed are numbered once in
their time order (:func:`number_traces`, as migration 0008 does in SQL).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from memory_engine.config.domains import StorageSettings
from memory_engine.models import ensure_utc

__all__ = [
    "RetentionBounds",
    "StoredTrace",
    "TraceOrdinals",
    "client_key",
    "number_traces",
    "retention_bounds",
]


@dataclass(frozen=True, slots=True)
class TraceOrdinals:
    """The ordinals of one trace: ``client_seq`` and ``tenant_seq``, each >= 1."""

    client_seq: int
    tenant_seq: int


@dataclass(frozen=True, slots=True)
class RetentionBounds:
    """What a save removes, beside the new trace (which no bound removes).

    Attributes:
        client_through: the client's traces with ``client_seq`` <= this go (may be <= 0).
        tenant_through: the tenant's traces with ``tenant_seq`` <= this go (may be <= 0).
        created_before: the tenant's traces created before this go (UTC); None = no age limit.
    """

    client_through: int
    tenant_through: int
    created_before: datetime | None


@dataclass(frozen=True, slots=True)
class StoredTrace:
    """What numbering needs of a stored trace: its id, client and creation time (UTC)."""

    trace_id: uuid.UUID
    user_id: str | None
    agent_id: str | None
    created_at: datetime


def client_key(user_id: str | None, agent_id: str | None) -> str:
    """The client of a trace as one text: ``user_id`` and ``agent_id``, a missing id distinct
    from any id (``[null, "bot"]`` is not ``["", "bot"]``)."""
    return json.dumps([user_id, agent_id])


def retention_bounds(
    new: TraceOrdinals, created: datetime, storage: StorageSettings
) -> RetentionBounds:
    """The bounds a trace saved with ordinals ``new`` at ``created`` sets.

    Args:
        new: the saved trace's ordinals.
        created: its creation time (naive = UTC).
        storage: ``trace_retention`` (>= 1 here: 0 stores no trace), ``trace_retention_tenant``
            and ``trace_retention_days`` (0 = no age limit).
    """
    when = ensure_utc(created) or created
    days = storage.trace_retention_days
    return RetentionBounds(
        client_through=new.client_seq - storage.trace_retention,
        tenant_through=new.tenant_seq - storage.trace_retention_tenant,
        created_before=when - timedelta(days=days) if days > 0 else None,
    )


def number_traces(traces: Iterable[StoredTrace]) -> dict[uuid.UUID, TraceOrdinals]:
    """Ordinals for traces of one tenant stored without them, in the order of their creation
    time, then id (the order of migration 0008): 1, 2, ... per client and for the tenant.

    Returns:
        trace id -> its ordinals.
    """
    ordered = sorted(traces, key=lambda t: (ensure_utc(t.created_at) or t.created_at, t.trace_id))
    per_client: dict[str, int] = {}
    out: dict[uuid.UUID, TraceOrdinals] = {}
    for n, t in enumerate(ordered, start=1):
        key = client_key(t.user_id, t.agent_id)
        per_client[key] = per_client.get(key, 0) + 1
        out[t.trace_id] = TraceOrdinals(client_seq=per_client[key], tenant_seq=n)
    return out
