"""Cross-tenant alarm of the search path: no result set may span two tenants.

``guarded_search`` runs ``retrieval.pipeline.run_search`` over the store seen through
``GuardedStore``: every candidate of every leg (dense and keyword, for every expanded query)
must belong to the scope's tenant, and so must every memory of the final result. A foreign row
is a broken tenant filter somewhere below the engine (a store bug, a misconfigured database
policy); it is never passed on. Instead:

- the row is dropped before fusion (or from the final result, whose block is then re-rendered);
- the trace gets ``tenant_alarms``: one entry per stage that returned foreign rows,
  ``{"kind": "cross_tenant", "stage": <leg or "final">, "dropped": <count>,
  "memory_ids": [<up to 10 ids>]}`` (no foreign content and no foreign tenant id, since the
  trace belongs to the calling tenant), shown as an error badge on the Query Replay page;
- an ERROR log line names the foreign tenants and ids (for the operator);
- an audit event ``tenant_alarm`` (tenant = the caller's, details = the alarms) is appended.

The engine's other candidate searches go through the same ``GuardedStore`` and
``report_alarms``: the extract pipeline's dedupe / conflict-judge candidates (stages
``write:dense`` and ``write:keyword``, alarms also in the write trail) and the restore-on-match
search after a search (stage ``restore:dense``). A foreign row there is dropped (never
reinforced, superseded or restored), logged and audited the same way.

The stores filter by tenant themselves (row-level security, Qdrant's mandatory filter); this is
defence in depth, and it is what makes "any result set spanning two tenants raises an alarm"
true even when a store is wrong.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

from memory_engine.errors import MemoryEngineError
from memory_engine.models import Candidate, Event, EventAction, Scope, SearchResult
from memory_engine.retrieval.block import render_block
from memory_engine.retrieval.pipeline import run_search

log = logging.getLogger(__name__)

#: ``kind`` of a cross-tenant alarm entry in ``Trace.tenant_alarms``.
CROSS_TENANT = "cross_tenant"
#: Foreign ids recorded per alarm entry at most (the count is always exact).
MAX_ALARM_IDS = 10
#: Audit actor of the alarm event.
ALARM_ACTOR = "tenant-guard"


class GuardedStore:
    """``store`` as the retrieval pipeline sees it: the recall legs keep only ``scope``'s rows.

    Every other attribute is the store's own. Alarms accumulate in ``alarms``; their stage is
    ``stage_prefix`` + the leg (``dense``, ``keyword``; ``@x<n>`` from the second call on).
    """

    def __init__(self, store: Any, scope: Scope, *, stage_prefix: str = "") -> None:
        self._store = store
        self._scope = scope
        self._prefix = stage_prefix
        self.alarms: list[dict[str, Any]] = []
        self.foreign: dict[str, set[str]] = {}  # foreign tenant -> ids (for the log only)
        self._calls: dict[str, int] = {}
        self._lock = threading.Lock()  # the pipeline may run the legs on two threads

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def keep(self, stage: str, candidates: Sequence[Candidate]) -> list[Candidate]:
        """``candidates`` of the scope's tenant; foreign ones are recorded as an alarm."""
        own = [c for c in candidates if c.memory.tenant_id == self._scope.tenant_id]
        if len(own) == len(candidates):
            return list(candidates)
        foreign = [c.memory for c in candidates if c.memory.tenant_id != self._scope.tenant_id]
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

    def _leg(self, leg: str) -> str:
        with self._lock:
            n = self._calls.get(leg, 0)
            self._calls[leg] = n + 1
        return f"{self._prefix}{leg}@x{n}" if n else f"{self._prefix}{leg}"

    def dense_search(self, vector: Any, *, scope: Scope, **kwargs: Any) -> list[Candidate]:
        """The store's dense leg, filtered to the guarded scope's tenant."""
        found = self._store.dense_search(vector, scope=scope, **kwargs)
        return self.keep(self._leg("dense"), found)

    def keyword_search(self, terms: Any, *, scope: Scope, **kwargs: Any) -> list[Candidate]:
        """The store's keyword leg, filtered to the guarded scope's tenant."""
        found = self._store.keyword_search(terms, scope=scope, **kwargs)
        return self.keep(self._leg("keyword"), found)


def guarded_search(query: str, *, scope: Scope, store: Any, **kwargs: Any) -> SearchResult:
    """``run_search`` (same arguments) with the cross-tenant guard on every leg and the result.

    Returns:
        The SearchResult of ``run_search``; when a foreign row was dropped, its trace carries
        ``tenant_alarms`` (see the module docstring) and an audit event was appended.
    """
    guard = GuardedStore(store, scope)
    result = run_search(query, scope=scope, store=guard, **kwargs)
    memories = guard.keep("final", result.memories)
    if not guard.alarms:
        return result
    _sort(guard)
    block = (
        result.block
        if len(memories) == len(result.memories)
        else render_block([c.memory for c in memories])
    )
    gone = {i for ids in guard.foreign.values() for i in ids}
    kept = [c for c in result.trace.candidates if str(c.memory_id) not in gone]
    trace = result.trace.model_copy(
        update={"tenant_alarms": guard.alarms, "block": block, "candidates": kept}
    )
    # the alarm is in the trace (and the log) even if the audit fails
    report_alarms(guard, reason="cross-tenant rows dropped from a search", trace_id=str(trace.id))
    return SearchResult(memories=memories, block=block, trace=trace)


def _sort(guard: GuardedStore) -> None:
    # legs may run concurrently: record their alarms in a stable order, the final result last
    guard.alarms.sort(key=lambda a: (a["stage"] == "final", a["stage"]))


def report_alarms(guard: GuardedStore, *, reason: str, **details: str) -> None:
    """Log (ERROR, naming the foreign tenants and ids) and audit the alarms ``guard`` recorded:
    one ``tenant_alarm`` event of the guarded scope's tenant, details ``{**details, "alarms"}``
    (e.g. ``trace_id`` or ``write_id``). Nothing when there is no alarm. Never raises: an audit
    failure is logged."""
    if not guard.alarms:
        return
    _sort(guard)
    tenant = guard._scope.tenant_id
    log.error(
        "%s of tenant %s: %s (alarms %s)",
        reason,
        tenant,
        {t: sorted(ids)[:MAX_ALARM_IDS] for t, ids in guard.foreign.items()},
        guard.alarms,
    )
    try:
        guard._store.append_event(
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
