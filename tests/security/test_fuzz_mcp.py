"""Property tests of the MCP tools (fuzzed inputs, "and MCP tools once they exist").

Every argument of every tool gets random Unicode (lone surrogates, NUL, controls, CJK, emoji),
1,000,001-character strings, odd JSON types (numbers, booleans, null, lists, nested objects),
unknown and tenant-like keys, and ids of another tenant. Each call must end in one of three clean
ways: a normal result; a tool error (``isError``) carrying a typed ``MemoryEngineError`` code and
message; or a JSON-RPC invalid-params error (the argument schema refused it). Never an internal
error, never a Python traceback in what the client sees, never a half-written memory (the rows
of the bound tenant and of the other tenant are snapshotted around every call), and the server
keeps serving.

Two harnesses, both the SDK's real ``Client``:

- in-process (``Client(server, mode="legacy")``: the server's JSON-RPC loop over in-memory
  streams): Python values reach the server as generated, so lone surrogates do too (the SDK's
  own stdio client cannot serialise them);
- the ``memory-engine mcp --transport stdio`` subprocess, written to with raw JSON lines
  (``\\ud800`` escapes, ``\\u0000``, a 1,000,001-character string, odd JSON types), checking
  every stdout line and that the process is alive and serving afterwards.

Derandomized and bounded (``max_examples``) so the module stays well under a minute.
"""

from __future__ import annotations

import json
import logging
import queue
import subprocess
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from anyio.from_thread import start_blocking_portal
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from mcp import Client
from mcp.shared.exceptions import MCPError

from memory_engine import MemoryEngine, MemoryFilter, MemoryStatus, Scope
from memory_engine.errors import MemoryEngineError, _all_subclasses
from memory_engine.mcp_server.binding import Binding
from memory_engine.mcp_server.server import EngineHolder, build_server
from memory_engine.mcp_server.tools import TOOLS, input_schema
from tests.conftest import new_tenant_id
from tests.mcp_server.conftest import mcp_db_url, server_cmd, server_env  # noqa: F401

FUZZ = settings(
    max_examples=30,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
HUGE = "忆" * 1_000_001
#: Codes a tool error may carry: every typed engine error (and nothing else).
TYPED_CODES = {cls.code for cls in _all_subclasses(MemoryEngineError)} | {MemoryEngineError.code}
TRACEBACK_MARKS = ("Traceback (most recent call last)", 'File "', "Error:\n")

any_text = st.text(alphabet=st.characters(codec=None, categories=None), max_size=200)
json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    any_text,
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(any_text, inner, max_size=3)
    ),
    max_leaves=8,
)
odd_keys = st.sampled_from(["tenant_id", "tenant", "user_id", "scope", "", "\x00", "\ud800"])


class Harness:
    """An engine with seeded rows in tenant ``mine`` (and ``other``), and an SDK client
    connected to the MCP server bound to ``mine`` (set by the fixture)."""

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine
        self.portal: Any = None
        self.client: Any = None
        self.mine = Scope.of(new_tenant_id("fzm"))
        self.other = Scope.of(new_tenant_id("fzm-other"))
        self.ids = [
            str(o.memory_id)
            for text in ("Alice is allergic to peanuts", "我对花生过敏", "Bob drinks tea")
            for o in engine.write(self.mine, text).outcomes
        ]
        self.foreign_ids = [
            str(engine.write(self.other, "Heron vault code 苍鹭 5521").outcomes[0].memory_id)
        ]

    def snapshot(self, scope: Scope) -> dict[str, tuple[int, str, str]]:
        page = self.engine.list(scope, filters=MemoryFilter(statuses=tuple(MemoryStatus)))
        assert not page.truncated
        return {str(m.id): (m.version, m.status.value, m.content) for m in page.items}

    def call(self, name: Any, arguments: Any) -> types.CallToolResult | MCPError | None:
        """``tools/call`` through the SDK session (arguments sent as they are, valid or not)."""
        request = types.Request[Any, str](
            method="tools/call", params={"name": name, "arguments": arguments}
        )
        try:
            return self.portal.call(self.client.session.send_request, request, types.CallToolResult)
        except MCPError as exc:
            return exc
        except UnicodeEncodeError:
            # The SDK client cannot serialise a lone surrogate: nothing was sent (such strings
            # reach the server as JSON escapes in test_stdio_server_survives_raw_hostile_json).
            assert _has_surrogate(arguments) or _has_surrogate(name)
            return None


