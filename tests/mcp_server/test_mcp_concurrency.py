"""Concurrent MCP clients over streamable HTTP (the SDK's client, one bearer token each, two
tenants): calls in flight at once are all answered (query embeddings of concurrent calls share
forward passes on the server), every acknowledged write is readable in its own tenant, and no
tenant's search or history shows another tenant's memories."""

from __future__ import annotations

import secrets
from collections.abc import Callable

import anyio

from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import HttpServer
from tests.mcp_server.helpers import http_client, structured

CLIENTS = 6
WRITES = 3


def test_concurrent_clients_write_and_search_in_their_own_tenant(
    start_http_server: Callable[..., HttpServer],
) -> None:
    tenants = [new_tenant_id("c0"), new_tenant_id("c1")]
    tokens = [secrets.token_urlsafe(24) for _ in range(CLIENTS)]
    server = start_http_server(
        tokens={tok: {"tenant": tenants[i % 2]} for i, tok in enumerate(tokens)},
        MEMORY_MCP_WRITE_RATE_PER_TOKEN="100",
        MEMORY_MCP_READ_RATE_PER_TOKEN="100",
    )
    written: dict[int, list[tuple[str, str]]] = {i: [] for i in range(CLIENTS)}
    found: dict[int, list[dict[str, object]]] = {}

    async def client(i: int) -> None:
        async with http_client(server.url, tokens[i]) as c:
            for n in range(WRITES):
                text = f"客户{i}的笔记{n}：喜欢绿茶" if n % 2 else f"client {i} note {n} about tea"
                w = structured(await c.call_tool("memory_write", {"content": text}))
                assert w["created"] == 1
                written[i].append((w["stored"][0]["memory_id"], text))
            got = structured(await c.call_tool("memory_search", {"query": "tea", "k": 50}))
            found[i] = list(got["memories"])  # type: ignore[arg-type]

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            for i in range(CLIENTS):
                tg.start_soon(client, i)
        # afterwards every acknowledged write is readable in its own tenant, not the other
        async with (
            http_client(server.url, tokens[0]) as c0,
            http_client(server.url, tokens[1]) as c1,
        ):
            for i in range(CLIENTS):
                own, other = (c0, c1) if i % 2 == 0 else (c1, c0)
                for mid, _ in written[i]:
                    h = structured(await own.call_tool("memory_history", {"memory_id": mid}))
                    assert [e["action"] for e in h["events"]] == ["create"]
                    r = await other.call_tool("memory_history", {"memory_id": mid})
                    assert r.is_error and r.structured_content
                    assert r.structured_content["error"] == "not_found"

    anyio.run(main)
    for i in range(CLIENTS):
        own_tenant_ids = {mid for j in range(i % 2, CLIENTS, 2) for mid, _ in written[j]}
        assert {str(m["id"]) for m in found[i]} <= own_tenant_ids
        assert found[i]  # the search answered with memories of the client's tenant
