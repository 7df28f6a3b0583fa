"""Search traces of the Qdrant store: saving one under the retention bounds (:class:`QdrantTraceLog`).

The bounds are those of ``stores/trace_order.py`` (the rule of every store): each trace point
carries its ``client_seq`` and ``tenant_seq``, and a save deletes the few traces that fall
beyond the bounds. Before, every save counted the client's and the tenant's traces (up to
20,000) and ordered the oldest out.

* Server mode (several processes may write): the newest ordinals are two counter points of the
  ``meta`` collection (``kind = "trace_seq"``: one for the tenant, one per client), and the
  traces beyond the bounds go with one filtered delete over integer range indexes. Two
  processes saving a trace of one tenant at the same moment can give both the same ordinal
  (the counters are read and written under this process's lock only); the bounds then keep
  one trace more than configured until the next save, never fewer.
* Local mode (one process holds the folder): every filter is evaluated in Python over every
  point, so nothing is filtered per save. The first save of a tenant in this process reads its
  traces once (:class:`_HeldTraces`: point ids by ordinal and by age, the newest ordinals);
  later saves take their ordinals from it and delete the traces beyond the bounds by id.

A tenant whose traces were stored before the ordinals has them numbered once, in their time
order (``trace_order.number_traces``), on its first save.
"""

from __future__ import annotations

import heapq
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from qdrant_client import QdrantClient, models

from memory_engine.models import Scope, Trace, ensure_utc
from memory_engine.stores.common import check_trace_scope
from memory_engine.stores.qdrant.codec import derived_id, match, scope_filter, to_us, us_range
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.trace_order import (
    RetentionBounds,
    StoredTrace,
    TraceOrdinals,
    client_key,
    number_traces,
    retention_bounds,
)

_SEQ_KIND = "trace_seq"
#: Payload updates per request when stored traces are numbered.
_NUMBER_BATCH = 1000


def _counter_id(tenant: str, client: str | None = None) -> str:
    """Point id of the tenant's counter (``client`` None) or of one client's."""
    return (
        derived_id(_SEQ_KIND, tenant) if client is None else derived_id(_SEQ_KIND, tenant, client)
    )


def _same_or_null(key: str, value: str | None) -> models.Condition:
    """``key == value``, or ``key`` is null/absent when ``value`` is None."""
    if value is None:
        return models.IsNullCondition(is_null=models.PayloadField(key=key))
    return match(key, value)


@dataclass(eq=False)
class _HeldTraces:
    """Local mode: one tenant's stored traces as this process knows them (module docstring).

    Ordinals only grow, so each ``dict`` holds its ordinals in increasing order and a bound
    pops from its front; ``by_age`` is a heap of ``(created_us, point id)`` whose entries of
    traces already gone are skipped (and compacted away). A trace removed by any bound leaves
    every structure, so they hold at most the tenant's kept traces (plus the heap's slack).
    """

    tenant_seq: int = 0
    client_seq: dict[str, int] = field(default_factory=dict)
    by_tenant_seq: dict[int, str] = field(default_factory=dict)
    by_client: dict[str, dict[int, str]] = field(default_factory=dict)
    by_age: list[tuple[int, str]] = field(default_factory=list)
    #: point id -> (client key, client_seq, tenant_seq) of the traces held.
    where: dict[str, tuple[str, int, int]] = field(default_factory=dict)

    def next(self, who: str) -> TraceOrdinals:
        """The ordinals of the tenant's next trace of client ``who``."""
        return TraceOrdinals(self.client_seq.get(who, 0) + 1, self.tenant_seq + 1)

    def add(self, pid: str, who: str, seqs: TraceOrdinals, created_us: int) -> None:
        """Take a stored trace (in increasing ordinal order)."""
        self.tenant_seq = max(self.tenant_seq, seqs.tenant_seq)
        self.client_seq[who] = max(self.client_seq.get(who, 0), seqs.client_seq)
        self.by_tenant_seq[seqs.tenant_seq] = pid
        self.by_client.setdefault(who, {})[seqs.client_seq] = pid
        self.where[pid] = (who, seqs.client_seq, seqs.tenant_seq)
        heapq.heappush(self.by_age, (created_us, pid))

    def beyond(self, who: str, bounds: RetentionBounds) -> set[str]:
        """Point ids of the traces the bounds remove (no longer held)."""
        out: list[str] = []
        for held, through in (
            (self.by_client.get(who, {}), bounds.client_through),
            (self.by_tenant_seq, bounds.tenant_through),
        ):
            while held and (first := next(iter(held))) <= through:
                out.append(held[first])
                self._forget(held[first])
        if bounds.created_before is not None:
            cutoff = to_us(bounds.created_before)
            while self.by_age and self.by_age[0][0] < cutoff:
                pid = heapq.heappop(self.by_age)[1]
                if pid in self.where:
                    out.append(pid)
                    self._forget(pid)
        if len(self.by_age) > 2 * len(self.where) + 64:  # entries of traces already gone
            self.by_age = [e for e in self.by_age if e[1] in self.where]
            heapq.heapify(self.by_age)
        return set(out)

    def _forget(self, pid: str) -> None:
        who, client_seq, tenant_seq = self.where.pop(pid)
        self.by_client.get(who, {}).pop(client_seq, None)
        self.by_tenant_seq.pop(tenant_seq, None)


