"""Lifecycle operations of the PostgreSQL store (``PgLifecycle``, a part PostgresStore is composed of): access
counting, redaction of a purged memory's history, the index-presence probe and standalone
events.

Access counting is one ``UPDATE`` per search (rows locked in id order, so concurrent searches
cannot deadlock), without event or version bump; the keyword-statistics trigger ignores it
(status and terms are unchanged). Event snapshots are redacted by the SECURITY DEFINER function
``redact_memory_events`` of migration 0003 (events are otherwise append-only for the app
role), which only the owner may execute (``roles.sql``): redaction runs on the owner's
connection with the tenant set; traces, which the app role may delete and insert but not update, are rewritten by
delete + insert in the caller's transaction.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import psycopg
from psycopg import sql
from psycopg.types.json import Jsonb

from memory_engine.models import Event, Scope, ensure_utc
from memory_engine.stores.postgres.connection import PgConnection
from memory_engine.stores.postgres.sql import scope_filter
from memory_engine.stores.postgres.writes import insert_event
from memory_engine.stores.redaction import (
    check_event_scope,
    reason_kept,
    redact_trace,
    snapshot_has_content,
    trace_has_content,
    trace_quotes,
)

#: The traces of a tenant that may hold a memory's text: its id in the payload, or a query
#: that holds the content or is held by it (at least 8 characters, see ``redaction.quotes``).
_TRACES_OF = (
    "SELECT id, payload FROM traces WHERE tenant_id = %(t)s AND (payload::text LIKE %(id)s "
    "OR (%(c)s::text IS NOT NULL AND ((length(query) >= 8 AND "
    "position(lower(query) IN lower(%(c)s)) > 0) OR (length(%(c)s) >= 8 AND "
    "position(lower(%(c)s) IN lower(query)) > 0))))"
)


def redact_in_tx(
    cur: psycopg.Cursor[Any], memory_id: uuid.UUID, tenant_id: str, content: str | None = None
) -> dict[str, int]:
    """Redact events (snapshots and reasons, migration 0005) and traces of ``memory_id``
    inside the caller's transaction; ``content`` (the purged text, when known) also finds
    the traces whose query quotes it."""
    row = cur.execute("SELECT redact_memory_events(%s, %s)", [tenant_id, memory_id]).fetchone()
    events = int(row[0]) if row else 0
    traces = 0
    found = cur.execute(
        _TRACES_OF, {"t": tenant_id, "id": f"%{memory_id}%", "c": content}
    ).fetchall()
    for trace_id, payload in found:
        new_payload, changed = redact_trace(payload, memory_id, content)
        if not changed:
            continue
        old = cur.execute(
            "DELETE FROM traces WHERE tenant_id = %s AND id = %s "
            "RETURNING user_id, agent_id, session_id, created_at, returned, client_seq, "
            "tenant_seq",
            [tenant_id, trace_id],
        ).fetchone()
        if old is None:
            continue
        cur.execute(  # the same ordinals (migration 0008): the retention order is unchanged
            "INSERT INTO traces (id, tenant_id, user_id, agent_id, session_id, created_at, "
            "returned, client_seq, tenant_seq, query, payload) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)",
            [trace_id, tenant_id, *old, str(new_payload.get("query") or ""), Jsonb(new_payload)],
        )
        traces += 1
    return {"events": events, "traces": traces}


class PgLifecycle:
    """record_access, redact_history, index_presence and append_event for PostgreSQL."""

    def __init__(self, conn: PgConnection) -> None:
        self._conn = conn

    def record_access(self, memory_ids: Sequence[uuid.UUID], *, scope: Scope, at: datetime) -> int:
        """Add 1 to ``access_count``, move ``last_accessed_at`` forward to ``at``; one statement.

        No event, no version bump. Ids outside the scope are ignored. Returns rows updated.
        """
        ids = sorted({uuid.UUID(str(i)) for i in memory_ids})
        if not ids:
            return 0
        when = ensure_utc(at)
        with self._conn.tx(scope) as cur:
            cur.execute(
                "WITH hit AS (SELECT id FROM memories WHERE tenant_id = %(t)s AND id = ANY(%(ids)s) "
                "ORDER BY id FOR UPDATE) "
                "UPDATE memories m SET access_count = m.access_count + 1, "
                "last_accessed_at = GREATEST(coalesce(m.last_accessed_at, %(at)s), %(at)s) "
                "FROM hit WHERE m.tenant_id = %(t)s AND m.id = hit.id",
                {"t": scope.tenant_id, "ids": ids, "at": when},
            )
            return int(cur.rowcount or 0)

    def redact_history(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """Redact the memory's content from its events' snapshots and reasons and from stored
        traces (one transaction, idempotent; ``content`` also finds traces quoting it).
        Returns ``{"events": n, "traces": m}`` changed by this call."""
        with self._conn.owner_tx(scope) as cur:  # redact_memory_events is owner-only
            return redact_in_tx(cur, memory_id, scope.tenant_id, content)

    def index_presence(
        self, memory_id: uuid.UUID, *, scope: Scope, content: str | None = None
    ) -> dict[str, int]:
        """Counts of the id in the row table, its vector, the keyword postings, its entity
        links, events with non-redacted snapshots, events whose reason a purge erases
        (``reasons_with_content``) and traces with non-redacted candidate entries or (given
        ``content``) a query that quotes it."""
        t = scope.tenant_id
        with self._conn.tx(scope) as cur:
            row = cur.execute(
                "SELECT count(*), count(embedding) FROM memories WHERE tenant_id = %s AND id = %s",
                [t, memory_id],
            ).fetchone()
            postings = cur.execute(
                "SELECT count(*) FROM keyword_postings WHERE tenant_id = %s AND memory_id = %s",
                [t, memory_id],
            ).fetchone()
            links = cur.execute(
                "SELECT count(*) FROM entity_links WHERE tenant_id = %s AND memory_id = %s",
                [t, memory_id],
            ).fetchone()
            snaps = cur.execute(
                "SELECT before, after, action, reason FROM events "
                "WHERE tenant_id = %s AND memory_id = %s",
                [t, memory_id],
            ).fetchall()
            traces = cur.execute(
                _TRACES_OF, {"t": t, "id": f"%{memory_id}%", "c": content}
            ).fetchall()
        return {
            "row": int(row[0]) if row else 0,
            "vector": int(row[1]) if row else 0,
            "keyword_terms": int(postings[0]) if postings else 0,
            "entity_links": int(links[0]) if links else 0,
            "events_with_content": sum(
                1 for b, a, _, _ in snaps if snapshot_has_content(b) or snapshot_has_content(a)
            ),
            "reasons_with_content": sum(1 for _, _, act, r in snaps if reason_kept(act, r)),
            "traces_with_content": sum(
                1 for _, p in traces if trace_has_content(p, memory_id) or trace_quotes(p, content)
            ),
        }

    def delete_traces(self, *, scope: Scope) -> int:
        """Delete the traces of searches made in ``scope`` (user/agent/session narrow)."""
        params: dict[str, Any] = {}
        with self._conn.tx(scope) as cur:
            cur.execute(
                sql.SQL("DELETE FROM traces WHERE {}").format(scope_filter(scope, params)), params
            )
            return int(cur.rowcount or 0)

    def append_event(self, event: Event, *, scope: Scope) -> None:
        """Insert a standalone event (its ``at`` is the server clock).

        Raises:
            TenantScopeError: the event belongs to another tenant than the scope.
        """
        check_event_scope(event, scope)
        with self._conn.tx(scope) as cur:
            insert_event(
                cur,
                (
                    event.tenant_id,
                    scope.user_id,
                    scope.agent_id,
                    scope.session_id,
                    event.memory_id,
                    event.action.value,
                    event.actor,
                    Jsonb(event.before) if event.before is not None else None,
                    Jsonb(event.after) if event.after is not None else None,
                    event.reason,
                    event.request_id,
                    Jsonb(event.details),
                ),
            )
