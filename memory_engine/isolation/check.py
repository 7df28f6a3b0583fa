"""Isolation check: plant canaries per tenant, probe every read and write path across tenants.

``run_isolation_check(engine)`` creates ``tenants`` fresh probe tenants (ids
``isocheck-<run>-<i>``), plants canary memories in each (English and Chinese, active, archived
and deleted, plus a stored search trace), then for every ordered pair (A, B), A != B, tries to
reach B's data through A's scope:

- search with each leg alone and fused, over active and over all statuses, querying B's canary
  text; every candidate of every leg in the trace (kept or dropped) must belong to A, and the
  memory block must not contain B's canary;
- ``get``, ``history``, ``memory_entities``, ``update``, ``archive``, ``delete`` and
  ``get_trace`` by B's ids must answer "not found" (and B's memory must be unchanged
  afterwards);
- ``list`` (all statuses), ``events``, ``list_traces`` and ``export`` of A must hold only A's ids
  and no B canary; ``list_entities`` of A must not hold B's canary entity (every canary
  memory names it), and listing A's memories of B's entity must be empty.

Once per run, when the store offers ``role_escapes()`` (PostgreSQL), raw SQL on the engine's own
database connection tries to leave its role (``RESET ROLE``, ``SET ROLE postgres``, ``SET
SESSION AUTHORIZATION``, the owner's SECURITY DEFINER functions): each escape that works is a
leak of path ``database.role`` (a superuser ignores row-level security, so every tenant is
exposed to any SQL injection).

The same pairs are probed through every frontend whose ``Prober`` the caller passes (the CLI, the
MCP server, the dashboard reads: :mod:`memory_engine.isolation.probe`); the check imports no
frontend. The report counts probes and leaks per path.

A *probe* is one such call; a *leak* is a probe that returned or changed anything of B. The
probe tenants are purged at the end unless ``cleanup=False`` (their purge events remain in the
audit log, identifiable by the ``isocheck-`` prefix).
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from memory_engine.errors import InvalidInputError, MemoryEngineError
from memory_engine.isolation.probe import (
    PATHS,
    Leak,
    Planted,
    Prober,
    ProbeRecorder,
    alarm_detail,
    expect_not_found,
    path_of,
    probe_query,
)
from memory_engine.models import MemoryFilter, MemorySource, MemoryStatus, MemoryType, Scope

__all__ = [
    "DATABASE_ROLE",
    "SEARCH_PROBES",
    "IsolationReport",
    "Leak",
    "Planted",
    "Prober",
    "run_isolation_check",
]

#: Probe label of the raw-SQL role-escape probe of the engine's database connection.
DATABASE_ROLE = "database.role"

#: Search configurations probed: (label, legs, statuses).
SEARCH_PROBES: tuple[tuple[str, tuple[str, ...], tuple[MemoryStatus, ...]], ...] = (
    ("search.hybrid", ("dense", "keyword"), (MemoryStatus.ACTIVE,)),
    ("search.dense", ("dense",), (MemoryStatus.ACTIVE,)),
    ("search.keyword", ("keyword",), (MemoryStatus.ACTIVE,)),
    ("search.all_statuses", ("dense", "keyword"), tuple(MemoryStatus)),
)


@dataclass
class IsolationReport:
    """Outcome of ``run_isolation_check``; ``ok`` is True when ``leaks`` is empty."""

    run_id: str
    tenants: list[str]
    memories_planted: int
    probes: int = 0
    probes_by_path: dict[str, int] = field(default_factory=dict)
    leaks: list[Leak] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    duration_s: float = 0.0
    cleaned_up: bool = False
    #: Frontend paths probed in this run (beside ``engine``), in the order of the probers.
    frontends: tuple[str, ...] = PATHS[1:]

    @property
    def ok(self) -> bool:
        """No leak and no unexpected error."""
        return not self.leaks and not self.errors

    def paths(self) -> dict[str, dict[str, int]]:
        """Probes and leaks per path (``engine``, ``cli``, ``mcp``, ``dashboard``) that ran."""
        out: dict[str, dict[str, int]] = {}
        for label, n in self.probes_by_path.items():
            entry = out.setdefault(path_of(label, self.frontends), {"probes": 0, "leaks": 0})
            entry["probes"] += n
        for leak in self.leaks:
            entry = out.setdefault(path_of(leak.path, self.frontends), {"probes": 0, "leaks": 0})
            entry["leaks"] += 1
        return {p: out[p] for p in (*PATHS, *sorted(set(out) - set(PATHS))) if p in out}

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe report (what ``memory-engine isolation-check --json`` prints)."""
        return {
            "ok": self.ok,
            "run_id": self.run_id,
            "tenants": self.tenants,
            "memories_planted": self.memories_planted,
            "probes": self.probes,
            "leaks": len(self.leaks),
            "paths": self.paths(),
            "probes_by_path": self.probes_by_path,
            "leak_details": [x.to_dict() for x in self.leaks],
            "errors": self.errors,
            "duration_s": round(self.duration_s, 3),
            "cleaned_up": self.cleaned_up,
        }