def _has_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        return any(0xD800 <= ord(ch) <= 0xDFFF for ch in value)
    if isinstance(value, dict):
        return any(_has_surrogate(k) or _has_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_surrogate(v) for v in value)
    return False


@pytest.fixture(scope="module")
def harness(pg_settings_factory: Callable[..., Any]) -> Iterator[Harness]:
    engine = MemoryEngine(pg_settings_factory())
    h = Harness(engine)
    server = build_server(EngineHolder(lambda: engine), binding=Binding(h.mine.tenant_id))
    with start_blocking_portal() as portal:
        client = Client(server, mode="legacy", read_timeout_seconds=60)
        with portal.wrap_async_context_manager(client) as connected:
            h.portal, h.client = portal, connected
            yield h
    engine.close()


def _texts(result: types.CallToolResult) -> str:
    parts = [c.text for c in result.content if isinstance(c, types.TextContent)]
    return "\n".join(parts) + json.dumps(result.structured_content, default=str)


def _assert_clean(h: Harness, tool: str, args: Any, outcome: Any, before: Any, other: Any) -> None:
    """The outcome is clean and the rows changed only as a successful call of ``tool`` may."""
    after = h.snapshot(h.mine)
    assert h.snapshot(h.other) == other, "the other tenant's rows changed"
    if outcome is None:  # not sendable by the client (lone surrogate): nothing may change
        assert after == before
        return
    if isinstance(outcome, MCPError):
        assert outcome.error.code == types.INVALID_PARAMS, outcome.error
        assert after == before
        return
    text = _texts(outcome)
    assert not any(mark in text for mark in TRACEBACK_MARKS), text[:500]
    if outcome.is_error:
        payload = outcome.structured_content or {}
        assert payload.get("error") in TYPED_CODES, payload
        assert isinstance(payload.get("message"), str) and payload["message"]
        assert after == before, "a refused call changed rows"
        return
    data = outcome.structured_content or {}
    if tool == "memory_write":
        added = set(after) - set(before)
        assert len(added) == data["created"] and set(before) <= set(after)
        assert all(after[i] == before[i] for i in before)
        for i in added:
            assert "\x00" not in after[i][2] and after[i][2].strip()
            after[i][2].encode("utf-8")
    elif tool in ("memory_update", "memory_delete"):
        changed = {i for i in before if after.get(i) != before[i]}
        assert set(after) == set(before) and changed <= {str(args["memory_id"])}
    else:  # search and history: no row added or removed (a search may restore an archived one)
        assert set(after) == set(before)


def _valid_base(tool: str, h: Harness, data: st.DataObject) -> dict[str, Any]:
    ids = st.sampled_from(h.ids + h.foreign_ids)
    return {
        "memory_write": lambda: {"content": data.draw(any_text)},
        "memory_search": lambda: {"query": data.draw(any_text)},
        "memory_update": lambda: {"memory_id": data.draw(ids), "content": data.draw(any_text)},
        "memory_delete": lambda: {"memory_id": data.draw(ids)},
        "memory_history": lambda: {"memory_id": data.draw(ids)},
    }[tool]()


