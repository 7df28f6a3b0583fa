"""Isolation probes through the CLI, the MCP server and the dashboard (``memory_engine.isolation.check``).

Each prober runs, for one ordered tenant pair (A, B), the calls a client of that path makes,
acting for A and aiming at B's canaries and ids:

- ``cli``: the ``memory-engine`` commands ``search --json`` and ``stats --json`` run in-process
  through typer on the check's engine (``cli.LENT_ENGINE``), parsing what they print;
- ``mcp``: the real MCP server (``mcp_server.build_server``) bound to A, reached with the SDK's
  ``Client`` over its in-memory JSON-RPC transport (one client per tenant A, so one server start
  per tenant, not per probe): ``memory_search`` for B's canary, ``memory_history`` /
  ``memory_update`` / ``memory_delete`` of B's ids, and tool calls that name B as a tenant;
- ``dashboard``: the reads the Query Replay and Memories pages make (``ui.reads``) with a viewer
  account granted only A: search and text filter for B's canary, lookup of B's ids, and the same
  reads naming B as the tenant (which the grant check must refuse).

In-process on purpose: a second process could not open an embedded store (a Qdrant local
folder is locked by its owner), and the code under test is the same.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from typing import TYPE_CHECKING, Any

from memory_engine.engine import MemoryEngine
from memory_engine.errors import MemoryEngineError, MemoryNotFoundError
from memory_engine.models import MemoryFilter, MemoryStatus, Scope
from memory_engine.security.auth import Account, PermissionDeniedError, Role

if TYPE_CHECKING:
    from anyio.from_thread import BlockingPortal

    from memory_engine.isolation.check import _Planted, _Prober

#: Probe paths of the report, in display order; labels ``<path>.<call>`` belong to ``path``,
#: every other label to ``engine``.
PATHS: tuple[str, ...] = ("engine", "cli", "mcp", "dashboard")
#: Tool arguments naming a tenant that the MCP tools must refuse (they take none).
TENANT_ARGUMENTS: tuple[str, ...] = ("tenant_id", "tenant")


def path_of(label: str) -> str:
    """The path (``engine``, ``cli``, ``mcp`` or ``dashboard``) of a probe label."""
    head = label.split(".", 1)[0]
    return head if head in PATHS[1:] else "engine"


def probe_query(b: _Planted) -> str:
    """The query each path sends from A: B's canary with words of B's canary texts."""
    return f"{b.canary} secret code 秘密口令"


def foreign_in(ids: set[uuid.UUID], texts: list[str], a: _Planted, b: _Planted) -> str | None:
    """Leak detail when ``ids`` holds an id that is not A's or a text holds B's canary."""
    foreign = ids - set(a.memory_ids)
    if foreign:
        return f"{len(foreign)} foreign id(s): {sorted(map(str, foreign))[:3]}"
    if any(b.canary in text for text in texts):
        return "B's canary in the result"
    return None


def alarm_detail(alarms: list[dict[str, Any]]) -> str | None:
    """Leak detail when a trace carries cross-tenant alarms (``security.tenant_guard``): the
    store returned foreign rows, which the guard dropped."""
    if not alarms:
        return None
    dropped = sum(int(a.get("dropped", 0)) for a in alarms)
    return f"tenant guard alarm: {dropped} foreign row(s) dropped"


def trace_ids(trace: Any) -> set[uuid.UUID]:
    """Memory ids of every candidate of every leg and of the fused list of a trace."""
    ids = {c.memory_id for cs in trace.legs.values() for c in cs}
    return ids | {c.memory_id for c in trace.candidates}


class _LentEngine(MemoryEngine):
    """The check's store and embedder under a facade whose ``close`` keeps them open."""

    def close(self) -> None:
        """Does nothing: the lender closes the store."""


def lend(engine: MemoryEngine) -> MemoryEngine:
    """A facade over ``engine``'s store and embedder that commands may "close" safely."""
    return _LentEngine(engine.settings, store=engine.store, embedder=engine.embedder)


# --------------------------------------------------------------------------- cli
class CliProber:
    """``memory-engine search|stats --tenant A --json`` in-process on the check's engine."""

    def __init__(self, engine: MemoryEngine) -> None:
        from typer.testing import CliRunner

        self.engine = engine
        self.lent = lend(engine)
        self.runner = CliRunner()

    def _json(self, args: list[str]) -> Any:
        from memory_engine.cli import app as cli

        token = cli.LENT_ENGINE.set(self.lent)
        try:
            run = self.runner.invoke(cli.app, args)
        finally:
            cli.LENT_ENGINE.reset(token)
        if run.exit_code != 0:
            raise MemoryEngineError(f"memory-engine {args[0]} exited {run.exit_code}")
        return json.loads(run.stdout)

    def pair(self, prober: _Prober, a: _Planted, b: _Planted) -> None:
        """Probe ``cli.search`` and ``cli.stats`` from A towards B."""

        def search() -> str | None:
            data = self._json(["search", probe_query(b), "--tenant", a.tenant, "--json"])
            ids = {uuid.UUID(m["id"]) for m in data["memories"]}
            trace = data["trace"]
            for cands in [*trace["legs"].values(), trace["candidates"]]:
                ids |= {uuid.UUID(c["memory_id"]) for c in cands}
            texts = [data["block"], *(m["content"] for m in data["memories"])]
            return foreign_in(ids, texts, a, b) or alarm_detail(trace.get("tenant_alarms", []))

        def stats() -> str | None:
            printed = self._json(["stats", "--tenant", a.tenant, "--json"])
            own = self.engine.stats(Scope.of(a.tenant)).model_dump(mode="json")
            return None if printed == own else "stats differ from A's own counts"

        prober.probe("cli.search", a, b, search)
        prober.probe("cli.stats", a, b, stats)