def _plant(engine: Any, tenant: str, index: int) -> Planted:
    """Write the four canaries of ``tenant`` (archive one, delete one) and store a trace."""
    scope = Scope.of(tenant)
    canary = f"canary{index}x{uuid.uuid4().hex[:10]}"
    p = Planted(tenant, canary)
    texts = [
        f"Project {canary} uses the secret launch code {canary}.",
        f"项目{canary}的秘密口令是{canary}，只属于第{index}个租户。",
        f"Archived note about {canary}: the vault PIN.",
        f"已删除的记录：{canary} 的银行账户。",
    ]
    for text in texts:
        result = engine.write(
            scope,
            text,
            source=MemorySource.MANUAL,
            memory_type=MemoryType.SEMANTIC,
            entities=(f"{canary} Inc.",),  # entity key = the canary
        )
        p.memory_ids.extend(o.memory_id for o in result.outcomes)
    engine.archive(scope, p.memory_ids[2], expected_version=1, reason="isolation check")
    engine.delete(scope, p.memory_ids[3], expected_version=1, reason="isolation check")
    p.trace_id = engine.search(scope, f"secret code {canary}").trace.id
    return p


class _Recorder:
    """Counts probes per label into ``report``; a leak detail becomes a ``Leak``."""

    def __init__(self, report: IsolationReport) -> None:
        self.report = report

    def probe(self, path: str, a: Planted, b: Planted, check: Callable[[], str | None]) -> None:
        """Run ``check`` (A towards B) under label ``path`` (see ``ProbeRecorder.probe``)."""
        self.report.probes += 1
        self.report.probes_by_path[path] = self.report.probes_by_path.get(path, 0) + 1
        try:
            detail = check()
        except MemoryEngineError as exc:
            self.report.errors.append(f"{path} from {a.tenant}: {exc.code}: {exc.message}")
            return
        if detail:
            self.report.leaks.append(Leak(path, a.tenant, b.tenant, detail))


