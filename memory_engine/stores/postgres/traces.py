"""Storing a search trace in PostgreSQL under its retention bounds (:func:`insert_trace`).

Every trace gets two insertion ordinals (migration 0008), ``client_seq`` and ``tenant_seq``, and
a save deletes what falls outside the bounds of ``stores/trace_order.py`` (the rule every store
follows): one index range delete per bound that usually removes a single row, where an
``ORDER BY created_at DESC OFFSET n`` scan used to walk up to 20,000 traces of the tenant on
every search.
"""

from __future__ import annotations

from typing import Any

from psycopg import Cursor, sql
from psycopg.types.json import Jsonb

from memory_engine.config.domains import StorageSettings
from memory_engine.models import Scope, Trace, ensure_utc
from memory_engine.stores.trace_order import TraceOrdinals, retention_bounds

#: First key of the two-int advisory lock that serialises one tenant's trace saves (the
#: ordinals are read and written under it); distinct from the tenant write lock's.
TRACE_LOCK_NS = 7_241_931


def _client_condition(user_id: str | None, agent_id: str | None) -> tuple[sql.Composed, list[Any]]:
    """``user_id``/``agent_id`` equal to the trace's, or NULL when it has none (both forms
    use the ``traces_client_seq`` index, unlike ``IS NOT DISTINCT FROM``)."""
    parts: list[sql.Composed] = []
    params: list[Any] = []
    for column, value in (("user_id", user_id), ("agent_id", agent_id)):
        if value is None:
            parts.append(sql.SQL("{} IS NULL").format(sql.Identifier(column)))
        else:
            parts.append(sql.SQL("{} = %s").format(sql.Identifier(column)))
            params.append(value)
    return sql.SQL(" AND ").join(parts), params


def insert_trace(cur: Cursor[Any], trace: Trace, scope: Scope, storage: StorageSettings) -> None:
    """Insert ``trace`` (kept as it is, and nothing deleted, when its id is already stored),
    then delete what falls outside the bounds (``stores/trace_order.py``): this client's
    traces beyond ``trace_retention``, the tenant's beyond ``trace_retention_tenant``, and the
    tenant's older than ``trace_retention_days`` before this one. Three statements in the
    caller's tenant transaction.

    Args:
        cur: a cursor of a transaction with the tenant set (row-level security).
        trace: the trace; its ``scope`` names the client.
        scope: the tenant's scope (checked by the caller).
        storage: the retention settings (``trace_retention`` >= 1).
    """
    tenant = scope.tenant_id
    client, client_params = _client_condition(trace.scope.user_id, trace.scope.agent_id)
    cur.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", [TRACE_LOCK_NS, tenant])
    row = cur.execute(
        sql.SQL(
            "SELECT (SELECT coalesce(max(client_seq), 0) FROM traces "
            "WHERE tenant_id = %s AND {client}), "
            "(SELECT coalesce(max(tenant_seq), 0) FROM traces WHERE tenant_id = %s), "
            "EXISTS (SELECT 1 FROM traces WHERE tenant_id = %s AND id = %s)"
        ).format(client=client),
        [tenant, *client_params, tenant, tenant, trace.id],
    ).fetchone()
    if row is not None and row[2]:  # stored already: kept as it is, no ordinal taken
        return
    new = TraceOrdinals(*((int(row[0]) + 1, int(row[1]) + 1) if row else (1, 1)))
    created = ensure_utc(trace.created_at) or trace.created_at
    bounds = retention_bounds(new, created, storage)
    # The delete does not see the new row (one snapshot), which no bound removes anyway: it is
    # the newest of its client and of its tenant, and not older than the age cutoff.
    cur.execute(
        sql.SQL(
            "WITH added AS (INSERT INTO traces (id, tenant_id, user_id, agent_id, session_id, "
            "created_at, query, returned, payload, client_seq, tenant_seq) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s) "
            "ON CONFLICT (tenant_id, id) DO NOTHING) "
            "DELETE FROM traces WHERE tenant_id = %s AND (({client} AND client_seq <= %s) "
            "OR tenant_seq <= %s OR created_at < %s)"
        ).format(client=client),
        [
            trace.id,
            tenant,
            trace.scope.user_id,
            trace.scope.agent_id,
            trace.scope.session_id,
            created,
            trace.query,
            sum(1 for c in trace.candidates if c.dropped is None),
            Jsonb(trace.model_dump(mode="json")),
            new.client_seq,
            new.tenant_seq,
            tenant,
            *client_params,
            bounds.client_through,
            bounds.tenant_through,
            bounds.created_before,
        ],
    )
