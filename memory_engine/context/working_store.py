"""Working-memory backends: where session buffers (recent messages + summary) live.

Two backends with one contract (``WorkingStore``), tested by one parametrized suite:

* ``InProcessWorkingStore`` (default): a dict guarded by a lock; lost when the process ends.
* ``RedisWorkingStore`` (``MEMORY_REDIS_URL``): a list of JSON messages and a hash of summary
  fields per session, a sorted set of sessions per tenant; idle sessions expire after
  ``MEMORY_WORKING_MEMORY_TTL_SECONDS``. Several processes can share it.

Keys are namespaced by tenant (``memwm/<tenant>/<session>/...``; ``/`` cannot occur in ids),
so one tenant's session never reads another's, even with the same session id.

``compact`` folds the oldest messages into the summary with an optimistic version check
(Redis ``WATCH``/``MULTI``), so two writers never fold the same messages twice; appends may
run concurrently with it (they add at the tail, compaction trims the head).
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from memory_engine.config import Settings
from memory_engine.errors import InvalidInputError, StoreUnavailableError
from memory_engine.models import ID_PATTERN, utcnow

Role = Literal["user", "assistant"]
#: Sessions listed per tenant at most.
MAX_LISTED_SESSIONS = 200


class Message(BaseModel):
    """One turn of a session: ``role`` (user | assistant), text, UTC time."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Role
    content: str
    at: datetime = Field(default_factory=utcnow)


class SessionState(BaseModel):
    """A session buffer: messages not yet summarised, and the summary of the older ones.

    ``summarized_rounds`` / ``summarized_tokens`` count the rounds and message tokens folded
    into ``summary`` (so the history size stays known after compaction); ``version`` grows by
    one per compaction.
    """

    model_config = ConfigDict(frozen=True)

    messages: list[Message] = Field(default_factory=list)
    summary: str = ""
    summarized_rounds: int = 0
    summarized_tokens: int = 0
    version: int = 0


class WorkingStore(Protocol):
    """Storage of session buffers, keyed by (tenant, session)."""

    def append(self, tenant_id: str, session_id: str, messages: Sequence[Message]) -> None:
        """Add messages at the end of the session (creates the session)."""
        ...

    def load(self, tenant_id: str, session_id: str) -> SessionState:
        """A consistent snapshot of the session (empty state when unknown)."""
        ...

    def compact(
        self,
        tenant_id: str,
        session_id: str,
        *,
        expected_version: int,
        drop: int,
        summary: str,
        summarized_rounds: int,
        summarized_tokens: int,
    ) -> bool:
        """Drop the first ``drop`` messages and store the new summary fields, if the session is
        still at ``expected_version``. Returns False (nothing changed) otherwise."""
        ...

    def sessions(self, tenant_id: str, *, limit: int = 50) -> tuple[list[str], bool]:
        """Session ids of the tenant, most recently active first, and a ``truncated`` flag."""
        ...

    def clear(self, tenant_id: str, session_id: str) -> None:
        """Forget the session."""
        ...

    def clear_matching(self, tenant_id: str, match: Callable[[str], bool]) -> int:
        """Forget every session of the tenant whose id satisfies ``match`` (all of them, not
        only the listed ones). Returns the number forgotten."""
        ...

    def close(self) -> None: ...


def check_ids(tenant_id: str, session_id: str) -> None:
    """Raise InvalidInputError unless both ids match ``[A-Za-z0-9_.:-]{1,64}``."""
    for name, value in (("tenant_id", tenant_id), ("session_id", session_id)):
        if not isinstance(value, str) or not ID_PATTERN.match(value):
            raise InvalidInputError(f"{name} must match [A-Za-z0-9_.:-]{{1,64}}", field=name)


@dataclass
class _Session:
    messages: list[Message] = field(default_factory=list)
    summary: str = ""
    summarized_rounds: int = 0
    summarized_tokens: int = 0
    version: int = 0
    touched: float = 0.0


