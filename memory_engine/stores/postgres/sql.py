"""SQL building blocks of the PostgreSQL store: columns, row mapping, scope filters, cursors.

Identifiers are composed with :mod:`psycopg.sql`; values are always bound as named parameters
(``%(name)s``) in a ``params`` dict that the caller passes with the query.

The dense retrieval leg (pgvector cosine) lives here too (the keyword leg is in
:mod:`memory_engine.stores.postgres.keyword`); it runs inside a transaction whose ``app.tenant_id`` is
already set (row-level security) and additionally filters by the scope explicitly.

Dense search and pgvector 0.8 (iterative index scans). A plain HNSW scan yields at most
``hnsw.ef_search`` rows and the tenant/status filter is applied *after* it, so a tenant holding
1% of the rows got about 1% of ``ef_search`` rows back (pgvector 0.6). With
``hnsw.iterative_scan = relaxed_order`` the scan goes on past ``ef_search`` until ``k`` rows
pass the filter or ``hnsw.max_scan_tuples`` index tuples were visited; ``relaxed_order`` may
return rows slightly out of distance order, so the query re-sorts its ``k`` rows over a
MATERIALIZED CTE. Therefore:

1. count the rows matching scope + status (:func:`matching_rows`: trigger-kept statistics for a
   tenant-wide scope, a count bounded by ``exact_search_max_rows`` for a narrowed one);
2. up to ``exact_search_max_rows`` matching rows: exact scan over a MATERIALIZED CTE (the
   ORDER BY runs over the CTE, which no index can serve, so HNSW is never used);
3. above: HNSW with the iterative scan (``ef_search`` = ``max(k, 40)`` up to
   ``hnsw_ef_search_max``, ``max_scan_tuples`` = ``hnsw_max_scan_tuples``); when it still
   returns fewer than ``min(k, matching)`` rows (the scan stopped at ``max_scan_tuples``: a
   tenant holding a tiny share of a large table, or whose rows lie far from the query), log a
   warning and re-run exactly. A server whose pgvector predates 0.8 always scans exactly.

Either way the result has ``min(k, matching)`` candidates.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np
from psycopg import Cursor, sql
from psycopg.types.json import Jsonb

from memory_engine.entities import entity_id
from memory_engine.models import (
    Candidate,
    Event,
    Memory,
    MemoryFilter,
    Scope,
    ensure_utc,
)
from memory_engine.stores.base import EXTRA_LEGS, STAGING_LEG
from memory_engine.stores.common import status_values

#: Vector column of each extra leg (and of the reembed staging leg, migration 0007).
LEG_COLUMNS: dict[str, str] = {"dense_ml": "embedding_ml", STAGING_LEG: "embedding_next"}
#: Columns of the extra legs (:data:`EXTRA_LEGS`) that an insert writes with the row.
INSERT_LEG_COLUMNS: tuple[str, ...] = tuple(LEG_COLUMNS[leg] for leg in EXTRA_LEGS)

#: Memory columns read back (the embedding is not loaded; ``Memory.embedding`` stays None).
MEMORY_COLUMNS: tuple[str, ...] = (
    "id",
    "tenant_id",
    "user_id",
    "agent_id",
    "session_id",
    "content",
    "memory_type",
    "entities",
    "tags",
    "importance",
    "confidence",
    "source",
    "source_ref",
    "observed_at",
    "status",
    "superseded_by",
    "valid_from",
    "valid_until",
    "created_at",
    "updated_at",
    "last_accessed_at",
    "access_count",
    "version",
    "embedding_model",
    "content_hash",
    "metadata",
)

EVENT_COLUMNS: tuple[str, ...] = (
    "id",
    "tenant_id",
    "memory_id",
    "action",
    "actor",
    "at",
    "before",
    "after",
    "reason",
    "request_id",
    "details",
)


def columns(names: Iterable[str], alias: str | None = None) -> sql.Composable:
    """Comma-separated (optionally alias-qualified) column identifiers."""
    if alias:
        return sql.SQL(", ").join(sql.Identifier(alias, n) for n in names)
    return sql.SQL(", ").join(sql.Identifier(n) for n in names)


def memory_from_row(row: Sequence[Any]) -> Memory:
    """Build a Memory from a row selected with :data:`MEMORY_COLUMNS` (in that order)."""
    data = dict(zip(MEMORY_COLUMNS, row, strict=False))
    data["entities"] = tuple(data["entities"] or ())
    data["tags"] = tuple(data["tags"] or ())
    data["metadata"] = data["metadata"] or {}
    return Memory.model_validate(data)


def memory_params(memory: Memory) -> dict[str, Any]:
    """Column values of a Memory (without embedding/terms), ready to bind."""
    return {
        "id": memory.id,
        "tenant_id": memory.tenant_id,
        "user_id": memory.user_id,
        "agent_id": memory.agent_id,
        "session_id": memory.session_id,
        "content": memory.content,
        "memory_type": memory.memory_type.value,
        "entities": list(memory.entities),
        "tags": list(memory.tags),
        "importance": memory.importance,
        "confidence": memory.confidence,
        "source": memory.source.value,
        "source_ref": memory.source_ref,
        "observed_at": memory.observed_at,
        "status": memory.status.value,
        "superseded_by": memory.superseded_by,
        "valid_from": memory.valid_from,
        "valid_until": memory.valid_until,
        "created_at": memory.created_at,
        "updated_at": memory.updated_at,
        "last_accessed_at": memory.last_accessed_at,
        "access_count": memory.access_count,
        "version": memory.version,
        "embedding_model": memory.embedding_model,
        "content_hash": memory.content_hash,
        "metadata": Jsonb(memory.metadata),
    }


def event_from_row(row: Sequence[Any]) -> Event:
    """Build an Event from a row selected with :data:`EVENT_COLUMNS`."""
    data = dict(zip(EVENT_COLUMNS, row, strict=False))
    data["details"] = data["details"] or {}
    return Event.model_validate(data)


def snapshot(memory: Memory) -> Jsonb:
    """JSON snapshot of a memory for an event (embedding excluded)."""
    return Jsonb(memory.public_dict())


def scope_filter(scope: Scope, params: dict[str, Any], alias: str | None = None) -> sql.Composed:
    """``tenant_id = ... [AND user_id = ...] [AND agent_id = ...] [AND session_id = ...]``.

    The explicit tenant predicate duplicates the row-level-security policy on purpose (defence
    in depth, and it lets the planner use the tenant-leading indexes). Fills ``params``.
    """
    parts = []
    params["scope_tenant"] = scope.tenant_id
    for column, value in (
        ("tenant_id", scope.tenant_id),
        ("user_id", scope.user_id),
        ("agent_id", scope.agent_id),
        ("session_id", scope.session_id),
    ):
        if value is None:
            continue
        key = f"scope_{column.removesuffix('_id')}"
        params[key] = value
        ident = sql.Identifier(alias, column) if alias else sql.Identifier(column)
        parts.append(sql.SQL("{} = {}").format(ident, sql.Placeholder(key)))
    return sql.SQL(" AND ").join(parts)


def escape_like(text: str) -> str:
    r"""Escape ``\``, ``%`` and ``_`` for a LIKE/ILIKE pattern with ``ESCAPE '\'``."""
    return text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")


