"""``QueueWorker``: the background thread that drains the durable write queue.

It owns only the thread: what one step does (claim and run up to ``batch`` queued writes,
returning how many ran) is the ``drain`` callable it is given, ``WriteService.process_pending_writes``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)


class QueueWorker:
    """One daemon thread calling ``drain(batch)`` until stopped, pausing ``poll_seconds``
    when a step ran nothing or failed (a failed row is marked failed or retried by ``drain``).

    Args:
        drain: runs at most ``batch`` queued writes, returns how many ran (>= 0).
        lock: guards start and stop against concurrent callers.
        batch: most writes per step (>= 1).
    """

    def __init__(
        self,
        drain: Callable[[int], int],
        lock: threading.Lock | threading.RLock,
        *,
        batch: int = 50,
    ) -> None:
        self._drain = drain
        self._lock = lock
        self._batch = batch
        self._thread: threading.Thread | None = None
        self._stop: threading.Event | None = None

    def start(self, *, poll_seconds: float = 0.2) -> None:
        """Start the thread (idempotent while it is alive)."""
        with self._lock:
            if self._thread is not None and self._thread.is_alive():
                return
            stop = threading.Event()

            def loop() -> None:
                while not stop.is_set():
                    try:
                        if self._drain(self._batch) == 0:
                            stop.wait(poll_seconds)
                    except Exception:  # keep draining; the row is marked failed or retried
                        log.exception("write worker step failed")
                        stop.wait(poll_seconds)

            self._stop = stop
            self._thread = threading.Thread(target=loop, name="memory-write-worker", daemon=True)
            self._thread.start()

    def stop(self, timeout: float = 10.0) -> None:
        """Stop the thread after its current write; waits at most ``timeout`` seconds."""
        if self._stop is not None:
            self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout)
        self._thread = None