class EngineProber:
    """The engine's own read and write paths (path ``engine``, bare probe labels)."""

    path = "engine"

    def __init__(self, engine: Any) -> None:
        self.engine = engine

    def acting_for(self, tenant: str) -> contextlib.AbstractContextManager[None]:
        """Nothing to prepare: every call takes A's scope."""
        return contextlib.nullcontext()

    def pair(self, recorder: ProbeRecorder, a: Planted, b: Planted) -> None:
        """Search, lookups, edits, listings and export of A aimed at B's canaries and ids."""
        engine, sa = self.engine, Scope.of(a.tenant)
        mine = set(a.memory_ids)
        for label, legs, statuses in SEARCH_PROBES:

            def search(legs: tuple[str, ...] = legs, statuses: Any = statuses) -> str | None:
                opts = engine.search_options(legs=legs, k=10).model_copy(
                    update={"statuses": statuses}
                )
                res = engine.search(sa, probe_query(b), options=opts)
                seen = {c.memory_id for cs in res.trace.legs.values() for c in cs}
                seen |= {c.memory_id for c in res.trace.candidates}
                foreign = seen - mine
                if foreign:
                    return f"{len(foreign)} foreign candidate(s): {sorted(map(str, foreign))[:3]}"
                if b.canary in res.block:
                    return "B's canary in the memory block"
                return alarm_detail(res.trace.tenant_alarms)

            recorder.probe(label, a, b, search)
        target = b.memory_ids[0]
        calls: list[tuple[str, Callable[[], Any]]] = []
        for bid in b.memory_ids:
            calls.append(("get", partial(engine.get, sa, bid)))
            calls.append(("history", partial(engine.history, sa, bid)))
            calls.append(("memory_entities", partial(engine.memory_entities, sa, bid)))
        calls += [
            (
                "update",
                partial(
                    engine.update,
                    sa,
                    target,
                    expected_version=1,
                    reason="probe",
                    content="overwritten by probe",
                ),
            ),
            ("archive", partial(engine.archive, sa, target, expected_version=1, reason="probe")),
            ("delete", partial(engine.delete, sa, target, expected_version=1, reason="probe")),
        ]
        if b.trace_id is not None:
            calls.append(("get_trace", partial(engine.get_trace, sa, b.trace_id)))
        for path, call in calls:
            recorder.probe(path, a, b, partial(expect_not_found, call))
        recorder.probe("list", a, b, lambda: self._listing(a, b))
        recorder.probe("entities", a, b, lambda: self._entities(a, b))
        recorder.probe("entity_memories", a, b, lambda: self._entity_memories(a, b))
        recorder.probe("events", a, b, lambda: self._events(a))
        recorder.probe("traces", a, b, lambda: self._traces(a, b))
        recorder.probe("export", a, b, lambda: self._export(a, b))

    def _listing(self, a: Planted, b: Planted) -> str | None:
        page = self.engine.list(
            Scope.of(a.tenant), filters=MemoryFilter(statuses=tuple(MemoryStatus)), limit=100
        )
        foreign = [m.id for m in page.items if m.tenant_id != a.tenant or b.canary in m.content]
        return f"{len(foreign)} foreign memories listed" if foreign else None

    def _entities(self, a: Planted, b: Planted) -> str | None:
        page = self.engine.list_entities(Scope.of(a.tenant), limit=100)
        foreign = [e.key for e in page.items if e.tenant_id != a.tenant or b.canary in e.key]
        return f"{len(foreign)} foreign entities listed" if foreign else None

    def _entity_memories(self, a: Planted, b: Planted) -> str | None:
        page = self.engine.list(
            Scope.of(a.tenant),
            filters=MemoryFilter(statuses=tuple(MemoryStatus)),
            entity=b.canary,
            limit=100,
        )
        return f"{len(page.items)} memories of B's entity listed" if page.items else None

    def _events(self, a: Planted) -> str | None:
        page = self.engine.events(Scope.of(a.tenant), limit=100)
        foreign = [e for e in page.items if e.tenant_id != a.tenant]
        return f"{len(foreign)} foreign events" if foreign else None

    def _traces(self, a: Planted, b: Planted) -> str | None:
        sa = Scope.of(a.tenant)
        ids = [uuid.UUID(str(t["id"])) for t in self.engine.list_traces(sa, limit=100).items]
        if b.trace_id in ids:
            return "B's trace listed under A"
        foreign = [i for i in ids[:20] if self.engine.get_trace(sa, i).tenant_id != a.tenant]
        return f"{len(foreign)} foreign traces" if foreign else None

    def _export(self, a: Planted, b: Planted) -> str | None:
        data, _ = self.engine.export(
            Scope.of(a.tenant), filters=MemoryFilter(statuses=tuple(MemoryStatus))
        )
        return "B's canary in A's export" if b.canary.encode() in data else None


