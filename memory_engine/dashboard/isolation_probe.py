"""The dashboard's prober for the isolation check (:mod:`memory_engine.isolation.probe`).

It makes the reads of the Query Replay and Memories pages (:mod:`memory_engine.dashboard.reads`)
as a viewer granted only A: search and text filter for B's canary, lookup of B's ids, and the
same reads naming B as the tenant, which the grant check must refuse. No Streamlit import.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable
from functools import partial
from typing import Any

from memory_engine.dashboard import reads
from memory_engine.engine import MemoryEngine
from memory_engine.isolation.probe import (
    Planted,
    ProbeRecorder,
    alarm_detail,
    expect_not_found,
    foreign_in,
    probe_query,
    trace_ids,
)
from memory_engine.models import MemoryFilter, MemoryStatus
from memory_engine.security.auth import Account, PermissionDeniedError, Role


def viewer_of(tenant: str) -> Account:
    """A dashboard viewer granted only ``tenant``."""
    return Account(name=f"isolation-viewer-{tenant}", role=Role.VIEWER, tenants=(tenant,))


def _refused(call: Callable[[], Any]) -> str | None:
    """None when ``call`` is refused with ``PermissionDeniedError``, else a leak detail."""
    try:
        call()
    except PermissionDeniedError:
        return None
    return "a viewer of A read tenant B"


class DashboardProber:
    """The Query Replay / Memories reads of a viewer granted only A."""

    path = "dashboard"

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    def acting_for(self, tenant: str) -> contextlib.AbstractContextManager[None]:
        """Nothing to prepare: each read names the viewer and the tenant."""
        return contextlib.nullcontext()

    def pair(self, recorder: ProbeRecorder, a: Planted, b: Planted) -> None:
        """Probe ``dashboard.*`` from A towards B."""
        engine, viewer, query = self.engine, viewer_of(a.tenant), probe_query(b)

        def search() -> str | None:
            res = reads.search(engine, viewer, a.tenant, query, k=10)
            ids = {c.memory.id for c in res.memories} | trace_ids(res.trace)
            texts = [res.block, *(c.memory.content for c in res.memories)]
            return foreign_in(ids, texts, a, b) or alarm_detail(res.trace.tenant_alarms)

        def text_filter() -> str | None:
            filters = MemoryFilter(statuses=tuple(MemoryStatus), text_contains=b.canary)
            page = reads.list_memories(engine, viewer, a.tenant, filters=filters, limit=100)
            return foreign_in({m.id for m in page.items}, [m.content for m in page.items], a, b)

        def entity_filter() -> str | None:
            listed = reads.list_entities(engine, viewer, a.tenant, limit=100).items
            if any(e.tenant_id != a.tenant or b.canary in e.key for e in listed):
                return "B's entity in A's entity filter"
            filters = MemoryFilter(statuses=tuple(MemoryStatus), entity=b.canary)
            page = reads.list_memories(engine, viewer, a.tenant, filters=filters, limit=100)
            return foreign_in({m.id for m in page.items}, [m.content for m in page.items], a, b)

        recorder.probe("dashboard.search", a, b, search)
        recorder.probe("dashboard.list", a, b, text_filter)
        recorder.probe("dashboard.entities", a, b, entity_filter)
        for bid in b.memory_ids:
            lookup = partial(reads.get_memory, engine, viewer, a.tenant, bid)
            recorder.probe("dashboard.get", a, b, partial(expect_not_found, lookup))
            linked = partial(reads.memory_entities, engine, viewer, a.tenant, bid)
            recorder.probe("dashboard.memory_entities", a, b, partial(expect_not_found, linked))
        foreign_search = partial(reads.search, engine, viewer, b.tenant, query, k=10)
        recorder.probe("dashboard.grant", a, b, partial(_refused, foreign_search))
        foreign_get = partial(reads.get_memory, engine, viewer, b.tenant, b.memory_ids[0])
        recorder.probe("dashboard.grant", a, b, partial(_refused, foreign_get))
