"""``memory_write``'s ``session_id`` + ``turn``: an agent's conversation turns are linked by
their explicit structure, tickets written in one session are not (numbers in references are
never turns). Starts like a user: the stdio server on an empty ``MEMORY_DATA_DIR``, the real MCP
SDK client; then the fast schema checks."""

from __future__ import annotations

import pytest
from mcp import Client

from memory_engine.mcp_server.tools import TOOLS, ToolArgumentError, input_schema, parse_arguments
from tests.mcp_server.helpers import structured
from tests.mcp_server.test_mcp_fresh_data_dir import _run_in_an_empty_data_dir

QUERY = "When is the database password rotation?"


def test_tickets_in_a_session_lift_nothing_and_turns_do() -> None:
    async def session(client: Client) -> None:
        for ref, text in (
            ("JIRA-101", "The database password rotation is scheduled for Friday at 02:00"),
            ("JIRA-102", "Team lunch is on Thursday at the Italian place downtown"),
            ("JIRA-103", "Office plants need watering every Monday morning"),
            ("OPS-7", "Rotating the database password requires restarting the API workers"),
            ("OPS-9", "Priya is on call during the database password rotation window"),
        ):
            args = {
                "content": text,
                "tags": [ref],
                "session_id": "standup",
                "memory_type": "episodic",
            }
            assert structured(await client.call_tool("memory_write", args))["created"] == 1
        found = structured(
            await client.call_tool(
                "memory_search", {"query": QUERY, "k": 5, "session_id": "standup"}
            )
        )
        contents = [m["content"] for m in found["memories"]]
        assert contents[0].startswith("The database password rotation")
        assert not any("Team lunch" in c or "Office plants" in c for c in contents[:3]), contents
        for m in found["memories"]:  # nothing lifted by a "neighbouring" ticket
            assert m["scores"].get("session", m["scores"]["fused"]) == pytest.approx(
                m["scores"]["fused"]
            )
        for turn, text in (
            (0, "Which port does the staging API listen on?"),
            (1, "It listens on port 8443"),
        ):
            args = {
                "content": text,
                "session_id": "chat-1",
                "turn": turn,
                "memory_type": "episodic",
            }
            assert structured(await client.call_tool("memory_write", args))["created"] == 1
        asked = structured(
            await client.call_tool(
                "memory_search", {"query": "which port does the staging API listen on", "k": 3}
            )
        )
        answer = next(m for m in asked["memories"] if "8443" in m["content"])
        assert answer["scores"]["session"] > answer["scores"]["fused"]  # lifted by turn 0
        refused = await client.call_tool("memory_write", {"content": "lonely turn", "turn": 2})
        assert refused.is_error and refused.structured_content
        assert refused.structured_content["error"] == "invalid_input"
        assert "session" in refused.structured_content["message"]

    _run_in_an_empty_data_dir(session)


def test_turn_schema() -> None:
    write = TOOLS["memory_write"]
    prop = input_schema(write)["properties"]["turn"]
    assert prop["anyOf"][0]["type"] == "integer" and prop["anyOf"][0]["minimum"] == 0
    args = parse_arguments(write, {"content": "x", "session_id": "s", "turn": 3})
    assert args.turn == 3  # type: ignore[attr-defined]
    for bad in (-1, "3", 1.5, True):
        with pytest.raises(ToolArgumentError):
            parse_arguments(write, {"content": "x", "session_id": "s", "turn": bad})
