"""The MCP http server against one noisy or hostile client (the real server subprocess, the real
SDK client over streamable HTTP): one token cannot take every session, a burst of tool calls
over a token's rate is answered 429 with Retry-After (writes and searches alike) while another
token keeps working, and Host/Origin validation stays on whatever address the server binds."""

from __future__ import annotations

import secrets
from collections.abc import AsyncIterator, Callable
from contextlib import AsyncExitStack, asynccontextmanager
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared._httpx_utils import create_mcp_http_client
from mcp.shared.exceptions import MCPError

from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import HttpServer, mcp_db_url, start_http_server  # noqa: F401
from tests.mcp_server.helpers import structured


@asynccontextmanager
async def recording_client(
    url: str, token: str, seen: list[tuple[int, str | None]], mode: str = "auto"
) -> AsyncIterator[Client]:
    """The SDK client with ``Authorization: Bearer <token>``; every HTTP response's status and
    Retry-After header is appended to ``seen``. ``mode="legacy"``: the initialize handshake,
    which opens a stateful session (the 2026 protocol the client speaks by default holds none)."""

    async def record(response: httpx2.Response) -> None:
        seen.append((response.status_code, response.headers.get("retry-after")))

    http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
    http.event_hooks = {"request": [], "response": [record]}
    transport = streamable_http_client(url, http_client=http)
    async with Client(transport, read_timeout_seconds=120, mode=mode) as c:
        yield c


def _mcp_error(exc: BaseException) -> MCPError | None:
    """The MCPError in ``exc`` (the SDK raises it inside task groups: an exception group)."""
    if isinstance(exc, MCPError):
        return exc
    for inner in getattr(exc, "exceptions", ()):
        found = _mcp_error(inner)
        if found is not None:
            return found
    return None


def test_one_token_cannot_take_every_session(
    start_http_server: Callable[..., HttpServer],  # noqa: F811
) -> None:
    token_a, token_b = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    server = start_http_server(
        tokens={token_a: {"tenant": new_tenant_id("a")}, token_b: {"tenant": new_tenant_id("b")}},
        MEMORY_MCP_SESSIONS_PER_TOKEN="3",
        MEMORY_MCP_MAX_SESSIONS="5",
    )

    async def main() -> None:
        seen: list[tuple[int, str | None]] = []
        async with AsyncExitStack() as stack:
            for _ in range(3):  # token A opens sessions up to its cap and keeps them open
                await stack.enter_async_context(
                    recording_client(server.url, token_a, seen, "legacy")
                )
            with pytest.raises(BaseException) as info:  # noqa: B017 - an MCPError, maybe grouped
                async with recording_client(server.url, token_a, seen, "legacy"):
                    pass
            refusal = _mcp_error(info.value)
            assert refusal is not None and "open sessions" in refusal.error.message, info.value
            assert (refusal.error.data or {}).get("retry_after", 0) >= 1
            assert any(s == 429 and r and int(r) >= 1 for s, r in seen), seen
            async with recording_client(server.url, token_b, [], "legacy") as b:  # B connects
                got = await b.call_tool("memory_search", {"query": "anything"})
                assert not got.is_error

    anyio.run(main)


def test_a_burst_over_the_rate_gets_429_with_retry_after(
    start_http_server: Callable[..., HttpServer],  # noqa: F811
) -> None:
    token_a, token_b = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    server = start_http_server(
        tokens={token_a: {"tenant": new_tenant_id("a")}, token_b: {"tenant": new_tenant_id("b")}},
        MEMORY_MCP_WRITE_RATE_PER_TOKEN="0.01",  # a bucket of one call, refilled every 100 s
        MEMORY_MCP_READ_RATE_PER_TOKEN="0.01",
    )

    async def main() -> None:
        seen: list[tuple[int, str | None]] = []
        async with recording_client(server.url, token_a, seen) as a:
            for tool, args in (
                ("memory_write", lambda i: {"content": f"Raw fact number {i} 第{i}条"}),
                ("memory_search", lambda i: {"query": f"fact {i}"}),
            ):
                outcomes: list[Any] = []
                for i in range(4):
                    try:
                        outcomes.append(await a.call_tool(tool, args(i)))
                    except MCPError as exc:
                        outcomes.append(exc)
                refused = [o for o in outcomes if isinstance(o, MCPError)]
                assert len(refused) >= 3, (tool, outcomes)
                data = refused[0].error.data or {}
                assert data.get("retry_after", 0) >= 1, refused[0].error
                assert "rate limit" in refused[0].error.message
            limited = [(s, r) for s, r in seen if s == 429]
            assert len(limited) >= 6 and all(r and int(r) >= 1 for _, r in limited), seen
        async with recording_client(server.url, token_b, []) as b:  # another token is unaffected
            structured(await b.call_tool("memory_write", {"content": "B's own fact"}))

    anyio.run(main)


