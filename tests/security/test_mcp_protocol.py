"""MCP protocol details with the real SDK client over streamable HTTP: argument-validation errors
are tool errors the model can read (not JSON-RPC -32602), every change is audited with the
token's id and user (not ``mcp``), every tool declares an ``outputSchema`` its
``structuredContent`` matches (the SDK client validates each result), ``memory_id`` parameters
have ``format: uuid``."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Callable

import anyio
import jsonschema

from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import HttpServer, mcp_db_url, start_http_server  # noqa: F401
from tests.mcp_server.helpers import http_client, structured, text_of


def test_validation_errors_actor_and_output_schemas(
    start_http_server: Callable[..., HttpServer],  # noqa: F811
) -> None:
    token = secrets.token_urlsafe(24)
    server = start_http_server(tokens={token: {"tenant": new_tenant_id("p"), "user_id": "alice"}})
    actor = f"mcp:token-{hashlib.sha256(token.encode()).hexdigest()[:12]}:alice"

    async def main() -> None:
        async with http_client(server.url, token) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            for name, tool in tools.items():
                assert tool.output_schema and tool.output_schema["type"] == "object", name
                jsonschema.Draft202012Validator.check_schema(tool.output_schema)
                memory_id = tool.input_schema["properties"].get("memory_id")
                if memory_id is not None:
                    assert memory_id.get("format") == "uuid", name
            # schema errors: an isError result naming the field, the model can correct it
            for args, field in (
                ({"query": 42}, "query"),
                ({"query": "x", "k": "5"}, "k"),
                ({"query": "x", "limit": 3}, "limit"),
                ({}, "query"),
            ):
                bad = await client.call_tool("memory_search", args)
                assert bad.is_error and bad.structured_content, args
                assert bad.structured_content["error"] == "invalid_input", args
                assert field in text_of(bad), (args, text_of(bad))
            # results validate against the declared output schemas (the SDK checks each one)
            written = structured(
                await client.call_tool("memory_write", {"content": "Gina prefers tea 喜欢茶"})
            )
            mid = written["stored"][0]["memory_id"]
            found = structured(await client.call_tool("memory_search", {"query": "tea"}))
            updated = structured(
                await client.call_tool("memory_update", {"memory_id": mid, "importance": 0.9})
            )
            history = structured(await client.call_tool("memory_history", {"memory_id": mid}))
            deleted = structured(await client.call_tool("memory_delete", {"memory_id": mid}))
            for name, data in (
                ("memory_write", written),
                ("memory_search", found),
                ("memory_update", updated),
                ("memory_history", history),
                ("memory_delete", deleted),
            ):
                jsonschema.validate(data, tools[name].output_schema or {})
            # every change names the token and the user
            history = structured(await client.call_tool("memory_history", {"memory_id": mid}))
            actors = {(e["action"], e["actor"]) for e in history["events"]}
            assert actors == {("create", actor), ("update", actor), ("delete", actor)}, actors
            # a second delete of the deleted memory is a typed tool error
            again = await client.call_tool("memory_delete", {"memory_id": mid})
            assert again.is_error and again.structured_content
            assert again.structured_content["error"] == "memory_deleted"

    anyio.run(main)
