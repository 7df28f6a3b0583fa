"""What a frontend supplies to the isolation check: the ``Prober`` protocol and its helpers.

The check (:mod:`memory_engine.isolation.check`) plants canaries in fresh tenants and, for every
ordered pair (A, B), asks each prober to reach B's data while acting for A. A prober belongs to
the frontend whose path it exercises (``memory_engine.cli.isolation_probe``,
``memory_engine.mcp_server.isolation_probe``, ``memory_engine.dashboard.isolation_probe``); the
check imports none of them: whoever runs it (the ``memory-engine isolation-check`` command, the
dashboard's Isolation page) passes the probers it has.

A *probe* is one call; a *leak* is a probe that returned or changed anything of B. Probe labels
are ``<path>.<call>`` (``cli.search``, ``mcp.history``, ...); the engine's own probes carry bare
labels (``get``, ``search.hybrid``, ...) and count under the path ``engine``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar, cast, runtime_checkable

from memory_engine.errors import MemoryNotFoundError

#: Probe paths of the report, in display order (a prober with another path is listed after).
PATHS: tuple[str, ...] = ("engine", "cli", "mcp", "dashboard")

E = TypeVar("E")


@dataclass
class Planted:
    """The canaries of one probe tenant.

    Attributes:
        tenant: the probe tenant id (``isocheck-<run>-<i>``).
        canary: a unique word every canary text of this tenant contains.
        memory_ids: the planted memories: [active en, active zh, archived, deleted].
        trace_id: a search trace stored for this tenant.
    """

    tenant: str
    canary: str
    memory_ids: list[uuid.UUID] = field(default_factory=list)
    trace_id: uuid.UUID | None = None


@dataclass
class Leak:
    """One probe that crossed tenants."""

    path: str
    from_tenant: str
    target_tenant: str
    detail: str

    def to_dict(self) -> dict[str, str]:
        """JSON-safe form."""
        return dict(self.__dict__)


class ProbeRecorder(Protocol):
    """Where a prober records its probes (the check's report)."""

    def probe(self, path: str, a: Planted, b: Planted, check: Callable[[], str | None]) -> None:
        """Run ``check`` (A acting towards B) and record it under label ``path``.

        ``check`` returns a leak detail, or None when nothing of B was reached; a
        ``MemoryEngineError`` it raises is recorded as an error of the run, not as a leak.
        """
        ...


@runtime_checkable
class Prober(Protocol):
    """The probes of one frontend, built by that frontend on the check's engine.

    Attributes:
        path: the report path its probes count under (``cli``, ``mcp``, ``dashboard``); its
            probe labels are ``<path>.<call>``.
    """

    path: str

    def acting_for(self, tenant: str) -> AbstractContextManager[None]:
        """Prepare the probes of A = ``tenant`` (e.g. a server bound to A); entered once per A,
        around every pair (A, B)."""
        ...

    def pair(self, recorder: ProbeRecorder, a: Planted, b: Planted) -> None:
        """Probe this frontend from A towards B, one ``recorder.probe`` per call."""
        ...


def path_of(label: str, frontends: tuple[str, ...] = PATHS[1:]) -> str:
    """The path of a probe label: its head when that is a frontend path, else ``engine``."""
    head = label.split(".", 1)[0]
    return head if head in frontends else "engine"


def probe_query(b: Planted) -> str:
    """The query each path sends from A: B's canary with words of B's canary texts."""
    return f"{b.canary} secret code 秘密口令"


def foreign_in(ids: set[uuid.UUID], texts: list[str], a: Planted, b: Planted) -> str | None:
    """Leak detail when ``ids`` holds an id that is not A's or a text holds B's canary."""
    foreign = ids - set(a.memory_ids)
    if foreign:
        return f"{len(foreign)} foreign id(s): {sorted(map(str, foreign))[:3]}"
    if any(b.canary in text for text in texts):
        return "B's canary in the result"
    return None


def alarm_detail(alarms: list[dict[str, Any]]) -> str | None:
    """Leak detail when a trace carries cross-tenant alarms (``stores.guard``): the store
    returned foreign rows, which the guard dropped."""
    if not alarms:
        return None
    dropped = sum(int(a.get("dropped", 0)) for a in alarms)
    return f"tenant guard alarm: {dropped} foreign row(s) dropped"


def trace_ids(trace: Any) -> set[uuid.UUID]:
    """Memory ids of every candidate of every leg and of the fused list of a trace."""
    ids = {c.memory_id for cs in trace.legs.values() for c in cs}
    return ids | {c.memory_id for c in trace.candidates}


def expect_not_found(call: Callable[[], Any]) -> str | None:
    """None when ``call`` raises ``MemoryNotFoundError`` or returns an empty page, else a
    leak detail naming what it returned."""
    try:
        value = call()
    except MemoryNotFoundError:
        return None
    if hasattr(value, "items") and not value.items:  # an empty page is "nothing found"
        return None
    return f"returned {type(value).__name__} instead of not-found"


class _LentEngine:
    """The check's engine, except ``close`` does nothing (the lender closes it)."""

    def __init__(self, engine: Any) -> None:
        self._engine = engine

    def __getattr__(self, name: str) -> Any:
        return getattr(self._engine, name)

    def close(self) -> None:
        """Does nothing: the check closes its engine."""


def lend(engine: E) -> E:
    """``engine`` behind a facade that a frontend may "close" after each command safely.

    Every attribute but ``close`` is the engine's own, so a frontend probed in-process reads and
    writes the very store, embedder and settings of the check.
    """
    return cast(E, _LentEngine(engine))
