"""Cross-tenant guard of the candidate searches: no result set may span two tenants.

:class:`GuardedStore` is a ``SearchIndex`` over a store's own: every candidate of every leg
(dense and keyword, for every expanded query) must belong to the scope's tenant. A foreign row
is a broken tenant filter somewhere below the engine (a store bug, a misconfigured database
policy); it is never passed on. Instead:

- the row is dropped (before fusion, when the retrieval pipeline runs over the guard);
- an alarm is recorded: one entry per stage that returned foreign rows,
  ``{"kind": "cross_tenant", "stage": <leg or "final">, "dropped": <count>,
  "memory_ids": [<up to 10 ids>]}`` (no foreign content and no foreign tenant id, since the
  alarm belongs to the calling tenant);
- :func:`report_alarms` writes an ERROR log line naming the foreign tenants and ids (for the
  operator) and appends an audit event ``tenant_alarm`` (tenant = the caller's, details = the
  alarms) to the guarded store's ``AuditLog``.

Users: the guarded search (``memory_engine.retrieval.guarded``: alarms also in the trace, shown
as an error badge on the Query Replay page), the extract pipeline's dedupe / conflict-judge
candidates (stages ``write:dense`` and ``write:keyword``, alarms also in the write trail) and
the restore-on-match search after a search (stage ``restore:dense``). A foreign row there is
dropped (never reinforced, superseded or restored), logged and audited the same way.

The stores filter by tenant themselves (row-level security, Qdrant's mandatory filter); this is
defence in depth, and it is what makes "any result set spanning two tenants raises an alarm"
true even when a store is wrong.
"""

from __future__ import annotations

import builtins
import logging
import threading
from collections.abc import Sequence
from typing import Any

from memory_engine.errors import MemoryEngineError
from memory_engine.models import Candidate, Event, EventAction, MemoryStatus, Scope
from memory_engine.stores.base import AuditedSearchIndex

log = logging.getLogger(__name__)

#: ``kind`` of a cross-tenant alarm entry in ``Trace.tenant_alarms``.
CROSS_TENANT = "cross_tenant"
#: Foreign ids recorded per alarm entry at most (the count is always exact).
MAX_ALARM_IDS = 10
#: Audit actor of the alarm event.
ALARM_ACTOR = "tenant-guard"


class GuardedStore:
    """``store``'s candidate searches (a ``SearchIndex``) keeping only ``scope``'s rows.

    Args:
        store: the guarded searches and the audit log the alarms go to.
        scope: the caller's scope; its tenant is the only one let through.
        stage_prefix: prefix of the alarm stages (``write:``, ``restore:``).

    Alarms accumulate in ``alarms``; their stage is ``stage_prefix`` + the leg (``dense``,
    ``keyword``; ``@x<n>`` from the second call on). ``foreign`` maps each foreign tenant to
    the ids met (for the log only).
    """

    def __init__(self, store: AuditedSearchIndex, scope: Scope, *, stage_prefix: str = "") -> None:
        self.store = store
        self.scope = scope
        self._prefix = stage_prefix
        self.alarms: list[dict[str, Any]] = []
        self.foreign: dict[str, set[str]] = {}
        self._calls: dict[str, int] = {}
        self._lock = threading.Lock()  # the pipeline may run the legs on two threads
        self.concurrent_legs = store.concurrent_legs  # the guard itself is thread-safe

    def keep(self, stage: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        """``candidates`` of the scope's tenant; foreign ones are recorded as an alarm."""
        own = [c for c in candidates if c.memory.tenant_id == self.scope.tenant_id]
        if len(own) == len(candidates):
            return list(candidates)
        foreign = [c.memory for c in candidates if c.memory.tenant_id != self.scope.tenant_id]
        with self._lock:
            for m in foreign:
                self.foreign.setdefault(m.tenant_id, set()).add(str(m.id))
            self.alarms.append(
                {
                    "kind": CROSS_TENANT,
                    "stage": stage,
                    "dropped": len(foreign),
                    "memory_ids": [str(m.id) for m in foreign[:MAX_ALARM_IDS]],
                }
            )
        return own

    def sort_alarms(self) -> None:
        """Order the alarms stably (legs may run concurrently), the ``final`` stage last."""
        with self._lock:
            self.alarms.sort(key=lambda a: (a["stage"] == "final", a["stage"]))

    def _leg(self, leg: str) -> str:
        with self._lock:
            n = self._calls.get(leg, 0)
            self._calls[leg] = n + 1
        return f"{self._prefix}{leg}@x{n}" if n else f"{self._prefix}{leg}"

    def dense_search(
        self,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """The store's dense leg, filtered to the guarded scope's tenant."""
        found = self.store.dense_search(vector, scope=scope, k=k, statuses=statuses)
        return self.keep(self._leg("dense"), found)

    def leg_search(
        self,
        leg: str,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """The store's extra dense leg ``leg`` (``VectorLegs``), filtered to the tenant."""
        part = getattr(self.store, "legs", None)  # the store's VectorLegs part
        found = part.leg_search(leg, vector, scope=scope, k=k, statuses=statuses) if part else []
        return self.keep(self._leg(leg), found)

    def keyword_search(
        self,
        terms: Sequence[str],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """The store's keyword leg, filtered to the guarded scope's tenant."""
        found = self.store.keyword_search(terms, scope=scope, k=k, statuses=statuses)
        return self.keep(self._leg("keyword"), found)


def report_alarms(guard: GuardedStore, *, reason: str, **details: str) -> None:
    """Log (ERROR, naming the foreign tenants and ids) and audit the alarms ``guard`` recorded:
    one ``tenant_alarm`` event of the guarded scope's tenant, details ``{**details, "alarms"}``
    (e.g. ``trace_id`` or ``write_id``). Nothing when there is no alarm. Never raises: an audit
    failure is logged."""
    if not guard.alarms:
        return
    guard.sort_alarms()
    tenant = guard.scope.tenant_id
    log.error(
        "%s of tenant %s: %s (alarms %s)",
        reason,
        tenant,
        {t: sorted(ids)[:MAX_ALARM_IDS] for t, ids in guard.foreign.items()},
        guard.alarms,
    )
    try:
        guard.store.append_event(
            Event(
                tenant_id=tenant,
                action=EventAction.TENANT_ALARM,
                actor=ALARM_ACTOR,
                reason=reason,
                details={**details, "alarms": guard.alarms},
            ),
            scope=Scope.of(tenant),
        )
    except MemoryEngineError:
        log.exception("could not append the tenant_alarm event (%s)", details)