def memory_filter(
    scope: Scope, filters: MemoryFilter | None, params: dict[str, Any]
) -> sql.Composed:
    """WHERE clause (without ``WHERE``) of a listing: scope plus the MemoryFilter fields.

    ``created_from`` and ``created_to`` are inclusive bounds; ``text_contains`` is a
    case-insensitive substring match (wildcards in the text are literal); ``entity`` keeps the
    memories with a link to that entity (migration 0004). The clause reads ``memories``
    unaliased.
    """
    parts: list[sql.Composable] = [scope_filter(scope, params)]
    f = filters or MemoryFilter()
    if f.memory_types:
        params["f_types"] = [t.value for t in f.memory_types]
        parts.append(sql.SQL("memory_type = ANY(%(f_types)s)"))
    if f.statuses:
        params["f_statuses"] = status_values(f.statuses)
        parts.append(sql.SQL("status = ANY(%(f_statuses)s)"))
    if f.sources:
        params["f_sources"] = [s.value for s in f.sources]
        parts.append(sql.SQL("source = ANY(%(f_sources)s)"))
    if f.text_contains:
        params["f_text"] = f"%{escape_like(f.text_contains)}%"
        parts.append(sql.SQL("content ILIKE %(f_text)s ESCAPE '\\'"))
    if f.created_from is not None:
        params["f_from"] = ensure_utc(f.created_from)
        parts.append(sql.SQL("created_at >= %(f_from)s"))
    if f.created_to is not None:
        params["f_to"] = ensure_utc(f.created_to)
        parts.append(sql.SQL("created_at <= %(f_to)s"))
    if f.entity is not None:
        params["f_entity"] = entity_id(scope.tenant_id, f.entity)
        parts.append(
            sql.SQL(
                "EXISTS (SELECT 1 FROM entity_links l WHERE l.tenant_id = memories.tenant_id "
                "AND l.memory_id = memories.id AND l.entity_id = %(f_entity)s)"
            )
        )
    return sql.SQL(" AND ").join(parts)