class QdrantTraceLog:
    """``save_trace`` of the Qdrant store (reads are :class:`~.reads.QdrantReader`'s).

    Args:
        conn: the store's connection (collections ``traces`` and ``meta``, the write lock).
    """

    def __init__(self, conn: QdrantConnection) -> None:
        self._conn = conn
        self._held: dict[str, _HeldTraces] = {}  # local mode, by tenant

    def save(self, trace: Trace, *, scope: Scope) -> None:
        """Store a trace, then drop the traces of its client (same user and agent id) beyond
        ``trace_retention``, the tenant's beyond ``trace_retention_tenant`` and the tenant's
        older than ``trace_retention_days`` before this one (oldest stored first). Nothing is
        stored when ``trace_retention`` is 0.

        Traces are immutable: saving an id that is already stored keeps the stored one (and
        takes no ordinal).

        Raises:
            TenantScopeError: the trace belongs to another tenant than the scope.
        """
        check_trace_scope(trace, scope)
        storage = self._conn.settings.storage
        if storage.trace_retention == 0:
            return
        tenant = scope.tenant_id
        created = (ensure_utc(trace.created_at) or trace.created_at).astimezone(UTC)
        pid = derived_id("trace", tenant, str(trace.id))
        user, agent = trace.scope.user_id, trace.scope.agent_id
        with self._conn.writing() as client:
            if client.retrieve(self._conn.traces, ids=[pid], with_payload=False):
                return
            who = client_key(user, agent)
            held = self._held_traces(client, tenant) if self._conn.local else None
            new = held.next(who) if held is not None else self._next_ordinals(client, tenant, who)
            payload = {
                "tenant_id": tenant,
                "user_id": user,
                "agent_id": agent,
                "session_id": trace.scope.session_id,
                "trace_id": str(trace.id),
                "created_at": created.isoformat(),
                "created_us": to_us(created),
                "client_seq": new.client_seq,
                "tenant_seq": new.tenant_seq,
                "query": trace.query,
                "returned": sum(1 for c in trace.candidates if c.dropped is None),
                "trace": trace.model_dump(mode="json"),
            }
            client.upsert(
                self._conn.traces,
                [models.PointStruct(id=pid, vector={}, payload=payload)],
                update_mode=models.UpdateMode.INSERT_ONLY,
            )
            bounds = retention_bounds(new, created, storage)
            if held is not None:
                held.add(pid, who, new, to_us(created))
                gone = held.beyond(who, bounds) - {pid}
                if gone:
                    client.delete(
                        self._conn.traces, points_selector=models.PointIdsList(points=sorted(gone))
                    )
            else:
                self._drop_beyond(client, tenant, user, agent, bounds)
        self._conn.check_size(self._conn.traces)

    def _drop_beyond(
        self,
        client: QdrantClient,
        tenant: str,
        user: str | None,
        agent: str | None,
        bounds: RetentionBounds,
    ) -> None:
        """Server mode: delete the tenant's traces beyond ``bounds`` with one filtered delete."""
        beyond: list[models.Condition] = []
        if bounds.client_through > 0:
            beyond.append(
                models.Filter(
                    must=[
                        _same_or_null("user_id", user),
                        _same_or_null("agent_id", agent),
                        us_range("client_seq", lte=bounds.client_through),
                    ]
                )
            )
        if bounds.tenant_through > 0:
            beyond.append(us_range("tenant_seq", lte=bounds.tenant_through))
        if bounds.created_before is not None:
            beyond.append(us_range("created_us", lt=to_us(bounds.created_before)))
        if beyond:
            # any bound, within the tenant
            drop = models.Filter(must=scope_filter(Scope.of(tenant)).must, should=beyond)
            client.delete(self._conn.traces, points_selector=models.FilterSelector(filter=drop))

    def _next_ordinals(self, client: QdrantClient, tenant: str, who: str) -> TraceOrdinals:
        """The ordinals of the tenant's next trace of client ``who``; both counters advanced."""
        ids = [_counter_id(tenant), _counter_id(tenant, who)]
        found = {
            str(p.id): int((p.payload or {}).get("seq", 0))
            for p in client.retrieve(self._conn.meta, ids=ids, with_payload=["seq", "tenant_id"])
            if (p.payload or {}).get("tenant_id") == tenant
        }
        if ids[0] not in found:  # the tenant's first save since the ordinals exist
            found = self._number_stored(client, tenant, who)
        new = TraceOrdinals(
            client_seq=found.get(ids[1], 0) + 1, tenant_seq=found.get(ids[0], 0) + 1
        )
        self._write_counters(client, tenant, {None: new.tenant_seq, who: new.client_seq})
        return new

    def _number_stored(self, client: QdrantClient, tenant: str, who: str) -> dict[str, int]:
        """Server mode: number the tenant's stored traces and record every client's newest
        ordinal; returns counter point id -> newest ordinal (the tenant's and ``who``'s)."""
        rows = self._number(client, tenant, self._tenant_traces(client, tenant))
        newest: dict[str | None, int] = {None: 0}
        for _, key, seqs, _ in rows:
            newest[None] = max(newest[None], seqs.tenant_seq)
            newest[key] = max(newest.get(key, 0), seqs.client_seq)
        self._write_counters(client, tenant, newest)
        return {_counter_id(tenant, k): v for k, v in newest.items() if k in (None, who)}

    def _held_traces(self, client: QdrantClient, tenant: str) -> _HeldTraces:
        """Local mode: the tenant's traces as this process holds them, read (and numbered when
        stored without ordinals) on the tenant's first save."""
        held = self._held.get(tenant)
        if held is None:
            rows = self._tenant_traces(client, tenant)
            if any("tenant_seq" not in (r.payload or {}) for r in rows):
                numbered = self._number(client, tenant, rows)
            else:
                numbered = [
                    (
                        str(r.id),
                        client_key(
                            (r.payload or {}).get("user_id"), (r.payload or {}).get("agent_id")
                        ),
                        TraceOrdinals(
                            int((r.payload or {})["client_seq"]),
                            int((r.payload or {})["tenant_seq"]),
                        ),
                        int((r.payload or {})["created_us"]),
                    )
                    for r in rows
                ]
            held = _HeldTraces()
            for pid, key, seqs, created_us in sorted(numbered, key=lambda t: t[2].tenant_seq):
                held.add(pid, key, seqs, created_us)
            self._held[tenant] = held
        return held

    def _tenant_traces(self, client: QdrantClient, tenant: str) -> list[models.Record]:
        """The tenant's trace points with what numbering and the bounds read."""
        keys = ["trace_id", "user_id", "agent_id", "created_us", "client_seq", "tenant_seq"]
        return scroll_all(
            client, self._conn.traces, scope_filter(Scope.of(tenant)), with_payload=keys
        )

    def _number(
        self, client: QdrantClient, tenant: str, rows: list[models.Record]
    ) -> list[tuple[str, str, TraceOrdinals, int]]:
        """Give the tenant's stored traces their ordinals in time order (``number_traces``),
        written to their points; returns (point id, client key, ordinals, created_us) each."""
        stored: dict[uuid.UUID, tuple[models.Record, StoredTrace]] = {}
        for r in rows:
            p = r.payload or {}
            trace_id = uuid.UUID(str(p["trace_id"]))
            stored[trace_id] = (
                r,
                StoredTrace(
                    trace_id=trace_id,
                    user_id=p.get("user_id"),
                    agent_id=p.get("agent_id"),
                    created_at=_from_us(int(p["created_us"])),
                ),
            )
        ordinals = list(number_traces(t for _, t in stored.values()).items())
        for start in range(0, len(ordinals), _NUMBER_BATCH):
            client.batch_update_points(
                self._conn.traces,
                [
                    models.SetPayloadOperation(
                        set_payload=models.SetPayload(
                            payload={"client_seq": o.client_seq, "tenant_seq": o.tenant_seq},
                            points=[stored[trace_id][0].id],
                        )
                    )
                    for trace_id, o in ordinals[start : start + _NUMBER_BATCH]
                ],
            )
        out = []
        for trace_id, seqs in ordinals:
            record, t = stored[trace_id]
            created_us = int((record.payload or {})["created_us"])
            out.append((str(record.id), client_key(t.user_id, t.agent_id), seqs, created_us))
        return out

    def _write_counters(
        self, client: QdrantClient, tenant: str, values: dict[str | None, int]
    ) -> None:
        """Store the newest ordinal of the tenant (key None) and of clients (their keys)."""
        client.upsert(
            self._conn.meta,
            [
                models.PointStruct(
                    id=_counter_id(tenant, key),
                    vector={},
                    payload={"kind": _SEQ_KIND, "tenant_id": tenant, "client": key, "seq": seq},
                )
                for key, seq in values.items()
            ],
        )


def _from_us(us: int) -> datetime:
    """The UTC time ``us`` microseconds after the Unix epoch (inverse of ``codec.to_us``)."""
    return datetime(1970, 1, 1, tzinfo=UTC) + timedelta(microseconds=us)
