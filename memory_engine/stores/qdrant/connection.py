"""The one connection object every module of the Qdrant store shares.

It holds the client (a server, or qdrant-client's local mode), the four collection names
(``<prefix>_memories``, ``_events``, ``_traces``, ``_meta``), the write lock and the closed
flag, and hands the client out under the right serialisation with errors mapped
(:func:`~memory_engine.stores.qdrant.io.qdrant_errors`): :meth:`QdrantConnection.reading`
(serialised in local mode only, whose storage object is not thread-safe) and
:meth:`QdrantConnection.writing` (always under the write lock).
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext

from qdrant_client import QdrantClient

from memory_engine.config import Settings
from memory_engine.errors import StoreUnavailableError
from memory_engine.stores.qdrant.io import cluster_layout, open_client, qdrant_errors


class QdrantConnection:
    """Client, collection names, lock and layout of one Qdrant store.

    Args:
        settings: engine settings (qdrant_url/qdrant_api_key or qdrant_path,
            qdrant_collection_prefix, shard/replication settings).
        client: an open client to use instead of opening one from ``settings`` (the caller
            keeps ownership: :meth:`close` does not close it).

    Raises:
        StoreUnavailableError: the server is unreachable or the local folder is in use.
    """

    def __init__(self, settings: Settings, client: QdrantClient | None = None) -> None:
        prefix = settings.qdrant_collection_prefix
        self.prefix = prefix
        self.memories, self.events = f"{prefix}_memories", f"{prefix}_events"
        self.traces, self.meta = f"{prefix}_traces", f"{prefix}_meta"
        self.lock = threading.RLock()
        self.closed = False
        #: True once the memories collection is known to exist (it is created with the
        #: embedding dimension, on the first ``ensure_embedding``).
        self.memories_ready = False
        self.owns_client = client is None
        self.client: QdrantClient
        if client is None:
            self.client, self.local, self.location = open_client(settings)
        else:
            opts = client.init_options
            self.client = client
            self.local = opts.get("path") is not None or opts.get("location") == ":memory:"
            self.location = str(opts.get("path") or opts.get("location") or opts.get("url"))
        self.layout = cluster_layout(settings, self.local)

    @contextmanager
    def reading(self) -> Iterator[QdrantClient]:
        """The client, serialised in local mode (not thread-safe), errors mapped.

        Raises:
            StoreUnavailableError: the store is closed (or as ``qdrant_errors`` maps).
        """
        with self.lock if self.local else nullcontext(), qdrant_errors():
            if self.closed:
                raise StoreUnavailableError("the store is closed")
            yield self.client

    @contextmanager
    def writing(self) -> Iterator[QdrantClient]:
        """The client under the write lock (all modes), errors mapped.

        Raises:
            StoreUnavailableError: the store is closed (or as ``qdrant_errors`` maps).
        """
        with self.lock, qdrant_errors():
            if self.closed:
                raise StoreUnavailableError("the store is closed")
            yield self.client

    def close(self) -> None:
        """Close the client (releases the local folder lock) unless it was passed in. Safe to
        call twice."""
        with self.lock:
            if not self.closed:
                self.closed = True
                if self.owns_client:
                    self.client.close()