@FUZZ
@given(data=st.data())
@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_every_tool_answers_cleanly_to_any_arguments(
    harness: Harness, tool: str, data: st.DataObject, caplog: pytest.LogCaptureFixture
) -> None:
    h = harness
    fields = list(input_schema(TOOLS[tool])["properties"])
    mode = data.draw(st.sampled_from(["mutate", "random", "not_an_object"]))
    args: Any
    if mode == "mutate":  # a valid call with one argument replaced by anything
        args = _valid_base(tool, h, data)
        key = data.draw(st.one_of(st.sampled_from(fields), odd_keys))
        args[key] = data.draw(st.one_of(json_values, st.sampled_from(h.foreign_ids)))
    elif mode == "random":
        args = data.draw(
            st.dictionaries(st.one_of(st.sampled_from(fields), odd_keys), json_values, max_size=5)
        )
    else:
        args = data.draw(json_values.filter(lambda v: not isinstance(v, dict)))
    before, other = h.snapshot(h.mine), h.snapshot(h.other)
    with caplog.at_level(logging.ERROR):
        outcome = h.call(tool, args)
    _assert_clean(h, tool, args, outcome, before, other)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR], caplog.text[-1000:]


@pytest.mark.parametrize("tool", sorted(TOOLS))
def test_huge_lone_surrogate_and_nul_in_every_argument(harness: Harness, tool: str) -> None:
    h = harness
    for field in input_schema(TOOLS[tool])["properties"]:
        for value in (HUGE, "\ud800 孤立代理 \udfff", "a\x00b", "\x00", 10**30, None, [], {}):
            args = _valid_base_fixed(tool, h)
            args[field] = value
            before, other = h.snapshot(h.mine), h.snapshot(h.other)
            _assert_clean(h, tool, args, h.call(tool, args), before, other)


def _valid_base_fixed(tool: str, h: Harness) -> dict[str, Any]:
    return {
        "memory_write": {"content": "Carol likes jasmine tea"},
        "memory_search": {"query": "tea"},
        "memory_update": {"memory_id": h.ids[2], "content": "Bob drinks green tea"},
        "memory_delete": {"memory_id": h.foreign_ids[0]},
        "memory_history": {"memory_id": h.ids[0]},
    }[tool]


def test_another_tenants_ids_are_not_found_through_every_tool(harness: Harness) -> None:
    h = harness
    other_before = h.snapshot(h.other)
    for tool, args in (
        ("memory_update", {"memory_id": h.foreign_ids[0], "content": "pwned"}),
        (
            "memory_update",
            {"memory_id": h.foreign_ids[0], "importance": 0.1, "expected_version": 1},
        ),
        ("memory_delete", {"memory_id": h.foreign_ids[0]}),
        ("memory_history", {"memory_id": h.foreign_ids[0]}),
    ):
        outcome = h.call(tool, args)
        assert isinstance(outcome, types.CallToolResult) and outcome.is_error
        assert (outcome.structured_content or {})["error"] == "not_found"
    found = h.call("memory_search", {"query": "Heron vault code 苍鹭", "k": 50})
    assert isinstance(found, types.CallToolResult) and not found.is_error
    assert "Heron" not in _texts(found)
    assert h.snapshot(h.other) == other_before
    # the server still serves a normal call
    ok = h.call("memory_search", {"query": "peanuts"})
    assert isinstance(ok, types.CallToolResult) and not ok.is_error


# ------------------------------------------------------------------ the stdio wire
def _line(i: int, name: Any, arguments: Any) -> bytes:
    params = {"name": name, "arguments": arguments}
    msg = {"jsonrpc": "2.0", "id": i, "method": "tools/call", "params": params}
    return json.dumps(msg).encode("ascii") + b"\n"  # lone surrogates travel as \\udXXX escapes


