"""MCP over streamable HTTP with the SDK's own client: bearer token -> tenant, malformed calls."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any

import anyio
import httpx2
import mcp_types as types
import pytest

from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import HttpServer
from tests.mcp_server.helpers import http_client, structured
from tests.mcp_server.test_mcp_stdio import MALFORMED, assert_refused


def test_http_bearer_tokens_bind_tenants(start_http_server: Callable[..., HttpServer]) -> None:
    tenant_a, tenant_b = new_tenant_id("a"), new_tenant_id("b")
    token_a, token_b = secrets.token_urlsafe(24), secrets.token_urlsafe(24)
    import hashlib

    server = start_http_server(
        tokens={
            token_a: {"tenant": tenant_a, "user_id": "alice"},
            "sha256:" + hashlib.sha256(token_b.encode()).hexdigest(): {"tenant": tenant_b},
        }
    )

    async def main() -> None:
        async with http_client(server.url, token_a) as a:
            w = structured(
                await a.call_tool("memory_write", {"content": "Project codename is Falcon"})
            )
            a_id = w["stored"][0]["memory_id"]
            got = structured(await a.call_tool("memory_search", {"query": "project codename"}))
            assert [m["id"] for m in got["memories"]] == [a_id]
            u = structured(
                await a.call_tool("memory_update", {"memory_id": a_id, "importance": 0.8})
            )
            assert u["memory"]["version"] == 2
            h = structured(await a.call_tool("memory_history", {"memory_id": a_id}))
            assert [e["action"] for e in h["events"]] == ["create", "update"]
        async with http_client(server.url, token_b) as b:
            structured(await b.call_tool("memory_write", {"content": "Project codename is Heron"}))
            got = structured(await b.call_tool("memory_search", {"query": "project codename"}))
            assert [m["content"] for m in got["memories"]] == ["Project codename is Heron"]
            refused = await b.call_tool("memory_search", {"query": "codename", "tenant": tenant_a})
            assert refused.is_error and refused.structured_content
            assert refused.structured_content["error"] == "invalid_input"
            r = await b.call_tool("memory_delete", {"memory_id": a_id})
            assert r.is_error and r.structured_content
            assert r.structured_content["error"] == "not_found"
        async with http_client(server.url, token_a) as a:
            d = structured(await a.call_tool("memory_delete", {"memory_id": a_id}))
            assert d["status"] == "deleted"

    anyio.run(main)


def test_http_refuses_missing_or_unknown_tokens(
    start_http_server: Callable[..., HttpServer],
) -> None:
    server = start_http_server(tokens={secrets.token_urlsafe(24): {"tenant": new_tenant_id()}})
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    headers = {"Accept": "application/json, text/event-stream"}
    for auth in (None, "Bearer wrong-token", "Basic abc"):
        h = dict(headers, **({"Authorization": auth} if auth else {}))
        resp = httpx2.post(server.url, json=body, headers=h, timeout=30)
        assert resp.status_code == 401, (auth, resp.status_code)

    async def main() -> None:
        with pytest.raises(BaseException):  # noqa: B017 - the SDK surfaces 401 as its own error group
            async with http_client(server.url, "wrong-token") as c:
                await c.list_tools()

    anyio.run(main)


def test_http_malformed_calls_and_server_keeps_serving(
    start_http_server: Callable[..., HttpServer],
) -> None:
    token = secrets.token_urlsafe(24)
    server = start_http_server(tokens={token: {"tenant": new_tenant_id()}})

    async def main() -> None:
        async with http_client(server.url, token) as client:
            for label, params in MALFORMED:
                # A non-string tool name cannot match the Mcp-Name header of the 2026-07-28 HTTP
                # wire: the SDK's transport refuses it (HEADER_MISMATCH) before the tool layer.
                codes = {types.INVALID_PARAMS}
                if label == "name not a string":
                    codes.add(types.HEADER_MISMATCH)
                await assert_refused(client, label, params, codes)
                ok: Any = await client.call_tool("memory_search", {"query": "anything"})
                assert not ok.is_error, label

    anyio.run(main)
    assert server.proc.poll() is None  # still serving


def test_http_single_tenant_without_tokens(start_http_server: Callable[..., HttpServer]) -> None:
    tenant = new_tenant_id("single")
    server = start_http_server(tenant=tenant)

    async def main() -> None:
        async with http_client(server.url, None) as client:
            w = structured(await client.call_tool("memory_write", {"content": "Carol uses vim"}))
            assert w["created"] == 1

    anyio.run(main)
