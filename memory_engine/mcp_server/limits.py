"""Per-client limits of the MCP http server: sessions per bearer token and tool-call rates.

``ClientLimits`` is an ASGI middleware around the SDK's Starlette app, keyed by the bearer token
(its SHA-256 digest; the token itself is never kept; without a token every client shares one
key). It answers over-limit requests itself with HTTP **429** and a ``Retry-After`` header
(whole seconds); the body is a JSON-RPC error whose ``data`` carries ``retry_after`` and
``limit``, which the SDK client surfaces as an ``MCPError`` the model can read:

* **sessions**: an ``initialize`` request (a JSON-RPC message, or any message of a batch, with
  method ``initialize``; other requests without ``Mcp-Session-Id``, such as the stateless
  ``server/discover`` or tool calls of the SDK's default mode, open nothing and are not counted)
  while the token already holds ``sessions_per_token`` open sessions. A session counts, for the
  token that opened it, from the response that named it until that token's ``DELETE`` of it is
  answered 2xx by the SDK, the SDK answers that token 404 for it (forgotten), or it had no
  request for ``session_idle_s`` (the SDK's idle timeout, the same setting). A ``DELETE`` or 404
  from another token, or without one, or a refused ``DELETE`` (401, 403, ...) frees nothing. ``sessions_per_token`` must be
  below the SDK's global cap ``max_sessions``, so one token can never fill the server.
* **tool calls**: each ``tools/call`` takes a token from the key's bucket of its kind —
  ``write`` (memory_write in every mode, memory_update, memory_delete) or ``read``
  (memory_search, memory_history, and any other tool) — refilled at ``write_rate_per_token``
  and ``read_rate_per_token`` per second, burst two seconds' worth.

Bodies are read whole (they are bounded by the SDK's request-size limit) and replayed to the app
unchanged. A body that is not JSON passes through: the SDK refuses it.
"""

from __future__ import annotations

import hashlib
import json
import math
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from memory_engine.config import Settings
from memory_engine.errors import ConfigError
from memory_engine.write.limits import TokenBuckets

#: Tools whose calls take a token of the ``write`` bucket; every other tool takes a ``read``.
WRITE_TOOLS = frozenset({"memory_write", "memory_update", "memory_delete"})
#: JSON-RPC error code of a refused request (implementation-defined server error range).
RATE_LIMITED_CODE = -32029
#: Bodies larger than this are not inspected (the SDK refuses them first anyway).
MAX_INSPECTED_BYTES = 8 * 1024 * 1024


@dataclass(frozen=True)
class LimitSettings:
    """The limits (see the module doc); from ``Settings.mcp`` by ``from_settings``."""

    max_sessions: int = 10_000
    sessions_per_token: int = 100
    session_idle_s: float = 600.0
    write_rate: float = 10.0
    read_rate: float = 20.0

    @classmethod
    def from_settings(cls, settings: Settings) -> LimitSettings:
        """Raises ConfigError when ``sessions_per_token`` is not below ``max_sessions``."""
        m = settings.mcp
        if m.sessions_per_token >= m.max_sessions and m.max_sessions > 1:
            raise ConfigError(
                f"MEMORY_MCP_SESSIONS_PER_TOKEN ({m.sessions_per_token}) must be below "
                f"MEMORY_MCP_MAX_SESSIONS ({m.max_sessions}), so one token cannot fill the server",
                sessions_per_token=m.sessions_per_token,
                max_sessions=m.max_sessions,
            )
        return cls(
            max_sessions=m.max_sessions,
            sessions_per_token=m.sessions_per_token,
            session_idle_s=m.session_idle_s,
            write_rate=m.write_rate_per_token,
            read_rate=m.read_rate_per_token,
        )


def client_key(scope: Scope) -> str:
    """The limit key of a request: the SHA-256 hex of its bearer token, or ``-`` without one."""
    for name, value in scope.get("headers", ()):
        if name == b"authorization":
            text = value.decode("latin-1")
            if text[:7].lower() == "bearer ":
                return hashlib.sha256(text[7:].strip().encode("utf-8")).hexdigest()
    return "-"


def _header(scope: Scope, wanted: bytes) -> str | None:
    for name, value in scope.get("headers", ()):
        if name == wanted:
            return str(value.decode("latin-1"))
    return None