def test_stdio_server_survives_raw_hostile_json(
    mcp_db_url: str,  # noqa: F811
    tmp_path: Path,
) -> None:
    tenant = new_tenant_id("fzw")
    hostile: list[tuple[str, Any]] = [
        ("memory_write", {"content": "\ud800 lone surrogate 孤立代理"}),
        ("memory_write", {"content": "\x00\x00"}),
        ("memory_write", {"content": "tea\x00 with NUL 含空字符"}),
        ("memory_write", {"content": HUGE}),
        ("memory_search", {"query": HUGE}),
        ("memory_search", {"query": "\udfff\ud800"}),
        ("memory_search", {"query": {"nested": [1, None, {"x": True}]}}),
        ("memory_search", {"query": "x", "k": 1e308}),
        ("memory_search", {"query": "x", "k": None}),
        ("memory_update", {"memory_id": ["a"], "content": "x"}),
        ("memory_update", {"memory_id": str(uuid.uuid4()), "content": "x"}),
        ("memory_delete", {"memory_id": "\ud800"}),
        ("memory_history", {"memory_id": 12345678901234567890}),
        ("memory_history", {"memory_id": "../../etc/passwd"}),
        ("\ud800", {}),
        ("memory_search", [None, {"query": "x"}]),
        ("memory_search", 3.5),
    ]
    init = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-11-25",
            "capabilities": {},
            "clientInfo": {"name": "fuzz", "version": "0"},
        },
    }
    lines = [json.dumps(init).encode() + b"\n"]
    lines.append(json.dumps({"jsonrpc": "2.0", "method": "notifications/initialized"}).encode())
    lines[-1] += b"\n"
    lines += [_line(i, name, args) for i, (name, args) in enumerate(hostile, start=1)]
    last = len(hostile) + 1
    # Lines pydantic's JSON parser refuses (a lone surrogate escape is not Unicode) are answered
    # with a JSON-RPC parse error carrying their id (mcp_server/invalid_lines.py), and the
    # server keeps serving.
    unparsable = {
        i for i, (name, args) in enumerate(hostile, start=1) if _has_surrogate([name, args])
    }
    err_path = tmp_path / "stderr.log"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            server_cmd("stdio", "--tenant", tenant),
            env=server_env(mcp_db_url),
            cwd=tmp_path,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=err,
        )
    assert proc.stdin is not None and proc.stdout is not None
    replies: queue.Queue[bytes] = queue.Queue()
    raw: list[bytes] = []

    def pump() -> None:
        assert proc.stdout is not None
        for out in proc.stdout:
            raw.append(out)
            replies.put(out)

    threading.Thread(target=pump, daemon=True).start()
    responses: dict[int, dict[str, Any]] = {}

    def wait_for(ids: set[int]) -> None:
        deadline = time.monotonic() + 120
        while not ids <= set(responses) and time.monotonic() < deadline:
            try:
                msg = json.loads(replies.get(timeout=1))
            except queue.Empty:
                assert proc.poll() is None, err_path.read_text()[-2000:]
                continue
            if isinstance(msg.get("id"), int):
                responses[msg["id"]] = msg

    try:
        for data in lines:
            proc.stdin.write(data)
            proc.stdin.flush()
        wait_for(set(range(last)))
        assert proc.poll() is None, "the server died"
        proc.stdin.write(_line(last, "memory_search", {"query": "tea"}))
        proc.stdin.flush()
        wait_for({last})
    finally:
        proc.stdin.close()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    assert set(range(last + 1)) <= set(responses), err_path.read_text()[-2000:]
    for out in raw:
        msg = json.loads(out)
        assert msg["jsonrpc"] == "2.0" and ("result" in msg or "error" in msg or "method" in msg)
        assert not any(mark in out.decode() for mark in TRACEBACK_MARKS[:2])
    for i in sorted(set(responses) - {0}):
        reply = responses[i]
        if i in unparsable:
            assert reply["error"]["code"] == types.PARSE_ERROR, reply
        elif "error" in reply:
            assert reply["error"]["code"] == types.INVALID_PARAMS, reply
        elif reply["result"].get("isError"):
            assert reply["result"]["structuredContent"]["error"] in TYPED_CODES, reply
    assert "result" in responses[last] and not responses[last]["result"].get("isError")
    # the NUL-containing write was stored cleaned (or refused); nothing holds a NUL or surrogate
    engine = MemoryEngine(_settings(mcp_db_url))
    try:
        rows = engine.list(Scope.of(tenant), filters=MemoryFilter(statuses=tuple(MemoryStatus)))
        for m in rows.items:
            assert "\x00" not in m.content
            m.content.encode("utf-8")
    finally:
        engine.close()


def _settings(db_url: str) -> Any:
    from pydantic import SecretStr

    from memory_engine.config import Settings

    return Settings(_env_file=None, store="postgres", database_url=SecretStr(db_url))  # type: ignore[call-arg]