def _probe_database_role(engine: Any, recorder: _Recorder) -> None:
    """Probe ``database.role`` once: the store's ``role_escapes()`` findings become leaks."""
    probe = getattr(engine.store, "role_escapes", None)
    if not callable(probe):
        return
    report = recorder.report
    report.probes += 1
    report.probes_by_path[DATABASE_ROLE] = report.probes_by_path.get(DATABASE_ROLE, 0) + 1
    try:
        findings = list(probe())
    except MemoryEngineError as exc:
        report.errors.append(f"{DATABASE_ROLE}: {exc}")
        return
    for finding in findings:
        report.leaks.append(Leak(DATABASE_ROLE, "engine connection", "every tenant", finding))


def run_isolation_check(
    engine: Any,
    *,
    tenants: int = 3,
    cleanup: bool = True,
    on_progress: Callable[[int, int], None] | None = None,
    probers: Sequence[Prober] = (),
    paths: Sequence[str] | None = None,
) -> IsolationReport:
    """Plant canaries in ``tenants`` (2..20) fresh tenants and probe every path across them.

    Args:
        engine: a ``MemoryEngine``.
        tenants: number of probe tenants; probes grow with tenants × (tenants - 1).
        cleanup: purge the probe tenants' memories at the end.
        on_progress: called with (pairs done, pairs total).
        probers: the frontends' probers, built on ``engine`` by the caller (e.g.
            ``memory_engine.cli.isolation_probe.CliProber(engine)``); the engine's own probes
            always come first.
        paths: which of ``engine`` and the probers' paths to run (default all of them).

    Returns:
        IsolationReport (``ok`` False on any leak or unexpected error).

    Raises:
        InvalidInputError: ``tenants`` outside 2..20, an unknown path (one no prober was given
            for) or two probers of one path. Store errors while planting propagate.
    """
    if not 2 <= tenants <= 20:
        raise InvalidInputError("tenants must be in 2..20", tenants=tenants)
    every: list[Prober] = [EngineProber(engine), *probers]
    known = [p.path for p in every]
    if len(set(known)) != len(known):
        raise InvalidInputError("one prober per path", paths=known)
    chosen = known if paths is None else list(paths)
    unknown = sorted(set(chosen) - set(known))
    if unknown or not chosen:
        raise InvalidInputError(f"paths must be among {known}", paths=chosen)
    run = [p for p in every if p.path in chosen]
    started = time.perf_counter()
    run_id = uuid.uuid4().hex[:8]
    planted = [_plant(engine, f"isocheck-{run_id}-{i}", i) for i in range(tenants)]
    report = IsolationReport(
        run_id=run_id,
        tenants=[p.tenant for p in planted],
        memories_planted=sum(len(p.memory_ids) for p in planted),
        frontends=tuple(p.path for p in run if p.path != "engine"),
    )
    recorder = _Recorder(report)
    total, done = tenants * (tenants - 1), 0
    for a in planted:
        with contextlib.ExitStack() as stack:
            for prober in run:
                stack.enter_context(prober.acting_for(a.tenant))
            for b in planted:
                if b is a:
                    continue
                for prober in run:
                    prober.pair(recorder, a, b)
                done += 1
                if on_progress:
                    on_progress(done, total)
    _probe_database_role(engine, recorder)
    for p in planted:  # B's first memory must be untouched by A's edit probes
        mem = engine.get(Scope.of(p.tenant), p.memory_ids[0])
        if mem.version != 1 or mem.status is not MemoryStatus.ACTIVE:
            report.leaks.append(Leak("edit-effect", "?", p.tenant, "memory changed by a probe"))
    if cleanup:
        for p in planted:
            for mid in p.memory_ids:
                engine.purge(
                    Scope.of(p.tenant), mid, reason="isolation check cleanup", actor="isolation"
                )
        report.cleaned_up = True
    report.duration_s = time.perf_counter() - started
    return report