def hnsw_ef_search(k: int, ef_max: int) -> int:
    """``hnsw.ef_search`` of an iterative scan: ``min(ef_max, max(k, 40))`` (40 is pgvector's
    default; the iterative scan, not a larger list, finds a small tenant's rows)."""
    return max(1, min(ef_max, max(k, 40)))


# ---------------------------------------------------------------- retrieval legs

logger = logging.getLogger("memory_engine.stores.postgres.store")


def _match_filter(scope: Scope, statuses: list[str], params: dict[str, Any]) -> sql.Composed:
    params["statuses"] = statuses
    return sql.SQL("{} AND status = ANY(%(statuses)s)").format(scope_filter(scope, params))


def _candidates(rows: Sequence[Sequence[Any]], score: str, rank: str) -> list[Candidate]:
    n = len(MEMORY_COLUMNS)
    return [
        Candidate(
            memory=memory_from_row(row[:n]),
            scores={score: float(row[n])},
            ranks={rank: i},
        )
        for i, row in enumerate(rows, start=1)
    ]


#: Estimated rows of the whole ``memories`` table (all tenants), from planner statistics.
#: RLS hides other tenants' rows from ``count(*)``; ``pg_class.reltuples`` and the live-tuple
#: counter of the statistics system are estimates visible to the app role. The counter is read
#: with ``pg_stat_get_live_tuples`` (what ``pg_stat_user_tables.n_live_tup`` shows): that view
#: computes every column for every table and cost about 0.6 ms a search.
_TABLE_ROWS = (
    "SELECT greatest(c.reltuples, coalesce(pg_stat_get_live_tuples(c.oid), 0)::real) "
    "FROM pg_class c WHERE c.oid = 'memories'::regclass"
)


def table_rows(cur: Cursor[Any]) -> float:
    """Estimated rows of the whole ``memories`` table (all tenants); 0 when unknown."""
    row = cur.execute(_TABLE_ROWS).fetchone()
    return float(row[0]) if row and row[0] is not None else 0.0


