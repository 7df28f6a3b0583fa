"""A real, local OpenAI-compatible HTTP server for tests (stdlib only).

Serves ``POST /v1/embeddings`` and ``POST /v1/chat/completions`` on ``127.0.0.1`` at an
ephemeral port from a background thread. Usage::

    with OpenAIStub({"stub-8": 8}) as stub:
        client = openai.OpenAI(base_url=stub.base_url, api_key="x")
        stub.fail_next(2, status=429)        # the next two requests get 429
        stub.chat_reply = '{"ok": true}'      # canned chat completion content
        stub.script_chat("first", "second")   # the next chat requests get these, in order
        stub.reject_response_format("json_schema")  # 400 for structured-output requests
        stub.script_chat(ChatAnswer(content=None, refusal="I can't help with that."))
        stub.limit_output(20)                 # replies over 20 chars: cut, finish_reason length
        stub.context_window(4000)             # prompts over 4000 chars: 400 context length
        stub.require_api_key("sk-right")      # any other bearer key: 401

Embeddings are deterministic: every word of the input (``\\w+``, lowercased) is hashed into
one of ``dim`` buckets with a sign (+1/-1), summed, then L2-normalised. Texts that share words
therefore have a high cosine; a text without words gets one bucket from its whole hash.
"""

from __future__ import annotations

import base64
import hashlib
import json
import math
import re
import struct
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

__all__ = ["ChatAnswer", "OpenAIStub", "RecordedRequest", "stub_vector"]

_WORD_RE = re.compile(r"\w+")


@dataclass(frozen=True)
class ChatAnswer:
    """One chat completion as an endpoint may send it.

    Attributes:
        content: ``message.content`` (None = JSON null, as with a refusal).
        refusal: ``message.refusal`` (OpenAI structured-output refusals).
        finish_reason: ``stop``, ``length``, ...
        reasoning_content: a separate reasoning field (DeepSeek-R1, Qwen3, vLLM reasoning
            parsers); clients must ignore it.
    """

    content: str | None
    refusal: str | None = None
    finish_reason: str = "stop"
    reasoning_content: str | None = None


ChatReply = str | ChatAnswer | Callable[[dict[str, Any]], "str | ChatAnswer"]


def stub_vector(text: str, dim: int) -> list[float]:
    """The stub's unit vector of ``text`` (length ``dim``); same input, same output."""
    vec = [0.0] * dim
    words = _WORD_RE.findall(text.lower()) or [text]
    for word in words:
        digest = hashlib.sha256(word.encode("utf-8")).digest()
        bucket = int.from_bytes(digest[:4], "big") % dim
        vec[bucket] += 1.0 if digest[4] & 1 else -1.0
    norm = math.sqrt(sum(x * x for x in vec))
    if norm == 0.0:  # all words cancelled out: fall back to one bucket of the whole text
        digest = hashlib.sha256(text.encode("utf-8")).digest()
        vec[int.from_bytes(digest[:4], "big") % dim] = 1.0
        norm = 1.0
    return [x / norm for x in vec]


@dataclass(frozen=True)
class RecordedRequest:
    """One request the stub received (header names lowercased)."""

    path: str
    body: dict[str, Any]
    status: int
    headers: dict[str, str]


@dataclass
class _Failure:
    status: int
    retry_after: float | None
    path: str | None
    message: str | None = None
    code: str | None = None
    param: str | None = None