def test_host_validation_stays_on_for_any_bind_address(
    start_http_server: Callable[..., HttpServer],  # noqa: F811
) -> None:
    token = secrets.token_urlsafe(24)
    server = start_http_server(
        tokens={token: {"tenant": new_tenant_id("h")}},
        host="127.0.0.2",
        MEMORY_MCP_ALLOWED_HOSTS='["mcp.internal:*"]',
        MEMORY_MCP_ALLOWED_ORIGINS='["https://agents.example.com"]',
    )
    port = server.url.rsplit(":", 1)[1].split("/")[0]
    body = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "probe", "version": "1"},
        },
    }
    base = {
        "Accept": "application/json, text/event-stream",
        "Authorization": f"Bearer {token}",
    }

    def post(**headers: str) -> int:
        resp = httpx2.post(server.url, json=body, headers={**base, **headers}, timeout=30)
        return resp.status_code

    assert post(Host="evil.example") == 421
    assert post(Host=f"evil.example:{port}") == 421
    assert post(Host=f"127.0.0.2:{port}", Origin="http://evil.example") == 403
    assert post(Host=f"127.0.0.2:{port}") == 200
    assert post(Host=f"mcp.internal:{port}", Origin="https://agents.example.com") == 200


_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "probe", "version": "1"},
    },
}
_ACCEPT = {"Accept": "application/json, text/event-stream"}


def test_a_delete_without_the_owners_token_frees_no_session_slot(
    start_http_server: Callable[..., HttpServer],  # noqa: F811
) -> None:
    """A DELETE the SDK refuses (no token: 401) or that another token sends keeps the session
    counted; only the owner's DELETE the SDK answers 2xx frees its slot."""
    token_a, token_b = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    server = start_http_server(
        tokens={token_a: {"tenant": new_tenant_id("a")}, token_b: {"tenant": new_tenant_id("b")}},
        MEMORY_MCP_SESSIONS_PER_TOKEN="5",
    )
    auth_a = {**_ACCEPT, "Authorization": f"Bearer {token_a}"}
    auth_b = {**_ACCEPT, "Authorization": f"Bearer {token_b}"}
    with httpx2.Client(timeout=30) as http:
        statuses: list[int] = []
        opened: list[str] = []
        for _ in range(30):
            resp = http.post(server.url, json=_INITIALIZE, headers=auth_a)
            statuses.append(resp.status_code)
            if resp.status_code != 200:
                continue
            sid = resp.headers["mcp-session-id"]
            opened.append(sid)
            gone = http.delete(server.url, headers={**_ACCEPT, "Mcp-Session-Id": sid})
            assert gone.status_code == 401, gone.text
            http.delete(server.url, headers={**auth_b, "Mcp-Session-Id": sid})  # not the owner
        assert statuses[:5] == [200] * 5, statuses
        assert set(statuses[5:]) == {429}, statuses
        assert len(opened) == 5
        # the owner's own DELETE frees exactly one slot
        closed = http.delete(server.url, headers={**auth_a, "Mcp-Session-Id": opened[0]})
        assert 200 <= closed.status_code < 300, closed.text
        assert http.post(server.url, json=_INITIALIZE, headers=auth_a).status_code == 200
        assert http.post(server.url, json=_INITIALIZE, headers=auth_a).status_code == 429
        # token B's own budget is untouched
        assert http.post(server.url, json=_INITIALIZE, headers=auth_b).status_code == 200


def test_requests_that_open_no_session_are_not_counted_against_the_cap(
    start_http_server: Callable[..., HttpServer],  # noqa: F811
) -> None:
    """With the token at its session cap, the SDK's default (stateless) client still works and a
    raw ``server/discover`` is answered; a batch holding an initialize is refused."""
    token = secrets.token_urlsafe(24)
    server = start_http_server(
        tokens={token: {"tenant": new_tenant_id("s")}}, MEMORY_MCP_SESSIONS_PER_TOKEN="1"
    )
    headers = {**_ACCEPT, "Authorization": f"Bearer {token}"}

    async def main() -> None:
        async with recording_client(server.url, token, [], "legacy"):  # holds the one session
            async with httpx2.AsyncClient(timeout=30) as http:
                refused = await http.post(server.url, json=_INITIALIZE, headers=headers)
                assert refused.status_code == 429, refused.text
                batch = await http.post(server.url, json=[_INITIALIZE], headers=headers)
                assert batch.status_code == 429, batch.text
                discover = await http.post(
                    server.url,
                    json={"jsonrpc": "2.0", "id": 2, "method": "server/discover", "params": {}},
                    headers=headers,
                )
                assert discover.status_code != 429, discover.text
            seen: list[tuple[int, str | None]] = []
            async with recording_client(server.url, token, seen) as stateless:
                for i in range(3):
                    structured(await stateless.call_tool("memory_write", {"content": f"事实 {i}"}))
                got = await stateless.call_tool("memory_search", {"query": "事实"})
                assert not got.is_error
            assert seen and all(s != 429 for s, _ in seen), seen

    anyio.run(main)
