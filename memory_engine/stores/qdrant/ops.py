"""Write plumbing and the non-memory operations of the Qdrant store (base of QdrantStore):
the write lock, event ids, commit marks, local-mode size warnings, the reconciler of pending
writes, the server-side hybrid query, traces and the audited admin counts.

See :mod:`memory_engine.stores.qdrant.store` for the write protocol these pieces belong to.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.models import Candidate, MemoryStatus, Scope, Trace
from memory_engine.stores.common import check_admin_read, check_k, check_trace_scope, vector_param
from memory_engine.stores.qdrant.codec import (
    COMMITTED,
    DENSE,
    KEYWORD,
    PENDING,
    ROLLED_BACK,
    derived_id,
    match,
    match_any,
    memory_from_payload,
    query_vector,
    scope_filter,
    search_filter,
    to_us,
    us_range,
)
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.qdrant.reads import QdrantReader

logger = logging.getLogger("memory_engine.stores.qdrant.store")

#: On a server, pending events younger than this may belong to a live writer: not reconciled.
RECONCILE_GRACE_S = 300
#: Low bits of a server-mode event id that name the writing store object (see _next_seqs).
NODE_BITS = 10


class QdrantOps(QdrantReader):
    """Write plumbing, recovery, hybrid query, traces and admin of the Qdrant store."""

    _last_seq: int
    _node: int
    _warned: set[str]

    # ------------------------------------------------------------------ plumbing

    def _step_done(self, step: str) -> None:
        """Test seam, called after write step ``"event"`` (1) and ``"point"`` (2). No-op."""

    def _max_seq(self) -> int:
        with self.conn.reading() as client:
            rows, _ = client.scroll(
                self.conn.events,
                limit=1,
                order_by=models.OrderBy(key="seq", direction=models.Direction.DESC),
                with_payload=["seq"],
            )
        return int((rows[0].payload or {})["seq"]) if rows else 0

    def _next_seqs(self, n: int) -> list[int]:
        """``n`` new event ids, strictly increasing within this store.

        Local mode (one process): 1, 2, 3, ... Server mode (several processes may write): a
        hybrid logical clock ``(microseconds << 10) | node`` where ``node`` is random per store
        object, so ids of different processes are unique (unless two share a node id, 1/1024)
        and roughly time-ordered.
        """
        with self.conn.lock:
            if self.conn.local:
                first = self._last_seq + 1
                self._last_seq += n
                return list(range(first, first + n))
            last_ts = self._last_seq >> NODE_BITS
            base = max(last_ts + 1, time.time_ns() // 1000)
            seqs = [((base + i) << NODE_BITS) | self._node for i in range(n)]
            self._last_seq = seqs[-1]
            return seqs

    def _check_size(self, collection: str) -> None:
        """Local mode: log a warning (once per collection) above ``qdrant_local_warn_points``."""
        if not self.conn.local or collection in self._warned:
            return
        with self.conn.reading() as client:
            if not client.collection_exists(collection):
                return
            n = int(client.count(collection, exact=True).count)
        limit = self.settings.qdrant_local_warn_points
        if n > limit:
            self._warned.add(collection)
            logger.warning(
                "Qdrant local mode: collection %s holds %d points (> %d); local mode is exact "
                "and pure Python (about 150 ms per filtered query at 10k points): use a Qdrant "
                "server (MEMORY_QDRANT_URL) for this size",
                collection,
                n,
                limit,
            )

    def _commit(self, client: QdrantClient, seqs: Sequence[int], state: str = COMMITTED) -> None:
        """Mark events ``state`` (step 3 of a write, or the reconciler's verdict)."""
        ids: list[models.ExtendedPointId] = [int(s) for s in seqs]
        client.set_payload(self.conn.events, {"state": state}, points=ids)

    # ------------------------------------------------------------------ recovery

    def reconcile(self) -> dict[str, int]:
        """Finish or roll back writes that a crashed process left ``pending``; run at open.

        Local mode reconciles every pending event (the folder lock guarantees no live writer);
        a server only those older than ``RECONCILE_GRACE_S`` seconds.

        Returns:
            Number of events marked ``committed`` and ``rolled_back``.
        """
        grace = 0 if self.conn.local else RECONCILE_GRACE_S * 1_000_000
        cutoff = to_us(datetime.now(UTC)) - grace
        flt = models.Filter(must=[match("state", PENDING), us_range("at_us", lte=cutoff)])
        done = {COMMITTED: 0, ROLLED_BACK: 0}
        with self.conn.writing() as client:
            pending = scroll_all(client, self.conn.events, flt)
            for ev in sorted(pending, key=lambda r: int((r.payload or {})["seq"])):
                p = ev.payload or {}
                point = self._fetch(str(p["memory_id"]), Scope.of(p["tenant_id"]))
                if "import_point" in p:  # a copied record (write_records)
                    applied = point is not None if p["import_point"] else True
                elif p["action"] == "create":
                    applied = point is not None
                elif p["action"] == "purge":
                    applied = point is None
                else:
                    version = int((point.payload or {})["version"]) if point is not None else -1
                    applied = version >= int(p["version_after"])
                state = COMMITTED if applied else ROLLED_BACK
                self._commit(client, [int(p["seq"])], state)
                done[state] += 1
        if pending:
            logger.warning(
                "Qdrant store: reconciled %d pending writes (%d committed, %d rolled back)",
                len(pending),
                done[COMMITTED],
                done[ROLLED_BACK],
            )
        return done

    # ------------------------------------------------------------------ hybrid (Qdrant only)

    def hybrid_request(
        self,
        vector: Sequence[float],
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        per_leg: int | None = None,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> dict[str, Any]:
        """Keyword arguments of ``query_points`` for a server-side RRF of both legs.

        The scope + status filter is in every prefetch *and* at the root. RRF uses
        ``Rrf(k=rrf_k + 1)`` because Qdrant ranks from 0: the score is then
        ``sum 1/(rrf_k + rank)`` with 1-based ranks, the engine's ``rrf``.
        """
        check_k(k)
        flt = search_filter(scope, statuses)
        leg = max(k, per_leg or self.settings.candidates_per_leg)
        vec = vector_param(vector, self._dim(), "query vector").tolist()
        prefetch = [models.Prefetch(query=vec, using=DENSE, filter=flt, limit=leg)]
        sparse = query_vector(terms)
        if sparse is not None:
            idf = models.SearchParams(idf=models.IdfCorpusParams(corpus=flt))
            prefetch.append(
                models.Prefetch(query=sparse, using=KEYWORD, filter=flt, limit=leg, params=idf)
            )
        return {
            "collection_name": self.conn.memories,
            "prefetch": prefetch,
            "query": models.RrfQuery(rrf=models.Rrf(k=self.settings.rrf_k + 1)),
            "query_filter": flt,
            "limit": k,
            "with_payload": True,
        }

    def hybrid_search(
        self,
        vector: Sequence[float],
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        per_leg: int | None = None,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> list[Candidate]:
        """Dense + keyword fused by Qdrant (RRF) in one request; scores ``rrf``, ranks ``fused``.

        Not part of the MemoryStore protocol (the engine fuses itself so its trace can show
        every leg); useful for a quick server-side hybrid query.
        """
        request = self.hybrid_request(
            vector, terms, scope=scope, k=k, per_leg=per_leg, statuses=statuses
        )
        if not self._memories_exist():
            return []
        with self.conn.reading() as client:
            points = client.query_points(**request).points
        return [
            Candidate(
                memory=memory_from_payload(p.payload), scores={"rrf": p.score}, ranks={"fused": i}
            )
            for i, p in enumerate(points, start=1)
        ]

    # ------------------------------------------------------------------ traces

    def save_trace(self, trace: Trace, *, scope: Scope) -> None:
        """Store a trace, then drop the tenant's oldest traces beyond ``trace_retention``.

        Traces are immutable: saving an id that is already stored keeps the stored one.

        Raises:
            TenantScopeError: the trace belongs to another tenant than the scope.
        """
        check_trace_scope(trace, scope)
        keep = self.settings.trace_retention
        if keep == 0:
            return
        created = (
            trace.created_at if trace.created_at.tzinfo else trace.created_at.replace(tzinfo=UTC)
        )
        payload = {
            "tenant_id": scope.tenant_id,
            "user_id": trace.scope.user_id,
            "agent_id": trace.scope.agent_id,
            "session_id": trace.scope.session_id,
            "trace_id": str(trace.id),
            "created_at": created.astimezone(UTC).isoformat(),
            "created_us": to_us(created),
            "query": trace.query,
            "returned": sum(1 for c in trace.candidates if c.dropped is None),
            "trace": trace.model_dump(mode="json"),
        }
        point = models.PointStruct(
            id=derived_id("trace", scope.tenant_id, str(trace.id)), vector={}, payload=payload
        )
        tenant = scope_filter(Scope.of(scope.tenant_id))
        with self.conn.writing() as client:
            client.upsert(self.conn.traces, [point], update_mode=models.UpdateMode.INSERT_ONLY)
            excess = (
                int(client.count(self.conn.traces, count_filter=tenant, exact=True).count) - keep
            )
            if excess > 0:
                self._drop_oldest_traces(client, tenant, excess)
        self._check_size(self.conn.traces)

    def _drop_oldest_traces(self, client: QdrantClient, tenant: models.Filter, n: int) -> None:
        keys = ["created_us", "trace_id"]
        rows, _ = client.scroll(
            self.conn.traces,
            scroll_filter=tenant,
            limit=n,
            order_by=models.OrderBy(key="created_us", direction=models.Direction.ASC),
            with_payload=keys,
        )
        if not rows:
            return
        edge = int((rows[-1].payload or {})["created_us"])
        must = list(tenant.must) if isinstance(tenant.must, list) else []
        tie = models.Filter(must=[*must, match("created_us", edge)])
        by_id = {r.id: r for r in rows}
        by_id.update(
            {r.id: r for r in scroll_all(client, self.conn.traces, tie, with_payload=keys)}
        )
        oldest = sorted(
            by_id.values(),
            key=lambda r: (
                int((r.payload or {})["created_us"]),
                str((r.payload or {})["trace_id"]),
            ),
        )[:n]
        client.delete(self.conn.traces, points_selector=[r.id for r in oldest])

    # ------------------------------------------------------------------ admin

    def admin_tenant_counts(self, *, actor: str, reason: str) -> dict[str, int]:
        """Active + archived memories per tenant, across tenants; audited.

        The one read that spans tenants (an exact facet over ``tenant_id``); it writes an
        ``admin_read`` event (actor, time, reason, number of tenants) that no tenant sees.

        Raises:
            InvalidInputError: empty actor or reason.
        """
        check_admin_read(actor, reason)
        counts: dict[str, int] = {}
        with self.conn.writing() as client:
            if self._memories_exist():
                hits = client.facet(
                    self.conn.memories,
                    "tenant_id",
                    facet_filter=models.Filter(
                        must=[
                            match_any(
                                "status", [MemoryStatus.ACTIVE.value, MemoryStatus.ARCHIVED.value]
                            )
                        ]
                    ),
                    limit=1_000_000,
                    exact=True,
                ).hits
                counts = {
                    str(h.value): int(h.count) for h in sorted(hits, key=lambda h: str(h.value))
                }
            self._admin_audit(
                client, actor, reason, {"what": "tenant_counts", "tenants": len(counts)}
            )
        return counts

    def _admin_audit(
        self, client: QdrantClient, actor: str, reason: str, details: dict[str, Any]
    ) -> None:
        """Write the ``admin_read`` event of a cross-tenant read (tenant "", never shown)."""
        (seq,) = self._next_seqs(1)
        at = datetime.now(UTC)
        audit = {
            "seq": seq,
            "tenant_id": "",
            "kind": "admin",
            "action": "admin_read",
            "actor": actor,
            "reason": reason,
            "at": at.isoformat(),
            "at_us": to_us(at),
            "day": at.date().isoformat(),
            "details": details,
            "state": COMMITTED,
        }
        client.upsert(self.conn.events, [models.PointStruct(id=seq, vector={}, payload=audit)])