class SessionTable:
    """Open sessions per key, by last activity (thread-safe; monotonic seconds)."""

    def __init__(self, idle_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self._idle = idle_s
        self._clock = clock
        self._sessions: dict[str, tuple[str, float]] = {}  # session id -> (key, last activity)
        self._lock = threading.Lock()

    def _expire(self, now: float) -> None:
        stale = [sid for sid, (_, last) in self._sessions.items() if now - last >= self._idle]
        for sid in stale:
            del self._sessions[sid]

    def open_count(self, key: str) -> int:
        """Sessions of ``key`` still open."""
        with self._lock:
            self._expire(self._clock())
            return sum(1 for k, _ in self._sessions.values() if k == key)

    def opened(self, session_id: str, key: str) -> None:
        with self._lock:
            self._sessions[session_id] = (key, self._clock())

    def touched(self, session_id: str, key: str) -> None:
        with self._lock:
            if session_id in self._sessions and self._sessions[session_id][0] == key:
                self._sessions[session_id] = (key, self._clock())

    def closed(self, session_id: str, key: str) -> None:
        """Forget ``session_id``, only when ``key`` is the key that opened it."""
        with self._lock:
            entry = self._sessions.get(session_id)
            if entry is not None and entry[0] == key:
                del self._sessions[session_id]


def _tool_names(body: bytes) -> list[str]:
    """Names of the tools a JSON-RPC body calls (a message or a batch); [] if none or not JSON."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return []
    messages = data if isinstance(data, list) else [data]
    names: list[str] = []
    for msg in messages:
        if isinstance(msg, dict) and msg.get("method") == "tools/call":
            params = msg.get("params")
            name = params.get("name") if isinstance(params, dict) else None
            names.append(name if isinstance(name, str) else "")
    return names


def _opens_session(body: bytes) -> bool:
    """Whether a JSON-RPC body (a message or a batch) holds an ``initialize`` request."""
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return False
    messages = data if isinstance(data, list) else [data]
    return any(isinstance(m, dict) and m.get("method") == "initialize" for m in messages)


def _request_id(body: bytes) -> Any:
    try:
        data = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    return data.get("id") if isinstance(data, dict) else None


class ClientLimits:
    """The ASGI middleware (see the module doc).

    Args:
        app: the SDK's streamable HTTP app.
        limits: the limits.
        path: the MCP endpoint (other paths pass through).
        clock: monotonic seconds (tests).
    """

    def __init__(
        self,
        app: ASGIApp,
        limits: LimitSettings,
        *,
        path: str = "/mcp",
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.app = app
        self.limits = limits
        self.path = path
        self.sessions = SessionTable(limits.session_idle_s, clock)
        self._buckets = {
            "write": TokenBuckets(limits.write_rate, burst=2 * limits.write_rate, clock=clock),
            "read": TokenBuckets(limits.read_rate, burst=2 * limits.read_rate, clock=clock),
        }

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("path", "").rstrip("/") != self.path:
            await self.app(scope, receive, send)
            return
        key = client_key(scope)
        session_id = _header(scope, b"mcp-session-id")
        method = scope.get("method", "GET")
        if method == "DELETE" and session_id:
            await self.app(scope, receive, self._watch(send, key, session_id, deleting=True))
            return
        if method != "POST":
            if session_id:
                self.sessions.touched(session_id, key)
            await self.app(scope, receive, send)
            return
        body, more = await _read_body(receive)
        replay = _replayer(body, more, receive)
        if session_id is None and (more or _opens_session(body)):
            if self.sessions.open_count(key) >= self.limits.sessions_per_token:
                await _refuse(
                    send,
                    _request_id(body),
                    self.limits.session_idle_s,
                    f"this token already has {self.limits.sessions_per_token} open sessions; "
                    "close one (DELETE) or wait until one is idle",
                    "sessions_per_token",
                )
                return
        elif session_id is not None:
            self.sessions.touched(session_id, key)
        for name in _tool_names(body) if not more else []:
            kind = "write" if name in WRITE_TOOLS else "read"
            wait = self._buckets[kind].try_take(f"{key}:{kind}")
            if wait > 0:
                rate = self.limits.write_rate if kind == "write" else self.limits.read_rate
                await _refuse(
                    send,
                    _request_id(body),
                    wait,
                    f"rate limit of {rate:g} {kind} tool calls per second reached for this "
                    f"token; retry after {math.ceil(wait)} s",
                    f"{kind}_rate_per_token",
                )
                return
        await self.app(scope, replay, self._watch(send, key, session_id))

    def _watch(
        self, send: Send, key: str, session_id: str | None, *, deleting: bool = False
    ) -> Send:
        """``send`` that records the session a response opens, or the end of ``session_id``
        for ``key``: a 404, or a 2xx answer to its ``DELETE`` (``deleting``)."""

        async def watched(message: Message) -> None:
            if message["type"] == "http.response.start":
                status = int(message.get("status", 0))
                if session_id is None and status < 400:
                    for name, value in message.get("headers", ()):
                        if name.lower() == b"mcp-session-id":
                            self.sessions.opened(value.decode("latin-1"), key)
                elif session_id is not None and (
                    status == 404 or (deleting and 200 <= status < 300)
                ):
                    self.sessions.closed(session_id, key)
            await send(message)

        return watched


async def _read_body(receive: Receive) -> tuple[bytes, bool]:
    """The request body up to ``MAX_INSPECTED_BYTES``; ``more`` when the rest is unread."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), False
        if size > MAX_INSPECTED_BYTES:
            return b"".join(chunks), True


def _replayer(body: bytes, more: bool, receive: Receive) -> Receive:
    """A ``receive`` that hands the app the body read so far, then the rest of the stream."""
    sent = False

    async def replay() -> Message:
        nonlocal sent
        if not sent:
            sent = True
            return {"type": "http.request", "body": body, "more_body": more}
        return await receive()

    return replay


async def _refuse(send: Send, request_id: Any, wait: float, message: str, limit: str) -> None:
    retry = max(1, math.ceil(wait))
    payload = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {
            "code": RATE_LIMITED_CODE,
            "message": message,
            "data": {"error": "rate_limited", "retry_after": retry, "limit": limit},
        },
    }
    body = json.dumps(payload).encode("utf-8")
    await send(
        {
            "type": "http.response.start",
            "status": 429,
            "headers": [
                (b"content-type", b"application/json"),
                (b"retry-after", str(retry).encode("ascii")),
                (b"content-length", str(len(body)).encode("ascii")),
            ],
        }
    )
    await send({"type": "http.response.body", "body": body})