# --------------------------------------------------------------------------- mcp
class McpProber:
    """The MCP server bound to each tenant A, called through the SDK client."""

    def __init__(self, engine: MemoryEngine, portal: BlockingPortal) -> None:
        self.engine = engine
        self.lent = lend(engine)
        self.portal = portal
        self.client: Any = None

    @contextlib.contextmanager
    def bound_to(self, tenant: str) -> Iterator[None]:
        """Serve the tools for ``tenant`` and connect the client (one server per tenant)."""
        from mcp import Client

        from memory_engine.mcp_server.binding import Binding
        from memory_engine.mcp_server.server import EngineHolder, build_server

        lent = self.lent
        server = build_server(EngineHolder(lambda: lent), binding=Binding(tenant))
        client = Client(server, mode="legacy", read_timeout_seconds=120)
        with self.portal.wrap_async_context_manager(client) as connected:
            self.client = connected
            try:
                yield
            finally:
                self.client = None

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        return self.portal.call(self.client.call_tool, tool, arguments)

    def _expect_not_found(self, tool: str, arguments: dict[str, Any]) -> Callable[[], str | None]:
        def check() -> str | None:
            result = self._call(tool, arguments)
            error = (result.structured_content or {}).get("error")
            if result.is_error and error == MemoryNotFoundError.code:
                return None
            return f"{tool} answered {error or 'a result'} instead of not-found"

        return check

    def pair(self, prober: _Prober, a: _Planted, b: _Planted) -> None:
        """Probe the tools from A (the client must be ``bound_to(a.tenant)``) towards B."""
        query = probe_query(b)

        def search() -> str | None:
            result = self._call("memory_search", {"query": query, "k": 50})
            if result.is_error:
                raise MemoryEngineError(f"memory_search failed: {result.structured_content}")
            data = result.structured_content or {}
            ids = {uuid.UUID(m["id"]) for m in data.get("memories", [])}
            trace = self.engine.get_trace(Scope.of(a.tenant), data["trace_id"])
            ids |= trace_ids(trace)
            texts = [str(data.get("block", "")), *(m["content"] for m in data.get("memories", []))]
            return foreign_in(ids, texts, a, b) or alarm_detail(trace.tenant_alarms)

        prober.probe("mcp.search", a, b, search)
        target = str(b.memory_ids[0])
        for bid in b.memory_ids:
            check = self._expect_not_found("memory_history", {"memory_id": str(bid)})
            prober.probe("mcp.history", a, b, check)
        edits: list[tuple[str, str, dict[str, Any]]] = [
            ("mcp.update", "memory_update", {"memory_id": target, "content": "probe"}),
            (
                "mcp.update",
                "memory_update",
                {"memory_id": target, "importance": 0.01, "expected_version": 1},
            ),
            ("mcp.delete", "memory_delete", {"memory_id": target, "reason": "probe"}),
        ]
        for label, tool, arguments in edits:
            prober.probe(label, a, b, self._expect_not_found(tool, arguments))
        for key in TENANT_ARGUMENTS:
            prober.probe("mcp.tenant_argument", a, b, partial(self._refused, query, key, b))

    def _refused(self, query: str, key: str, b: _Planted) -> str | None:
        """``memory_search`` naming B in argument ``key`` must be refused as invalid params."""
        from mcp.shared.exceptions import MCPError

        try:
            result = self._call("memory_search", {"query": query, key: b.tenant})
        except MCPError:
            return None  # JSON-RPC invalid params: the tenant never comes from an argument
        return f"memory_search accepted {key!r} (is_error={result.is_error})"


# --------------------------------------------------------------------------- dashboard
def viewer_of(tenant: str) -> Account:
    """A dashboard viewer granted only ``tenant``."""
    return Account(name=f"isolation-viewer-{tenant}", role=Role.VIEWER, tenants=(tenant,))


class DashboardProber:
    """The Query Replay / Memories reads (``ui.reads``) of a viewer granted only A."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine

    def pair(self, prober: _Prober, a: _Planted, b: _Planted) -> None:
        """Probe ``dashboard.*`` from A towards B."""
        from memory_engine.dashboard import reads

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

        def refused(call: Callable[[], Any]) -> Callable[[], str | None]:
            def check() -> str | None:
                try:
                    call()
                except PermissionDeniedError:
                    return None
                return "a viewer of A read tenant B"

            return check

        prober.probe("dashboard.search", a, b, search)
        prober.probe("dashboard.list", a, b, text_filter)
        for bid in b.memory_ids:
            lookup = partial(reads.get_memory, engine, viewer, a.tenant, bid)
            prober.probe("dashboard.get", a, b, partial(prober.expect_not_found, lookup))
        prober.probe(
            "dashboard.grant",
            a,
            b,
            refused(lambda: reads.search(engine, viewer, b.tenant, query, k=10)),
        )
        prober.probe(
            "dashboard.grant",
            a,
            b,
            refused(lambda: reads.get_memory(engine, viewer, b.tenant, b.memory_ids[0])),
        )
