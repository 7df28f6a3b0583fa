"""Lifecycle operations of the Qdrant store (:class:`QdrantLifecycle`, a part of QdrantStore):
access counting, redaction of a purged memory's history, the index-presence probe and trace
deletion.

Access counting: one filtered scroll of the hit ids plus one ``batch_update_points`` of
``SetPayload`` operations (only ``access_count`` and ``last_accessed_at``; the version is not
bumped), under the store's write lock. Across processes on a server two concurrent searches can
lose an increment (read-modify-write); counts are advisory, versions are not involved.
Redaction rewrites the ``before``/``after`` of the memory's event points and the ``trace``
payload of trace points (:mod:`memory_engine.stores.redaction`); it is idempotent, so a crash half-way is repaired
by calling it again (the engine's verified purge does, and checks the result); the purge itself
runs it through :func:`redact_in`.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.models import Scope, ensure_utc
from memory_engine.stores.qdrant.codec import (
    DENSE,
    KEYWORD,
    match,
    scope_filter,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.redaction import (
    REDACTED,
    reason_kept,
    redact_snapshot,
    redact_trace,
    snapshot_has_content,
    trace_has_content,
    trace_quotes,
)


def redact_in(
    client: QdrantClient,
    conn: QdrantConnection,
    memory_id: uuid.UUID,
    tenant: str,
    content: str | None = None,
) -> dict[str, int]:
    """Redact the memory's content from its event snapshots and reasons and from the tenant's
    traces (``content``, when known, also erases query texts quoting it), on a client the
    caller holds (under ``conn.writing()``). Idempotent.

    Returns:
        ``{"events": n, "traces": m}``: the points changed by this call.
    """
    tenant_scope = Scope.of(tenant)
    events = scroll_all(
        client,
        conn.events,
        scope_filter(tenant_scope, match("memory_id", str(memory_id))),
        with_payload=["before", "after", "action", "reason"],
    )
    n_events = 0
    for e in events:
        p = e.payload or {}
        erase_reason = reason_kept(p.get("action"), p.get("reason"))
        if (
            snapshot_has_content(p.get("before"))
            or snapshot_has_content(p.get("after"))
            or erase_reason
        ):
            patch: dict[str, Any] = {
                "before": redact_snapshot(p.get("before")),
                "after": redact_snapshot(p.get("after")),
            }
            if erase_reason:
                patch["reason"] = REDACTED
            client.set_payload(conn.events, patch, points=[e.id])
            n_events += 1
    n_traces = 0
    for t in scroll_all(client, conn.traces, scope_filter(tenant_scope), with_payload=["trace"]):
        trace = (t.payload or {}).get("trace") or {}
        new, changed = redact_trace(trace, memory_id, content)
        if changed:
            client.set_payload(conn.traces, {"trace": new}, points=[t.id])
            n_traces += 1
    return {"events": n_events, "traces": n_traces}


class QdrantLifecycle:
    """record_access, redact_history, index_presence and delete_traces for Qdrant.

    Args:
        conn: the store's connection.
    """

    def __init__(self, conn: QdrantConnection) -> None:
        self._conn = conn

    def record_access(self, memory_ids: Sequence[uuid.UUID], *, scope: Scope, at: datetime) -> int:
        """Add 1 to ``access_count``, move ``last_accessed_at`` forward to ``at``.

        No event, no version bump. Ids outside the scope are ignored. Returns points updated.
        """
        ids = sorted({str(i) for i in memory_ids})
        if not ids or not self._conn.memories_exist():
            return 0
        when = ensure_utc(at)
        assert when is not None
        flt = scope_filter(scope, models.HasIdCondition(has_id=list(ids)))
        with self._conn.writing() as client:
            rows = scroll_all(
                client, self._conn.memories, flt, with_payload=["access_count", "last_accessed_at"]
            )
            ops: list[models.UpdateOperation] = []
            for r in rows:
                p = r.payload or {}
                last = (
                    ensure_utc(datetime.fromisoformat(p["last_accessed_at"]))
                    if p.get("last_accessed_at")
                    else None
                )
                newest = max(last, when) if last is not None else when
                ops.append(
                    models.SetPayloadOperation(
                        set_payload=models.SetPayload(
                            payload={
                                "access_count": int(p.get("access_count") or 0) + 1,
                                "last_accessed_at": newest.astimezone(UTC).isoformat(),
                            },
                            points=[r.id],
                        )
                    )
                )
            if ops:
                client.batch_update_points(self._conn.memories, update_operations=ops)
        return len(ops)

    def redact_history(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """Redact the memory's content from its events' snapshots and reasons and from stored
        traces (idempotent; ``content`` also erases query texts quoting it). Returns
        ``{"events": n, "traces": m}`` changed by this call."""
        with self._conn.writing() as client:
            return redact_in(client, self._conn, memory_id, scope.tenant_id, content)

    def index_presence(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """Counts of the id as a point, its dense and keyword vectors, its entity links (the
        point's ``entity_keys``), events with non-redacted snapshots, events whose reason a
        purge erases and traces with non-redacted candidate entries or (given ``content``) a
        query quoting it."""
        tenant_scope = Scope.of(scope.tenant_id)
        point = self._conn.fetch(str(memory_id), tenant_scope, with_vectors=True)
        vectors: dict[str, Any] = dict(point.vector or {}) if point is not None else {}
        with self._conn.reading() as client:
            events = scroll_all(
                client,
                self._conn.events,
                scope_filter(tenant_scope, match("memory_id", str(memory_id))),
                with_payload=["before", "after", "action", "reason"],
            )
            traces = scroll_all(
                client, self._conn.traces, scope_filter(tenant_scope), with_payload=["trace"]
            )
        return {
            "row": int(point is not None),
            "vector": int(DENSE in vectors),
            "keyword_terms": int(KEYWORD in vectors),
            "entity_links": len((point.payload or {}).get("entity_keys") or [])
            if point is not None
            else 0,
            "events_with_content": sum(
                1
                for e in events
                if snapshot_has_content((e.payload or {}).get("before"))
                or snapshot_has_content((e.payload or {}).get("after"))
            ),
            "reasons_with_content": sum(
                1
                for e in events
                if reason_kept((e.payload or {}).get("action"), (e.payload or {}).get("reason"))
            ),
            "traces_with_content": sum(
                1
                for t in traces
                if trace_has_content((t.payload or {}).get("trace") or {}, memory_id)
                or trace_quotes((t.payload or {}).get("trace") or {}, content)
            ),
        }

    def delete_traces(self, *, scope: Scope) -> int:
        """Delete the traces of searches made in ``scope`` (user/agent/session narrow)."""
        flt = scope_filter(scope)
        with self._conn.writing() as client:
            n = int(client.count(self._conn.traces, count_filter=flt, exact=True).count)
            if n:
                client.delete(self._conn.traces, points_selector=models.FilterSelector(filter=flt))
        return n
