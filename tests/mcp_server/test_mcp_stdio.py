"""MCP over stdio with the SDK's own client: the five tools, docs/architecture.md#f12-mcp, tenant binding."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp.shared.exceptions import MCPError

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from tests.conftest import new_tenant_id
from tests.mcp_server.helpers import raw_call, stdio_client, structured, text_of

MALFORMED: list[tuple[str, Any]] = [
    ("arguments as a string", {"name": "memory_search", "arguments": '{"query": "x"}'}),
    ("arguments null", {"name": "memory_search", "arguments": None}),
    ("arguments missing", {"name": "memory_search"}),
    ("arguments an array", {"name": "memory_search", "arguments": ["query", "x"]}),
    ("unknown key", {"name": "memory_search", "arguments": {"query": "x", "limit": 3}}),
    ("tenant key", {"name": "memory_search", "arguments": {"query": "x", "tenant_id": "other"}}),
    ("wrong type", {"name": "memory_search", "arguments": {"query": 42}}),
    ("string for int", {"name": "memory_search", "arguments": {"query": "x", "k": "5"}}),
    ("out of range", {"name": "memory_search", "arguments": {"query": "x", "k": 10_000}}),
    ("missing required", {"name": "memory_write", "arguments": {"importance": 0.3}}),
    ("unknown tool", {"name": "memory_drop_all", "arguments": {}}),
    ("name not a string", {"name": 7, "arguments": {}}),
]
#: Calls whose arguments break the tool's schema: an ``isError`` result (``invalid_input``)
#: the model can read and correct (MCP 2025-11-25); the others stay JSON-RPC invalid params.
SCHEMA_ERRORS = {
    "arguments null",
    "arguments missing",
    "unknown key",
    "tenant key",
    "wrong type",
    "string for int",
    "out of range",
    "missing required",
}


async def assert_refused(client: Any, label: str, params: Any, protocol_codes: set[int]) -> None:
    """``params`` is refused: a tool error for a schema error, else a JSON-RPC error."""
    if label in SCHEMA_ERRORS:
        result = await raw_call(client, params)
        assert result.is_error and result.structured_content, label
        assert result.structured_content["error"] == "invalid_input", label
        assert result.structured_content["details"]["errors"], label
        assert "invalid arguments" in text_of(result), label
        return
    with pytest.raises(MCPError) as info:
        await raw_call(client, params)
    assert info.value.code in protocol_codes, (label, info.value)


def test_stdio_tools_write_search_update_delete_history(mcp_db_url: str, tmp_path: Path) -> None:
    tenant = new_tenant_id("mcp")

    async def main() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(mcp_db_url, tenant, errlog, tmp_path) as client:
                tools = (await client.list_tools()).tools
                assert sorted(t.name for t in tools) == sorted(
                    [
                        "memory_write",
                        "memory_search",
                        "memory_update",
                        "memory_delete",
                        "memory_history",
                    ]
                )
                for tool in tools:
                    assert tool.description and len(tool.description) > 60
                    assert tool.input_schema["additionalProperties"] is False
                    props = set(tool.input_schema["properties"])
                    assert not props & {"tenant", "tenant_id", "user_id", "agent_id"}

                w = await client.call_tool(
                    "memory_write", {"content": "Alice is allergic to peanuts", "importance": 0.9}
                )
                data = structured(w)
                assert data["created"] == 1 and "Stored 1 new memory" in text_of(w)
                mid = data["stored"][0]["memory_id"]

                dup = structured(
                    await client.call_tool(
                        "memory_write", {"content": "Alice is allergic to peanuts"}
                    )
                )
                assert dup["created"] == 0 and dup["stored"][0]["status"] == "duplicate"

                zh = structured(await client.call_tool("memory_write", {"content": "我对花生过敏"}))
                assert zh["created"] == 1

                s = await client.call_tool("memory_search", {"query": "peanut allergy", "k": 3})
                found = structured(s)
                assert found["memories"][0]["id"] == mid
                assert "<memory_data>" in found["block"] and text_of(s) == found["block"]
                assert found["trace_id"]
                s_zh = structured(await client.call_tool("memory_search", {"query": "花生"}))
                assert "我对花生过敏" in [m["content"] for m in s_zh["memories"]]

                u = structured(
                    await client.call_tool(
                        "memory_update",
                        {
                            "memory_id": mid,
                            "content": "Alice is severely allergic to peanuts",
                            "expected_version": 1,
                            "reason": "user clarified",
                        },
                    )
                )
                assert u["memory"]["version"] == 2

                stale = await client.call_tool(
                    "memory_update", {"memory_id": mid, "importance": 0.1, "expected_version": 1}
                )
                assert stale.is_error and stale.structured_content
                assert stale.structured_content["error"] == "version_conflict"

                d = structured(await client.call_tool("memory_delete", {"memory_id": mid}))
                assert d["status"] == "deleted"
                after = structured(
                    await client.call_tool("memory_search", {"query": "peanut allergy"})
                )
                assert mid not in [m["id"] for m in after["memories"]]

                h = structured(await client.call_tool("memory_history", {"memory_id": mid}))
                assert [e["action"] for e in h["events"]] == ["create", "update", "delete"]
                assert h["events"][1]["content_after"] == "Alice is severely allergic to peanuts"
                assert h["events"][1]["reason"] == "user clarified"

                missing = await client.call_tool(
                    "memory_history", {"memory_id": "00000000-0000-0000-0000-000000000000"}
                )
                assert missing.is_error and missing.structured_content
                assert missing.structured_content["error"] == "not_found"

    anyio.run(main)


def test_stdio_malformed_calls_are_refused_and_server_keeps_serving(
    mcp_db_url: str, tmp_path: Path
) -> None:
    tenant = new_tenant_id("mcp")

    async def main() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(mcp_db_url, tenant, errlog, tmp_path) as client:
                for label, params in MALFORMED:
                    await assert_refused(client, label, params, {types.INVALID_PARAMS})
                    ok = await client.call_tool("memory_search", {"query": "anything"})
                    assert not ok.is_error, label
                empty = await client.call_tool("memory_write", {"content": "   "})
                assert empty.is_error and empty.structured_content
                assert empty.structured_content["error"] == "empty_content"

    anyio.run(main)


def test_tool_argument_cannot_switch_tenant(mcp_db_url: str, tmp_path: Path) -> None:
    tenant_a, tenant_b = new_tenant_id("a"), new_tenant_id("b")

    async def main() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(mcp_db_url, tenant_a, errlog, tmp_path) as a:
                w = structured(await a.call_tool("memory_write", {"content": "Codename is Falcon"}))
                a_id = w["stored"][0]["memory_id"]
            async with stdio_client(mcp_db_url, tenant_b, errlog, tmp_path) as b:
                for key in ("tenant", "tenant_id", "scope"):
                    r = await b.call_tool("memory_search", {"query": "codename", key: tenant_a})
                    assert r.is_error and r.structured_content, key
                    assert r.structured_content["error"] == "invalid_input", key
                r = await b.call_tool(
                    "memory_write", {"content": "x", "session_id": f"{tenant_a}/../"}
                )
                assert r.is_error and r.structured_content
                assert r.structured_content["error"] == "invalid_input"
                res = structured(await b.call_tool("memory_search", {"query": "Codename Falcon"}))
                assert res["memories"] == []
                for tool, args in (
                    ("memory_history", {"memory_id": a_id}),
                    ("memory_update", {"memory_id": a_id, "importance": 0.1}),
                    ("memory_delete", {"memory_id": a_id}),
                ):
                    r = await b.call_tool(tool, args)
                    assert r.is_error and r.structured_content, tool
                    assert r.structured_content["error"] == "not_found", tool

    anyio.run(main)
    with MemoryEngine(Settings(_env_file=None, database_url=mcp_db_url)) as engine:  # type: ignore[call-arg]
        assert engine.stats(Scope.of(tenant_a)).total == 1
        assert engine.stats(Scope.of(tenant_b)).total == 0


def test_memory_tool_calls_are_never_stored(mcp_db_url: str, tmp_path: Path) -> None:
    tenant = new_tenant_id("mcp")
    calls = [
        'memory_search(query="peanuts")',
        '{"name": "memory_write", "arguments": {"content": "x"}}',
        '{"tool_calls": [{"function": {"name": "memory_delete", "arguments": "{}"}}]}',
        '<tool_call>memory_update {"memory_id": "1"}</tool_call>',
    ]

    async def main() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(mcp_db_url, tenant, errlog, tmp_path) as client:
                for text in calls:
                    r = await client.call_tool("memory_write", {"content": text})
                    assert r.is_error and r.structured_content, text
                    assert r.structured_content["details"]["reason"] == "memory_tool_call"
                for q in ("peanuts", "memory_search"):
                    await client.call_tool("memory_search", {"query": q})
                ok = structured(
                    await client.call_tool(
                        "memory_write", {"content": "The memory_write tool is slow on Mondays"}
                    )
                )
                assert ok["created"] == 1

    anyio.run(main)
    with MemoryEngine(Settings(_env_file=None, database_url=mcp_db_url)) as engine:  # type: ignore[call-arg]
        page = engine.list(Scope.of(tenant))
        assert [m.content for m in page.items] == ["The memory_write tool is slow on Mondays"]
