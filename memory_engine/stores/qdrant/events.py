"""The event log of the Qdrant store (:class:`QdrantEventLog`): event ids, the steps of the
write protocol, its verification and recovery, standalone and admin events.

Writes without transactions: every change is an ordered, idempotent sequence (1) write its
event with ``state="pending"`` (2) upsert/delete the point (3) mark the event ``committed``
(:meth:`QdrantEventLog.commit`). :meth:`QdrantEventLog.reconcile` (run at open) finishes or
rolls back what a crash left pending. See :mod:`memory_engine.stores.qdrant.store`.
"""

from __future__ import annotations

import logging
import secrets
import time
import uuid
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.errors import VersionConflictError
from memory_engine.models import Event, Scope
from memory_engine.stores.qdrant.codec import (
    COMMITTED,
    PENDING,
    ROLLED_BACK,
    event_point,
    match,
    to_us,
    us_range,
)
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import scroll_all
from memory_engine.stores.redaction import check_event_scope

logger = logging.getLogger("memory_engine.stores.qdrant.store")

#: On a server, pending events younger than this may belong to a live writer: not reconciled.
RECONCILE_GRACE_S = 300
#: Low bits of a server-mode event id that name the writing store object (see next_seqs).
NODE_BITS = 10


class QdrantEventLog:
    """Event ids, commit marks, write verification, recovery and standalone events.

    Args:
        conn: the store's connection.
        step_done: called with ``"event"`` after step 1 and ``"point"`` after step 2 of every
            write (a test seam: a test kills the process there).
    """

    def __init__(self, conn: QdrantConnection, step_done: Callable[[str], None]) -> None:
        self._conn = conn
        self.step_done = step_done
        self._last_seq = 0
        self._node = 0 if conn.local else secrets.randbits(NODE_BITS)

    # ------------------------------------------------------------------ event ids

    def resume(self) -> None:
        """Continue the event ids after the highest one stored (run at open)."""
        with self._conn.reading() as client:
            rows, _ = client.scroll(
                self._conn.events,
                limit=1,
                order_by=models.OrderBy(key="seq", direction=models.Direction.DESC),
                with_payload=["seq"],
            )
        self._last_seq = int((rows[0].payload or {})["seq"]) if rows else 0

    def next_seqs(self, n: int) -> list[int]:
        """``n`` new event ids, strictly increasing within this store.

        Local mode (one process): 1, 2, 3, ... Server mode (several processes may write): a
        hybrid logical clock ``(microseconds << 10) | node`` where ``node`` is random per store
        object, so ids of different processes are unique (unless two share a node id, 1/1024)
        and roughly time-ordered.
        """
        with self._conn.lock:
            if self._conn.local:
                first = self._last_seq + 1
                self._last_seq += n
                return list(range(first, first + n))
            last_ts = self._last_seq >> NODE_BITS
            base = max(last_ts + 1, time.time_ns() // 1000)
            seqs = [((base + i) << NODE_BITS) | self._node for i in range(n)]
            self._last_seq = seqs[-1]
            return seqs

    # ------------------------------------------------------------------ write protocol

    def commit(self, client: QdrantClient, seqs: Sequence[int], state: str = COMMITTED) -> None:
        """Mark events ``state`` (step 3 of a write, or the reconciler's verdict)."""
        ids: list[models.ExtendedPointId] = [int(s) for s in seqs]
        client.set_payload(self._conn.events, {"state": state}, points=ids)

    def verify(
        self,
        client: QdrantClient,
        seq: int,
        memory_id: uuid.UUID,
        scope: Scope,
        *,
        expect_version: int | None,
    ) -> None:
        """Server mode: check that the conditional write took effect (another process may have
        changed the point first); if not, roll the event back and raise VersionConflictError.
        ``expect_version=None`` means the point must be gone."""
        if self._conn.local:  # the lock makes the read-check-write sequence atomic
            return
        point = self._conn.fetch(str(memory_id), scope)
        actual = int((point.payload or {})["version"]) if point is not None else None
        if actual == expect_version:
            return
        self.commit(client, [seq], ROLLED_BACK)
        raise VersionConflictError(
            f"memory {memory_id} changed concurrently",
            memory_id=memory_id,
            expected=expect_version,
            actual=actual,
        )

    def reconcile(self) -> dict[str, int]:
        """Finish or roll back writes that a crashed process left ``pending``; run at open.

        Local mode reconciles every pending event (the folder lock guarantees no live writer);
        a server only those older than ``RECONCILE_GRACE_S`` seconds.

        Returns:
            Number of events marked ``committed`` and ``rolled_back``.
        """
        grace = 0 if self._conn.local else RECONCILE_GRACE_S * 1_000_000
        cutoff = to_us(datetime.now(UTC)) - grace
        flt = models.Filter(must=[match("state", PENDING), us_range("at_us", lte=cutoff)])
        done = {COMMITTED: 0, ROLLED_BACK: 0}
        with self._conn.writing() as client:
            pending = scroll_all(client, self._conn.events, flt)
            for ev in sorted(pending, key=lambda r: int((r.payload or {})["seq"])):
                p = ev.payload or {}
                point = self._conn.fetch(str(p["memory_id"]), Scope.of(p["tenant_id"]))
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
                self.commit(client, [int(p["seq"])], state)
                done[state] += 1
        if pending:
            logger.warning(
                "Qdrant store: reconciled %d pending writes (%d committed, %d rolled back)",
                len(pending),
                done[COMMITTED],
                done[ROLLED_BACK],
            )
        return done

    # ------------------------------------------------------------------ standalone events

    def append_event(self, event: Event, *, scope: Scope) -> None:
        """Append a standalone, committed event (its ``at`` is now, UTC).

        Raises:
            TenantScopeError: the event belongs to another tenant than the scope.
        """
        check_event_scope(event, scope)
        at = datetime.now(UTC)
        with self._conn.writing() as client:
            (seq,) = self.next_seqs(1)
            owner = {
                "user_id": scope.user_id,
                "agent_id": scope.agent_id,
                "session_id": scope.session_id,
            }
            payload = event_point(seq, event, owner, at=at, state=COMMITTED)
            client.upsert(
                self._conn.events, [models.PointStruct(id=seq, vector={}, payload=payload)]
            )

    def admin_audit(
        self, client: QdrantClient, actor: str, reason: str, details: dict[str, Any]
    ) -> None:
        """Write the ``admin_read`` event of a cross-tenant read (tenant "", never shown)."""
        (seq,) = self.next_seqs(1)
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
        client.upsert(self._conn.events, [models.PointStruct(id=seq, vector={}, payload=audit)])