class OpenAIStub:
    """OpenAI-compatible test server.

    Attributes:
        dims: model name -> embedding dimension; unknown models get 404 ``model_not_found``.
        chat_reply: content of every chat completion: a string, a ``ChatAnswer``, or a
            function of the request body returning either.
        requests: every request received, in arrival order (thread-safe append).
        chat_usage: ``(prompt_tokens, completion_tokens)`` of every chat completion answered
            with a 200, in order (what the ``usage`` field said).
    """

    def __init__(
        self,
        dims: Mapping[str, int] | None = None,
        *,
        chat_reply: ChatReply = "ok",
        latency: float = 0.0,
    ) -> None:
        """Configure (not start) the server.

        Args:
            dims: model name -> dimension; default ``{"stub-8": 8, "stub-12": 12}``.
            chat_reply: the canned chat completion content.
            latency: seconds each request sleeps before answering (for timeout tests).
        """
        self.dims: dict[str, int] = dict(dims or {"stub-8": 8, "stub-12": 12})
        self.chat_reply: ChatReply = chat_reply
        self.latency = latency
        self.requests: list[RecordedRequest] = []
        self._failures: list[_Failure] = []
        self._script: list[ChatReply] = []
        self.rejected_formats: set[str] = set()
        self.output_limit: int | None = None
        self.honour_max_tokens = True
        self.context_chars: int | None = None
        self.api_key: str | None = None
        self.chat_usage: list[tuple[int, int]] = []
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> OpenAIStub:
        """Bind 127.0.0.1 on a free port and serve from a daemon thread."""
        if self._server is not None:
            return self
        stub = self

        class Handler(_Handler):
            owner = stub

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        self._server = server
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving and close the socket."""
        if self._server is None:
            return
        self._server.shutdown()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._server = None
        self._thread = None

    def __enter__(self) -> OpenAIStub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # ------------------------------------------------------------------ control

    @property
    def port(self) -> int:
        """The bound TCP port (server must be started)."""
        if self._server is None:
            raise RuntimeError("stub not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:<port>/v1``, the value for ``base_url`` of an OpenAI client."""
        return f"http://127.0.0.1:{self.port}/v1"

    def fail_next(
        self,
        n: int,
        *,
        status: int = 500,
        retry_after: float | None = None,
        path: str | None = None,
        message: str | None = None,
        code: str | None = None,
        param: str | None = None,
    ) -> None:
        """Make the next ``n`` requests (to ``path`` if given, e.g. "/v1/embeddings") fail.

        Args:
            n: number of failing requests.
            status: HTTP status to answer (e.g. 400, 403, 429, 500, 503).
            retry_after: value of a ``Retry-After`` header, in seconds, if any.
            path: only requests to this path fail; None = any path.
            message, code, param: the OpenAI error body's fields (default: a generic
                ``stub failure <status>``).
        """
        with self._lock:
            self._failures.extend(
                _Failure(status, retry_after, path, message, code, param) for _ in range(n)
            )

    def limit_output(self, chars: int | None, *, honour_max_tokens: bool = True) -> None:
        """Cut chat replies longer than ``chars`` characters to that length and answer
        ``finish_reason: "length"``, like a model hitting its output limit. With
        ``honour_max_tokens`` a request's ``max_tokens`` replaces the limit (one stub token
        = one character); None removes the limit."""
        self.output_limit = chars
        self.honour_max_tokens = honour_max_tokens

    def context_window(self, chars: int | None) -> None:
        """Answer chat requests whose messages hold more than ``chars`` characters with
        HTTP 400 ``context_length_exceeded`` (OpenAI's wording); None removes the limit."""
        self.context_chars = chars

    def require_api_key(self, key: str | None) -> None:
        """Answer HTTP 401 ``invalid_api_key`` to requests without ``Bearer <key>``."""
        self.api_key = key

    def script_chat(self, *replies: ChatReply) -> None:
        """Queue chat completion contents: each chat request takes the next one; when the
        queue is empty, ``chat_reply`` answers. A reply is a string (the content), a
        ``ChatAnswer`` (refusal, finish reason, reasoning field) or a function of the request
        body returning either."""
        with self._lock:
            self._script.extend(replies)

    def reject_response_format(self, *types: str) -> None:
        """Answer HTTP 400 to chat requests whose ``response_format.type`` is one of
        ``types`` (e.g. "json_schema"), like endpoints without structured outputs."""
        self.rejected_formats.update(types)

    def chat_bodies(self) -> list[dict[str, Any]]:
        """Bodies of the chat completion requests received, in order."""
        with self._lock:
            return [r.body for r in self.requests if r.path == "/v1/chat/completions"]

    def _next_chat(self) -> ChatReply:
        with self._lock:
            return self._script.pop(0) if self._script else self.chat_reply

    def fail_always(self, *, status: int = 500) -> None:
        """Make every following request fail (until :meth:`reset`)."""
        self.fail_next(1_000_000, status=status)

    def reset(self) -> None:
        """Forget pending failures and recorded requests."""
        with self._lock:
            self._failures.clear()
            self._script.clear()
            self.rejected_formats.clear()
            self.requests.clear()
            self.chat_usage.clear()
        self.output_limit = self.context_chars = self.api_key = None
        self.honour_max_tokens = True

    def count(self, path: str = "/v1/embeddings") -> int:
        """Number of requests received on ``path`` (failed ones included)."""
        with self._lock:
            return sum(1 for r in self.requests if r.path == path)

    # ------------------------------------------------------------------ used by the handler

    def _take_failure(self, path: str) -> _Failure | None:
        with self._lock:
            for i, failure in enumerate(self._failures):
                if failure.path is None or failure.path == path:
                    return self._failures.pop(i)
        return None

    def _record(self, req: RecordedRequest) -> None:
        with self._lock:
            self.requests.append(req)