def matching_rows(
    cur: Cursor[Any],
    scope: Scope,
    where: sql.Composable,
    params: dict[str, Any],
    exact_max_rows: int,
    column: str = "embedding",
) -> tuple[int, float | None]:
    """Rows the dense leg searches, as cheaply as the exact/HNSW decision allows.

    Returns ``(matching, table)``: ``table`` is :func:`table_rows` when it came in the same
    statement, else None.

    * Tenant-wide scope, on any vector column: the trigger-kept ``keyword_corpus`` row count
      of the tenant and statuses (a few primary-key lookups; it also counts rows without a
      vector in ``column``, e.g. an extra leg still being filled, which can make the HNSW
      branch re-run exactly, which keeps the result complete), with the table estimate in the
      same statement.
    * Narrowed scope (user, agent or session): ``count(*)`` stopped at ``exact_max_rows + 1``
      rows; only above that is the full count taken (the HNSW shortfall check compares with it).

    A full ``count(*)`` over 100k rows cost about 60-100 ms, more than the HNSW scan itself
    (an extra leg counted that way made ``engine.search`` at 100k memories ~120 ms p50).
    """
    tenant_wide = scope.user_id is None and scope.agent_id is None and scope.session_id is None
    if tenant_wide:
        row = cur.execute(
            sql.SQL(
                "SELECT (SELECT coalesce(sum(n), 0)::bigint FROM keyword_corpus "
                "WHERE tenant_id = %(scope_tenant)s AND status = ANY(%(statuses)s)), ({})"
            ).format(sql.SQL(_TABLE_ROWS)),
            params,
        ).fetchone()
        if row is None:
            return 0, None
        return int(row[0]), float(row[1]) if row[1] is not None else 0.0
    bounded = cur.execute(
        sql.SQL(
            "SELECT count(*) FROM (SELECT 1 FROM memories WHERE {} AND {} IS NOT NULL "
            "LIMIT %(count_cap)s) capped"
        ).format(where, sql.Identifier(column)),
        {**params, "count_cap": exact_max_rows + 1},
    ).fetchone()
    matching = int(bounded[0]) if bounded else 0
    if matching <= exact_max_rows:
        return matching, None
    full = cur.execute(
        sql.SQL("SELECT count(*) FROM memories WHERE {} AND {} IS NOT NULL").format(
            where, sql.Identifier(column)
        ),
        params,
    ).fetchone()
    return (int(full[0]) if full else 0), None


def _exact_query(where: sql.Composable, column: str = "embedding") -> sql.Composed:
    # The CTE holds only (id, distance), 24 bytes a row, so it stays in work_mem; ordering
    # over a MATERIALIZED CTE can never use the HNSW index.
    return sql.SQL(
        """
        WITH scoped AS MATERIALIZED (
            SELECT id, {col} <=> %(q)s AS distance
            FROM memories WHERE {where} AND {col} IS NOT NULL
        ), top AS (
            SELECT id, distance FROM scoped ORDER BY distance, id LIMIT %(k)s
        )
        SELECT {cols}, 1 - top.distance
        FROM top JOIN memories m ON m.tenant_id = %(scope_tenant)s AND m.id = top.id
        ORDER BY top.distance, m.id
        """
    ).format(where=where, cols=columns(MEMORY_COLUMNS, "m"), col=sql.Identifier(column))


def _hnsw_query(where: sql.Composable, column: str = "embedding") -> sql.Composed:
    # relaxed_order may yield rows slightly out of order: re-sort the k rows (pgvector's advice).
    return sql.SQL(
        """
        WITH nearest AS MATERIALIZED (
            SELECT {cols}, {col} <=> %(q)s AS distance
            FROM memories
            WHERE {where} AND {col} IS NOT NULL
            ORDER BY {col} <=> %(q)s
            LIMIT %(k)s
        )
        SELECT {out}, 1 - distance FROM nearest ORDER BY distance, id
        """
    ).format(
        where=where,
        cols=columns(MEMORY_COLUMNS),
        out=columns(MEMORY_COLUMNS),
        col=sql.Identifier(column),
    )


def _exact(
    cur: Cursor[Any], where: sql.Composable, params: dict[str, Any], column: str = "embedding"
) -> list[tuple[Any, ...]]:
    return cur.execute(_exact_query(where, column), params).fetchall()


def _hnsw_settings(cur: Cursor[Any], ef_search: int, max_scan_tuples: int) -> None:
    cur.execute(
        "SELECT set_config('hnsw.ef_search', %s, true), "
        "set_config('hnsw.iterative_scan', 'relaxed_order', true), "
        "set_config('hnsw.max_scan_tuples', %s, true)",
        [str(ef_search), str(max_scan_tuples)],
    )


