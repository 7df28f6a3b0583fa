"""Keep the cyclic garbage collector's full collections out of search latency (``gc.freeze``).

A process that imports the engine holds about 100k-170k GC-tracked objects (pydantic models,
qdrant-client, openai, mcp), and pydantic-core's validators report their whole schema trees to
the collector. A full (generation 2) collection therefore took 70-160 ms here, and a stream of
searches triggered one every 1-2 s: 3-5 % of searches paid it, which made the p95 of
``bench/latency.py`` (100k memories) 48 ms instead of about 15 ms.

``gc.freeze()`` (CPython >= 3.7) moves every object alive at that moment into a permanent
generation that collections skip. :func:`freeze_once` runs it once per process, after the
first search, when the store's pool, the embedder and the lazily built validators exist.
Cost: objects frozen then are never reclaimed by the cyclic collector (reference counting still
frees whatever is not in a cycle): at most one engine's worth of startup objects. Turn it off
with ``MEMORY_GC_FREEZE=0`` (Settings.gc_freeze); see the CPython ``gc.freeze`` documentation.
"""

from __future__ import annotations

import gc
import logging
import threading
import time

logger = logging.getLogger("memory_engine")

_lock = threading.Lock()
_done = False


def freeze_once() -> bool:
    """Collect, then freeze every tracked object; only the first call does anything.

    Returns:
        True for the call that froze, False for every later one.
    """
    global _done
    if _done:
        return False
    with _lock:
        if _done:
            return False
        start = time.perf_counter()
        gc.collect()
        gc.freeze()
        _done = True
    logger.debug(
        "gc.freeze: %d objects moved to the permanent generation in %.0f ms",
        gc.get_freeze_count(),
        (time.perf_counter() - start) * 1000,
    )
    return True
