"""The MCP server's prober for the isolation check (:mod:`memory_engine.isolation.probe`).

For each tenant A the real server (:func:`~memory_engine.mcp_server.server.build_server`) is bound
to A and reached with the SDK's ``Client`` over its in-memory JSON-RPC transport (one server
start per tenant A, not per probe): ``memory_search`` for B's canary, ``memory_history`` /
``memory_update`` / ``memory_delete`` of B's ids, and tool calls that name B as a tenant, which
must be refused (the tenant never comes from an argument).
"""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from anyio.from_thread import BlockingPortal, start_blocking_portal
from mcp import Client
from mcp.shared.exceptions import MCPError

from memory_engine.engine import MemoryEngine
from memory_engine.errors import MemoryEngineError, MemoryNotFoundError
from memory_engine.isolation.probe import (
    Planted,
    ProbeRecorder,
    alarm_detail,
    foreign_in,
    lend,
    probe_query,
    trace_ids,
)
from memory_engine.mcp_server.binding import Binding
from memory_engine.mcp_server.server import EngineHolder, build_server
from memory_engine.models import Scope

#: Tool arguments naming a tenant that the MCP tools must refuse (they take none).
TENANT_ARGUMENTS: tuple[str, ...] = ("tenant_id", "tenant")


class McpProber:
    """The MCP server bound to each tenant A, called through the SDK client."""

    path = "mcp"

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine
        self.lent = lend(engine)
        self.portal: BlockingPortal | None = None
        self.client: Any = None

    @contextlib.contextmanager
    def acting_for(self, tenant: str) -> Iterator[None]:
        """Serve the tools for ``tenant`` and connect the client (one server per tenant)."""
        lent = self.lent
        server = build_server(EngineHolder(lambda: lent), binding=Binding(tenant))
        client = Client(server, mode="legacy", read_timeout_seconds=120)
        with (
            start_blocking_portal() as portal,
            portal.wrap_async_context_manager(client) as connected,
        ):
            self.portal, self.client = portal, connected
            try:
                yield
            finally:
                self.portal, self.client = None, None

    def _call(self, tool: str, arguments: dict[str, Any]) -> Any:
        if self.portal is None:
            raise MemoryEngineError("the MCP prober is not acting for a tenant")
        return self.portal.call(self.client.call_tool, tool, arguments)

    def _expect_not_found(self, tool: str, arguments: dict[str, Any]) -> Callable[[], str | None]:
        def check() -> str | None:
            result = self._call(tool, arguments)
            error = (result.structured_content or {}).get("error")
            if result.is_error and error == MemoryNotFoundError.code:
                return None
            return f"{tool} answered {error or 'a result'} instead of not-found"

        return check

    def pair(self, recorder: ProbeRecorder, a: Planted, b: Planted) -> None:
        """Probe the tools from A (inside ``acting_for(a.tenant)``) towards B."""
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

        recorder.probe("mcp.search", a, b, search)
        target = str(b.memory_ids[0])
        for bid in b.memory_ids:
            check = self._expect_not_found("memory_history", {"memory_id": str(bid)})
            recorder.probe("mcp.history", a, b, check)
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
            recorder.probe(label, a, b, self._expect_not_found(tool, arguments))
        for key in TENANT_ARGUMENTS:
            recorder.probe("mcp.tenant_argument", a, b, partial(self._refused, query, key, b))

    def _refused(self, query: str, key: str, b: Planted) -> str | None:
        """``memory_search`` naming B in argument ``key`` must be refused: an ``invalid_input``
        tool error (the argument is not in the schema) or a JSON-RPC invalid-params error."""
        try:
            result = self._call("memory_search", {"query": query, key: b.tenant})
        except MCPError:
            return None  # JSON-RPC invalid params: the tenant never comes from an argument
        error = (result.structured_content or {}).get("error") if result.is_error else None
        if error == "invalid_input":
            return None  # refused as an unknown argument: the tenant never comes from one
        return f"memory_search accepted {key!r} (is_error={result.is_error})"
