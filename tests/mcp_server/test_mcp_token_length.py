"""MCP over http refuses a guessable bearer token: a plain token shorter than 16 characters (or
a malformed ``sha256:`` key) in the token map stops the server before it listens, with a
ConfigError naming the minimum and how to generate a token; the CLI exits 2 without a
traceback. A token of exactly 16 characters works with the SDK's own client."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import anyio
import pytest
from pydantic import SecretStr

from memory_engine.config import Settings
from memory_engine.errors import ConfigError
from memory_engine.mcp_server.binding import MIN_TOKEN_CHARS, TOKEN_HINT, TokenMap
from memory_engine.mcp_server.server import EngineHolder, build_http_app
from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import HttpServer, server_cmd, server_env
from tests.mcp_server.helpers import http_client, structured

SHORT = "abcde"


def _settings(tokens: dict[str, object]) -> Settings:
    return Settings(_env_file=None, mcp_tokens=SecretStr(json.dumps(tokens)))  # type: ignore[arg-type]


@pytest.mark.parametrize("token", [SHORT, "x" * (MIN_TOKEN_CHARS - 1), "令牌" * 7])
def test_short_token_refused_by_the_http_app(token: str) -> None:
    settings = _settings({"a" * 32: {"tenant": "acme"}, token: {"tenant": "globex"}})
    holder = EngineHolder(lambda: pytest.fail("no engine is built for a refused config"))
    with pytest.raises(ConfigError) as info:
        build_http_app(holder, settings, host="127.0.0.1", port=8765)
    message = info.value.message
    assert f"the minimum is {MIN_TOKEN_CHARS}" in message
    assert f"has {len(token)} characters" in message and "'globex'" in message
    assert TOKEN_HINT in message and "secrets.token_urlsafe(32)" in message
    assert token not in message  # never echoes the token


@pytest.mark.parametrize("key", ["sha256:abc", "sha256:" + "g" * 64, "sha256:" + "a" * 65])
def test_malformed_digest_key_refused(key: str) -> None:
    with pytest.raises(ConfigError, match="not 64 hex digits"):
        TokenMap.parse(json.dumps({key: {"tenant": "acme"}}), where="MEMORY_MCP_TOKENS")


def test_cli_exits_2_on_a_short_token(tmp_path: Path, mcp_db_url: str) -> None:
    path = tmp_path / "tokens.json"
    path.write_text(json.dumps({SHORT: {"tenant": "acme"}}), encoding="utf-8")
    env = server_env(mcp_db_url, MEMORY_MCP_TOKENS_FILE=str(path))
    done = subprocess.run(
        server_cmd("http", "--host", "127.0.0.1", "--port", "0"),
        env=env,
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr and "listening on" not in done.stderr
    assert done.stdout == ""
    (line,) = [ln for ln in done.stderr.splitlines() if ln.startswith("{")]
    error = json.loads(line)
    assert error["error"] == "config_error"
    assert f"the minimum is {MIN_TOKEN_CHARS}" in error["message"]
    assert TOKEN_HINT in error["message"]
    assert SHORT not in line


def test_minimum_length_token_serves(start_http_server: Callable[..., HttpServer]) -> None:
    token = "k" * MIN_TOKEN_CHARS
    tenant = new_tenant_id("tok16")
    server = start_http_server(tokens={token: {"tenant": tenant}})

    async def main() -> None:
        async with http_client(server.url, token) as client:
            structured(await client.call_tool("memory_write", {"content": "Ann likes green tea"}))
            got = structured(await client.call_tool("memory_search", {"query": "green tea"}))
            assert [m["content"] for m in got["memories"]] == ["Ann likes green tea"]

    anyio.run(main)