class InProcessWorkingStore:
    """Session buffers in this process's memory (the default backend)."""

    def __init__(self) -> None:
        self._sessions: dict[tuple[str, str], _Session] = {}
        self._lock = threading.Lock()

    def append(self, tenant_id: str, session_id: str, messages: Sequence[Message]) -> None:
        check_ids(tenant_id, session_id)
        with self._lock:
            s = self._sessions.setdefault((tenant_id, session_id), _Session())
            s.messages.extend(messages)
            s.touched = time.time()

    def load(self, tenant_id: str, session_id: str) -> SessionState:
        check_ids(tenant_id, session_id)
        with self._lock:
            s = self._sessions.get((tenant_id, session_id))
            if s is None:
                return SessionState()
            return SessionState(
                messages=list(s.messages),
                summary=s.summary,
                summarized_rounds=s.summarized_rounds,
                summarized_tokens=s.summarized_tokens,
                version=s.version,
            )

    def compact(
        self,
        tenant_id: str,
        session_id: str,
        *,
        expected_version: int,
        drop: int,
        summary: str,
        summarized_rounds: int,
        summarized_tokens: int,
    ) -> bool:
        check_ids(tenant_id, session_id)
        with self._lock:
            s = self._sessions.get((tenant_id, session_id))
            if s is None or s.version != expected_version:
                return False
            del s.messages[:drop]
            s.summary = summary
            s.summarized_rounds = summarized_rounds
            s.summarized_tokens = summarized_tokens
            s.version += 1
            return True

    def sessions(self, tenant_id: str, *, limit: int = 50) -> tuple[list[str], bool]:
        limit = max(1, min(limit, MAX_LISTED_SESSIONS))
        with self._lock:
            mine = [
                (s.touched, sid) for (tid, sid), s in self._sessions.items() if tid == tenant_id
            ]
        mine.sort(reverse=True)
        return [sid for _, sid in mine[:limit]], len(mine) > limit

    def clear(self, tenant_id: str, session_id: str) -> None:
        check_ids(tenant_id, session_id)
        with self._lock:
            self._sessions.pop((tenant_id, session_id), None)

    def clear_matching(self, tenant_id: str, match: Callable[[str], bool]) -> int:
        with self._lock:
            doomed = [k for k in self._sessions if k[0] == tenant_id and match(k[1])]
            for key in doomed:
                del self._sessions[key]
        return len(doomed)

    def close(self) -> None:
        return None


