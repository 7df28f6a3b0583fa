"""Keep the cyclic garbage collector's full collections out of search latency (``gc.freeze``).

A process that imports the engine holds about 100k-170k GC-tracked objects (pydantic models,
qdrant-client, openai, mcp), and pydantic-core's validators report their whole schema trees to
the collector. A full (generation 2) collection therefore took 70-160 ms here, and a stream of
searches triggered one every 1-2 s: 3-5 % of searches paid it, which made the p95 of
``bench/latency.py`` (100k memories) 48 ms instead of about 15 ms.

``gc.freeze()`` (CPython >= 3.7) moves every object alive at that moment into a permanent
generation that collections skip. :func:`freeze_once` runs it once per process, after the
first successful search (not an as-of search), when the store's pool, the embedder and the
lazily built validators exist.

Cost: every object alive in the *process* at that moment - the host application's too - is
never reclaimed by the cyclic collector afterwards (reference counting still frees whatever is
not in a cycle), and the first search pays one full collection (0.1-0.6 s with an embedder
loaded: about 600k objects). That is why it is on only where the process is ours and long-lived:
the MCP server and the dashboard (:func:`server_settings`). A library host or a one-shot CLI
command keeps it off unless ``MEMORY_GC_FREEZE=1``; ``MEMORY_GC_FREEZE=0`` turns it off
everywhere. See the CPython ``gc.freeze`` documentation.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory_engine.config import Settings

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


def server_settings(settings: Settings) -> Settings:
    """``settings`` with ``gc_freeze`` on when it was left unset (MCP server, dashboard)."""
    if settings.gc_freeze is not None:
        return settings
    return settings.model_copy(update={"gc_freeze": True})
