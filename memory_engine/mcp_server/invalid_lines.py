"""Answer the stdio lines the MCP SDK cannot decode, instead of leaving the client waiting.

The SDK's stdio transport hands an undecodable line to the server as an ``Exception``, which
the server only logs: a client that sent a request (it has an ``id``) then waits for a reply
that never comes. A JSON string holding a lone UTF-16 surrogate escape (``"\\ud800"``, not a
character) is such a line: Python's ``json`` reads it, pydantic's JSON parser refuses it.

:func:`answer_invalid_lines` sits between the transport and the server: for each such line it
sends a JSON-RPC error (``-32700`` parse error, or ``-32600`` invalid request for valid JSON
that is not a JSON-RPC message) with the request's ``id`` when the line still reveals one
(``null`` otherwise, as JSON-RPC 2.0 says), and forwards everything else unchanged.
"""

from __future__ import annotations

import json
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
import mcp_types as types
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.message import SessionMessage
from pydantic import ValidationError

log = logging.getLogger(__name__)

_PREVIEW = 200  # characters of an invalid line kept in the log


def _line_of(exc: ValidationError) -> str | None:
    """The raw line the SDK failed to decode as JSON (pydantic keeps it as the input)."""
    for error in exc.errors(include_url=False):
        raw = error.get("input")
        if isinstance(raw, bytes):
            return raw.decode("utf-8", "replace")
        if isinstance(raw, str):
            return raw
    return None


def _message_of(exc: ValidationError) -> Any:
    """The line as Python's lenient ``json`` reads it (lone surrogate escapes included), the
    decoded object pydantic refused (valid JSON, not a JSON-RPC message), or ``None``."""
    line = _line_of(exc)
    if line is not None:
        try:
            return json.loads(line)
        except ValueError:
            return None
    for error in exc.errors(include_url=False):
        if isinstance(error.get("input"), dict):
            return error["input"]
    return None


def invalid_line_reply(exc: Exception) -> types.JSONRPCError | None:
    """The JSON-RPC error answering the line ``exc`` was raised for, or ``None``.

    ``None`` for a line that was a notification or a response (JSON-RPC answers neither) and
    for an exception that is not a decoding failure (the server's own handling applies).
    """
    if not isinstance(exc, ValidationError):
        return None
    parsed = _message_of(exc)
    request_id: Any = None
    if isinstance(parsed, dict):
        if "method" not in parsed or "id" not in parsed:
            return None  # a notification or a response: nothing to answer
        raw_id = parsed["id"]
        if isinstance(raw_id, str | int) and not isinstance(raw_id, bool):
            request_id = raw_id
    json_invalid = any(e.get("type") == "json_invalid" for e in exc.errors(include_url=False))
    if json_invalid:
        detail = exc.errors(include_url=False)[0].get("msg", "invalid JSON")
        if parsed is not None:
            detail += " (a lone UTF-16 surrogate escape such as \\ud800 is not a character)"
        code, message = types.PARSE_ERROR, f"Parse error: {detail}"
    else:
        code, message = types.INVALID_REQUEST, "Invalid request: not a JSON-RPC 2.0 message"
    if isinstance(request_id, str):
        request_id = request_id.encode("utf-8", "replace").decode("utf-8")
    return types.JSONRPCError(
        jsonrpc="2.0", id=request_id, error=types.ErrorData(code=code, message=message)
    )


@asynccontextmanager
async def answer_invalid_lines(
    read_stream: ReadStream[SessionMessage | Exception],
    write_stream: WriteStream[SessionMessage],
) -> AsyncIterator[
    tuple[anyio.abc.ObjectReceiveStream[SessionMessage | Exception], WriteStream[SessionMessage]]
]:
    """The transport's streams, with undecodable request lines answered (module docstring)."""
    send, receive = anyio.create_memory_object_stream[SessionMessage | Exception](0)

    async def pump() -> None:
        async with send:
            async for item in read_stream:
                reply = invalid_line_reply(item) if isinstance(item, Exception) else None
                if reply is None:
                    await send.send(item)
                    continue
                preview = (
                    (_line_of(item) or "")[:_PREVIEW] if isinstance(item, ValidationError) else ""
                )
                log.warning("answered an undecodable line with %s: %r", reply.error.code, preview)
                await write_stream.send(SessionMessage(reply))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(pump)
        try:
            yield receive, write_stream
        finally:
            tasks.cancel_scope.cancel()