class RedisWorkingStore:
    """Session buffers in Redis (``MEMORY_REDIS_URL``), shared by every process using it.

    Args:
        url: ``redis://host:port/db`` (or ``rediss://``, ``unix://``).
        ttl_seconds: idle sessions expire after this; 0 = never.
        client: an existing ``redis.Redis`` (tests), instead of ``url``.

    Raises:
        StoreUnavailableError: Redis cannot be reached (at construction and on each call).
    """

    def __init__(self, url: str | None = None, *, ttl_seconds: int = 0, client: Any = None) -> None:
        import redis

        self._errors: tuple[type[Exception], ...] = (redis.RedisError, OSError)
        self._watch_error = redis.WatchError
        self._ttl = ttl_seconds
        self._r = client or redis.Redis.from_url(str(url), decode_responses=True)
        try:
            self._r.ping()
        except self._errors as exc:
            raise StoreUnavailableError(f"Redis is unreachable: {exc}") from exc

    @staticmethod
    def _keys(tenant_id: str, session_id: str) -> tuple[str, str, str]:
        base = f"memwm/{tenant_id}"
        return f"{base}/{session_id}/msgs", f"{base}/{session_id}/meta", f"{base}/sessions"

    def _fail(self, exc: Exception) -> StoreUnavailableError:
        return StoreUnavailableError(f"Redis working memory failed: {exc}")

    def append(self, tenant_id: str, session_id: str, messages: Sequence[Message]) -> None:
        check_ids(tenant_id, session_id)
        msgs, meta, index = self._keys(tenant_id, session_id)
        try:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.rpush(msgs, *[m.model_dump_json() for m in messages])
                pipe.zadd(index, {session_id: time.time()})
                if self._ttl:
                    for key in (msgs, meta, index):
                        pipe.expire(key, self._ttl)
                pipe.execute()
        except self._errors as exc:
            raise self._fail(exc) from exc

    def load(self, tenant_id: str, session_id: str) -> SessionState:
        check_ids(tenant_id, session_id)
        msgs, meta, _ = self._keys(tenant_id, session_id)
        try:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.lrange(msgs, 0, -1)
                pipe.hgetall(meta)
                raw, fields = pipe.execute()
        except self._errors as exc:
            raise self._fail(exc) from exc
        return SessionState(
            messages=[Message.model_validate_json(m) for m in raw],
            summary=fields.get("summary", ""),
            summarized_rounds=int(fields.get("summarized_rounds", 0)),
            summarized_tokens=int(fields.get("summarized_tokens", 0)),
            version=int(fields.get("version", 0)),
        )

    def compact(
        self,
        tenant_id: str,
        session_id: str,
        *,
        expected_version: int,
        drop: int,
        summary: str,
        summarized_rounds: int,
        summarized_tokens: int,
    ) -> bool:
        check_ids(tenant_id, session_id)
        msgs, meta, _ = self._keys(tenant_id, session_id)
        try:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.watch(meta)
                if int(pipe.hget(meta, "version") or 0) != expected_version:
                    pipe.unwatch()
                    return False
                pipe.multi()
                pipe.hset(
                    meta,
                    mapping={
                        "summary": summary,
                        "summarized_rounds": summarized_rounds,
                        "summarized_tokens": summarized_tokens,
                        "version": expected_version + 1,
                    },
                )
                pipe.ltrim(msgs, drop, -1)
                if self._ttl:
                    pipe.expire(meta, self._ttl)
                pipe.execute()
                return True
        except self._watch_error:
            return False
        except self._errors as exc:
            raise self._fail(exc) from exc

    def sessions(self, tenant_id: str, *, limit: int = 50) -> tuple[list[str], bool]:
        limit = max(1, min(limit, MAX_LISTED_SESSIONS))
        _, _, index = self._keys(tenant_id, "x")
        try:
            ids = self._r.zrevrange(index, 0, limit)
        except self._errors as exc:
            raise self._fail(exc) from exc
        return list(ids[:limit]), len(ids) > limit

    def clear(self, tenant_id: str, session_id: str) -> None:
        check_ids(tenant_id, session_id)
        msgs, meta, index = self._keys(tenant_id, session_id)
        try:
            with self._r.pipeline(transaction=True) as pipe:
                pipe.delete(msgs, meta)
                pipe.zrem(index, session_id)
                pipe.execute()
        except self._errors as exc:
            raise self._fail(exc) from exc

    def clear_matching(self, tenant_id: str, match: Callable[[str], bool]) -> int:
        _, _, index = self._keys(tenant_id, "x")
        cleared = 0
        try:
            doomed = [sid for sid, _ in self._r.zscan_iter(index) if match(sid)]
            for start in range(0, len(doomed), 500):
                with self._r.pipeline(transaction=True) as pipe:
                    for sid in doomed[start : start + 500]:
                        msgs, meta, _ = self._keys(tenant_id, sid)
                        pipe.delete(msgs, meta)
                        pipe.zrem(index, sid)
                    pipe.execute()
                cleared += len(doomed[start : start + 500])
        except self._errors as exc:
            raise self._fail(exc) from exc
        return cleared

    def close(self) -> None:
        self._r.close()


def build_working_store(settings: Settings) -> WorkingStore:
    """Redis when ``MEMORY_REDIS_URL`` is set, else in-process."""
    if settings.context.redis_url is not None:
        return RedisWorkingStore(
            settings.context.redis_url.get_secret_value(),
            ttl_seconds=settings.context.working_memory_ttl_seconds,
        )
    return InProcessWorkingStore()


def dump_messages(messages: Sequence[Message]) -> str:
    """Messages as a JSON array (for export and the dashboard)."""
    return json.dumps([m.model_dump(mode="json") for m in messages], ensure_ascii=False)
