"""Unit tests of the MCP tenant binding (token map) and the memory-tool-call guard."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import anyio
import pytest
from pydantic import SecretStr

from memory_engine.config import Settings
from memory_engine.errors import ConfigError, InvalidInputError
from memory_engine.mcp_server.binding import (
    Binding,
    TokenMap,
    TokenMapVerifier,
    binding_from_claims,
    settings_binding,
)
from memory_engine.mcp_server.tools import TOOLS, ToolArgumentError, input_schema, parse_arguments
from memory_engine.write.tool_calls import is_memory_tool_call, refuse_memory_tool_call


def _settings(**kw: object) -> Settings:
    return Settings(_env_file=None, **kw)  # type: ignore[arg-type]


TOK_A, TOK_B, TOK_X = "tok-a-" + "a" * 26, "tok-b-" + "b" * 26, "tok-x-" + "x" * 10  # 32, 32, 16


def test_token_map_plain_and_hashed_keys(tmp_path: Path) -> None:
    hashed = "sha256:" + hashlib.sha256(TOK_B.encode()).hexdigest()
    path = tmp_path / "tokens.json"
    path.write_text(
        json.dumps({TOK_A: {"tenant": "acme", "user_id": "alice"}, hashed: {"tenant": "globex"}})
    )
    tokens = TokenMap.from_settings(_settings(mcp_tokens_file=path))
    assert tokens is not None and len(tokens) == 2
    assert tokens.lookup(TOK_A) == Binding("acme", "alice")
    assert tokens.lookup(TOK_B) == Binding("globex")
    assert tokens.lookup("tok-c") is None
    assert tokens.lookup(hashed) is None  # the digest itself is not a token
    inline = json.dumps({TOK_X: {"tenant": "t1"}})  # exactly the minimum length
    parsed = TokenMap.from_settings(_settings(mcp_tokens=SecretStr(inline)))
    assert parsed is not None and parsed.lookup(TOK_X) == Binding("t1")
    assert TokenMap.from_settings(_settings()) is None


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        "{}",
        '{"tok": "acme"}',
        '{"tok": {"tenant": "bad tenant!"}}',
        '{"tok": {"tenant": "acme", "role": "admin"}}',
    ],
)
def test_token_map_rejects_bad_files(text: str) -> None:
    with pytest.raises(ConfigError) as info:
        TokenMap.parse(text, where="MEMORY_MCP_TOKENS")
    assert "tok" not in info.value.message.replace("token", "")  # never echoes a token


def test_verifier_carries_binding_in_claims() -> None:
    verifier = TokenMapVerifier(TokenMap({"secret": Binding("acme", None, "planner")}))
    access = anyio.run(verifier.verify_token, "secret")
    assert access is not None and access.token != "secret"
    assert binding_from_claims(access.claims) == Binding("acme", None, "planner")
    assert anyio.run(verifier.verify_token, "other") is None


def test_settings_binding() -> None:
    assert settings_binding(_settings()) is None
    b = settings_binding(_settings(mcp_tenant="acme", mcp_user_id="u1"))
    assert b == Binding("acme", "u1", None)
    assert b.scope("s-1").session_id == "s-1"
    with pytest.raises(ConfigError):
        settings_binding(_settings(mcp_tenant="no spaces allowed"))


def test_tool_schemas_are_strict_and_tenant_free() -> None:
    for spec in TOOLS.values():
        schema = input_schema(spec)
        assert schema["type"] == "object" and schema["additionalProperties"] is False
        assert not set(schema["properties"]) & {"tenant", "tenant_id", "user_id", "agent_id"}
    search = TOOLS["memory_search"]
    assert parse_arguments(search, {"query": "x"}).k == 5  # type: ignore[attr-defined]
    for bad in (
        "x",
        None,
        [],
        {"query": "x", "tenant_id": "t"},
        {"query": 1},
        {"query": "x", "k": 1.0},
    ):
        with pytest.raises(ToolArgumentError):
            parse_arguments(search, bad)
    write = TOOLS["memory_write"]
    args = parse_arguments(write, {"content": "x", "observed_at": "2023-05-24T10:00:00+00:00"})
    assert args.observed_at is not None  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "tool", "expected"),
    [
        ('memory_search(query="x")', None, True),
        ('  memory_write {"content": "a"}', None, True),
        ('{"name": "memory_delete", "arguments": {}}', None, True),
        ('{"type": "tool_use", "name": "memory_update", "input": {}}', None, True),
        ('{"tool_calls": [{"function": {"name": "memory_history"}}]}', None, True),
        ("<tool_call>memory_search</tool_call>", None, True),
        ("42 results", "memory_search", True),
        ("42 results", "mcp.memory_write", True),
        ("The memory_write tool is slow", None, False),
        ("我对花生过敏", None, False),
        ('{"name": "Alice", "likes": "tea"}', None, False),
        ("build log: ok", "bash", False),
    ],
)
def test_memory_tool_call_detection(text: str, tool: str | None, expected: bool) -> None:
    assert is_memory_tool_call(text, tool_name=tool) is expected
    if expected:
        with pytest.raises(InvalidInputError):
            refuse_memory_tool_call(text, tool_name=tool)


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        ({"user": "u1"}, ("acme", "u1", "env-agent")),  # --user narrows MEMORY_MCP_TENANT
        ({"tenant": "globex"}, ("globex", None, None)),  # a new tenant drops the env's ids
        ({"tenant": "globex", "agent": "a1"}, ("globex", None, "a1")),
    ],
)
def test_cli_user_and_agent_narrow_the_env_tenant(
    monkeypatch: pytest.MonkeyPatch, args: dict[str, str], expected: tuple[str, ...]
) -> None:
    import memory_engine.mcp_server as mcp_server
    from memory_engine.cli.mcp import mcp_command

    monkeypatch.setenv("MEMORY_MCP_TENANT", "acme")
    monkeypatch.setenv("MEMORY_MCP_AGENT_ID", "env-agent")
    seen: list[Settings] = []
    monkeypatch.setattr(mcp_server, "run_stdio", seen.append)
    mcp_command(**args)  # type: ignore[arg-type]
    (settings,) = seen
    assert (settings.mcp.tenant, settings.mcp.user_id, settings.mcp.agent_id) == expected