def _hnsw(
    cur: Cursor[Any],
    where: sql.Composable,
    params: dict[str, Any],
    ef_search: int,
    max_scan_tuples: int,
    column: str = "embedding",
) -> list[tuple[Any, ...]]:
    _hnsw_settings(cur, ef_search, max_scan_tuples)
    return cur.execute(_hnsw_query(where, column), params).fetchall()


def explain_dense(
    cur: Cursor[Any],
    vector: np.ndarray,
    *,
    scope: Scope,
    k: int,
    statuses: list[str],
    exact: bool,
    ef_max: int = 1000,
    max_scan_tuples: int = 20_000,
) -> str:
    """EXPLAIN text of the exact or the HNSW dense query (diagnostics and tests); the HNSW one
    under the iterative-scan settings :func:`dense_search` uses (SET LOCAL)."""
    params: dict[str, Any] = {"q": vector, "k": k}
    where = _match_filter(scope, statuses, params)
    if not exact:
        _hnsw_settings(cur, hnsw_ef_search(k, ef_max), max_scan_tuples)
    query = _exact_query(where) if exact else _hnsw_query(where)
    rows = cur.execute(sql.SQL("EXPLAIN ") + query, params).fetchall()
    return "\n".join(r[0] for r in rows)


def dense_search(
    cur: Cursor[Any],
    vector: np.ndarray,
    *,
    scope: Scope,
    k: int,
    statuses: list[str],
    exact_max_rows: int,
    ef_max: int,
    max_scan_tuples: int = 20_000,
    iterative_scan: bool = True,
    column: str = "embedding",
    leg: str = "dense",
) -> list[Candidate]:
    """Nearest memories by cosine similarity, ``min(k, matching)`` of them.

    Args:
        cur: cursor in a tenant-scoped transaction.
        vector: validated float32 query vector of the store's dimension.
        scope: tenant and narrowing ids.
        k: wanted results (>= 1).
        statuses: allowed statuses.
        exact_max_rows: matching rows up to which the scan is exact.
        ef_max: upper bound of ``hnsw.ef_search`` (<= 1000).
        max_scan_tuples: ``hnsw.max_scan_tuples`` of the iterative scan (>= 1).
        iterative_scan: the server's pgvector has ``hnsw.iterative_scan`` (0.8+); False = always
            exact.
        column: the vector column searched (``embedding``, or an extra leg's column).
        leg: rank name of the candidates (``dense`` or the extra leg's name).

    Returns:
        Candidates ordered by ``cosine`` (1 - cosine distance, in [-1, 1]) descending, ranks
        ``dense`` 1..n.
    """
    params: dict[str, Any] = {"q": vector, "k": k}
    where = _match_filter(scope, statuses, params)
    matching, _ = matching_rows(cur, scope, where, params, exact_max_rows, column)
    if matching == 0:
        return []
    want = min(k, matching)
    if matching <= exact_max_rows or not iterative_scan:
        logger.debug("dense search: exact scan over %d rows (k=%d)", matching, k)
        return _candidates(_exact(cur, where, params, column), "cosine", leg)
    ef = hnsw_ef_search(k, ef_max)
    logger.debug(
        "dense search: hnsw iterative scan ef_search=%d max_scan_tuples=%d (matching=%d, k=%d)",
        ef,
        max_scan_tuples,
        matching,
        k,
    )
    rows = _hnsw(cur, where, params, ef, max_scan_tuples, column)
    if len(rows) < want:
        logger.warning(
            "dense search: HNSW returned %d of %d rows (tenant %s, matching=%d, "
            "max_scan_tuples=%d); re-running exactly",
            len(rows),
            want,
            scope.tenant_id,
            matching,
            max_scan_tuples,
        )
        rows = _exact(cur, where, params, column)
    return _candidates(rows, "cosine", leg)