class _Handler(BaseHTTPRequestHandler):
    owner: OpenAIStub
    server_version = "OpenAIStub/1.0"

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - stdlib name
        """Silence the per-request stderr log."""

    def _send(self, status: int, payload: dict[str, Any], headers: Mapping[str, str] = {}) -> None:
        data = json.dumps(payload).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for key, value in headers.items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(data)

    def _error(
        self,
        status: int,
        message: str,
        code: str,
        headers: Mapping[str, str] = {},
        param: str | None = None,
    ) -> None:
        error = {"message": message, "type": "invalid_request_error", "code": code, "param": param}
        self._send(status, {"error": error}, headers)

    def do_GET(self) -> None:  # noqa: N802 - stdlib name
        if self.path.rstrip("/") == "/v1/models":
            models = [{"id": m, "object": "model", "owned_by": "stub"} for m in self.owner.dims]
            self._send(200, {"object": "list", "data": models})
        else:
            self._error(404, f"no route {self.path}", "not_found")

    def do_POST(self) -> None:  # noqa: N802 - stdlib name
        owner = self.owner
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except json.JSONDecodeError:
            body = {"_raw": raw.decode("utf-8", "replace")}
        if owner.latency:
            time.sleep(owner.latency)
        path = self.path.split("?", 1)[0].rstrip("/")
        failure = owner._take_failure(path) or self._rejection(path, body)
        status = failure.status if failure else 200
        owner._record(
            RecordedRequest(path, body, status, {k.lower(): v for k, v in self.headers.items()})
        )
        if failure is not None:
            headers = {}
            if failure.retry_after is not None:
                headers["Retry-After"] = f"{failure.retry_after:g}"
            code = "rate_limit_exceeded" if failure.status == 429 else "stub_failure"
            self._error(
                failure.status,
                failure.message or f"stub failure {failure.status}",
                failure.code or code,
                headers,
                failure.param,
            )
            return
        if not isinstance(body, dict) or "_raw" in body:
            self._error(400, "body is not a JSON object", "invalid_json")
        elif path == "/v1/embeddings":
            self._embeddings(body)
        elif path == "/v1/chat/completions":
            self._chat(body)
        else:
            self._error(404, f"no route {self.path}", "not_found")

    def _embeddings(self, body: dict[str, Any]) -> None:
        model = body.get("model")
        dim = self.owner.dims.get(model) if isinstance(model, str) else None
        if dim is None:
            self._error(404, f"The model {model!r} does not exist", "model_not_found")
            return
        inputs = body.get("input")
        if isinstance(inputs, str):
            inputs = [inputs]
        if (
            not isinstance(inputs, list)
            or not inputs
            or not all(isinstance(t, str) for t in inputs)
        ):
            self._error(400, "input must be a non-empty string or list of strings", "invalid_input")
            return
        fmt = body.get("encoding_format", "float")
        data = []
        for i, text in enumerate(inputs):
            vec = stub_vector(text, dim)
            emb: Any = vec
            if fmt == "base64":
                emb = base64.b64encode(struct.pack(f"<{dim}f", *vec)).decode("ascii")
            data.append({"object": "embedding", "index": i, "embedding": emb})
        tokens = sum(len(_WORD_RE.findall(t)) for t in inputs)
        self._send(
            200,
            {
                "object": "list",
                "data": data,
                "model": model,
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            },
        )

    def _rejection(self, path: str, body: Any) -> _Failure | None:
        """The error a configured rule gives this request (key, format, context), or None."""
        owner = self.owner
        key = owner.api_key
        if key is not None and self.headers.get("Authorization") != f"Bearer {key}":
            return _Failure(401, None, path, "Incorrect API key provided.", "invalid_api_key")
        if path != "/v1/chat/completions" or not isinstance(body, dict):
            return None
        fmt = body.get("response_format")
        if isinstance(fmt, dict) and fmt.get("type") in owner.rejected_formats:
            message = f"response_format {fmt.get('type')} is not supported"
            return _Failure(400, None, path, message, "bad_format")
        messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
        chars = sum(len(str(m.get("content", ""))) for m in messages)
        limit = owner.context_chars
        if limit is not None and chars > limit:
            message = (
                f"This model's maximum context length is {limit} tokens. However, your "
                f"messages resulted in {chars} tokens. Please reduce the length of the messages."
            )
            return _Failure(400, None, path, message, "context_length_exceeded", "messages")
        return None

    def _chat(self, body: dict[str, Any]) -> None:
        messages = [m for m in body.get("messages", []) if isinstance(m, dict)]
        reply = self.owner._next_chat()
        answer = reply(body) if callable(reply) else reply
        if not isinstance(answer, ChatAnswer):
            answer = ChatAnswer(content=answer)
        content, finish = answer.content, answer.finish_reason
        cap = self.owner.output_limit
        if cap is not None and self.owner.honour_max_tokens and body.get("max_tokens"):
            cap = int(body["max_tokens"])
        if cap is not None and content is not None and len(content) > cap:
            content, finish = content[:cap], "length"
        prompt_tokens = sum(len(_WORD_RE.findall(str(m.get("content", "")))) for m in messages)
        completion_tokens = len(_WORD_RE.findall(content or answer.refusal or ""))
        with self.owner._lock:
            self.owner.chat_usage.append((prompt_tokens, completion_tokens))
        message: dict[str, Any] = {"role": "assistant", "content": content}
        if answer.refusal is not None:
            message["refusal"] = answer.refusal
        if answer.reasoning_content is not None:
            message["reasoning_content"] = answer.reasoning_content
        self._send(
            200,
            {
                "id": "chatcmpl-stub",
                "object": "chat.completion",
                "created": int(time.time()),
                "model": body.get("model", "stub-chat"),
                "choices": [
                    {
                        "index": 0,
                        "message": message,
                        "finish_reason": finish,
                    }
                ],
                "usage": {
                    "prompt_tokens": prompt_tokens,
                    "completion_tokens": completion_tokens,
                    "total_tokens": prompt_tokens + completion_tokens,
                },
            },
        )


def iter_stub(dims: Mapping[str, int] | None = None) -> Iterator[OpenAIStub]:
    """Start a stub, yield it, stop it (the body of the pytest fixture)."""
    with OpenAIStub(dims) as stub:
        yield stub
