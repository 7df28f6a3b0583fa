"""Rate and concurrency limits of the write path.

``TokenBuckets``: one token bucket per key (tenant + session), ``rate`` tokens per second and a
burst of ``rate`` tokens; ``acquire`` sleeps until a token is free (at most ``max_wait``
seconds, else RateLimitedError). The global limit of concurrent LLM and embedding calls is a
``threading.BoundedSemaphore`` held by the engine.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable

from memory_engine.errors import RateLimitedError

#: Buckets kept at most (least recently used dropped first).
MAX_BUCKETS = 10_000


class TokenBuckets:
    """Token buckets keyed by string. Thread-safe.

    Args:
        rate: tokens added per second (> 0); also the bucket size (burst) unless ``burst``.
        burst: bucket size in tokens (>= 1); default ``max(1, rate)``.
        clock: monotonic seconds (injectable for tests).
        sleep: how to wait (injectable for tests).
    """

    def __init__(
        self,
        rate: float,
        *,
        burst: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        if rate <= 0:
            raise ValueError("rate must be > 0")
        self.rate = rate
        self.capacity = max(1.0, rate if burst is None else burst)
        self._clock = clock
        self._sleep = sleep
        self._buckets: dict[str, tuple[float, float]] = {}
        self._lock = threading.Lock()

    def _take(self, key: str) -> float:
        """Take a token now if one is free (returns 0), else the seconds until one is."""
        now = self._clock()
        with self._lock:
            tokens, last = self._buckets.pop(key, (self.capacity, now))
            tokens = min(self.capacity, tokens + (now - last) * self.rate)
            if tokens >= 1.0 - 1e-9:  # float slack: never spin on a sliver of a token
                self._buckets[key] = (max(0.0, tokens - 1.0), now)
                wait = 0.0
            else:
                self._buckets[key] = (tokens, now)
                wait = (1.0 - tokens) / self.rate
            while len(self._buckets) > MAX_BUCKETS:
                self._buckets.pop(next(iter(self._buckets)))
        return wait

    def try_take(self, key: str) -> float:
        """Take one token of ``key`` without waiting: 0.0 when taken, else the seconds until
        one is free (nothing taken)."""
        return self._take(key)

    def acquire(self, key: str, *, max_wait: float = 30.0) -> float:
        """Take one token of ``key``, sleeping while none is free; returns seconds waited.

        Raises:
            RateLimitedError: a token would take longer than ``max_wait`` seconds.
        """
        waited = 0.0
        while True:
            wait = self._take(key)
            if wait == 0.0:
                return waited
            if waited + wait > max_wait:
                raise RateLimitedError(
                    f"write rate limit of {self.rate:g}/s reached for {key}", key=key
                )
            self._sleep(wait)
            waited += wait
