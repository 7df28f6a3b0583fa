"""The one connection object every part of the Qdrant store shares.

It holds the settings, the client (a server, or qdrant-client's local mode), the four
collection names (``<prefix>_memories``, ``_events``, ``_traces``, ``_meta``,
``_entities``), the write lock,
the closed flag and the recorded embedding, and hands the client out under the right
serialisation with errors mapped (:func:`~memory_engine.stores.qdrant.io.qdrant_errors`):
:meth:`QdrantConnection.reading` (serialised in local mode only, whose storage object is not
thread-safe) and :meth:`QdrantConnection.writing` (always under the write lock). The small
reads every part needs (a memory point by id, an exact count, a facet) and the local-mode size
warning live here too.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

from qdrant_client import QdrantClient, models

from memory_engine.config import Settings
from memory_engine.errors import StoreUnavailableError
from memory_engine.models import Scope
from memory_engine.stores.base import EXTRA_LEGS, STAGING_LEG, NewMemory
from memory_engine.stores.common import check_embedding_spec, check_same_embedding, first_embedding
from memory_engine.stores.qdrant.codec import derived_id, scope_filter
from memory_engine.stores.qdrant.io import (
    cluster_layout,
    create_memories_collection,
    open_client,
    qdrant_errors,
)

logger = logging.getLogger("memory_engine.stores.qdrant.store")

#: Point id of the meta point recording the embedding model and dimension.
EMBEDDING_ID = derived_id("embedding")


class QdrantConnection:
    """Settings, client, collection names, lock, layout and recorded embedding of one store.

    Args:
        settings: engine settings (qdrant_url/qdrant_api_key or qdrant_path,
            qdrant_collection_prefix, shard/replication settings, qdrant_local_warn_points,
            and what the parts read: list_max_limit, trace_retention, candidates_per_leg,
            rrf_k).
        client: an open client to use instead of opening one from ``settings`` (the caller
            keeps ownership: :meth:`close` does not close it).

    Raises:
        StoreUnavailableError: the server is unreachable or the local folder is in use.
    """

    def __init__(self, settings: Settings, client: QdrantClient | None = None) -> None:
        self.settings = settings
        prefix = settings.storage.qdrant_collection_prefix
        self.prefix = prefix
        self.memories, self.events = f"{prefix}_memories", f"{prefix}_events"
        self.traces, self.meta = f"{prefix}_traces", f"{prefix}_meta"
        self.entities = f"{prefix}_entities"
        self.lock = threading.RLock()
        self.closed = False
        #: True once the memories collection is known to exist (it is created with the
        #: embedding dimension, on the first ``ensure_embedding``).
        self.memories_ready = False
        self._embedding: tuple[str, int] | None = None
        self._warned: set[str] = set()
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

    # ------------------------------------------------------------------ small reads

    def memories_exist(self) -> bool:
        """Whether the memories collection exists (cached once True)."""
        if not self.memories_ready:
            with self.reading() as client:
                self.memories_ready = client.collection_exists(self.memories)
        return self.memories_ready

    def count(self, collection: str, flt: models.Filter) -> int:
        """Exact number of points of ``collection`` matching ``flt``."""
        with self.reading() as client:
            return int(client.count(collection, count_filter=flt, exact=True).count)

    def facet(self, collection: str, key: str, flt: models.Filter, limit: int) -> dict[str, int]:
        """Exact counts per value of payload ``key`` over the points matching ``flt``."""
        with self.reading() as client:
            hits = client.facet(collection, key, facet_filter=flt, limit=limit, exact=True).hits
        return {str(h.value): int(h.count) for h in hits}

    def fetch(self, point_id: str, scope: Scope, *, with_vectors: bool = False) -> Any:
        """The memory point ``point_id`` within ``scope`` (a filtered scroll, never a bare
        ``retrieve``, so another tenant's id answers None), or None."""
        if not self.memories_exist():
            return None
        with self.reading() as client:
            found, _ = client.scroll(
                self.memories,
                scroll_filter=scope_filter(scope, models.HasIdCondition(has_id=[point_id])),
                limit=1,
                with_payload=True,
                with_vectors=with_vectors,
            )
        return found[0] if found else None

    def check_size(self, collection: str) -> None:
        """Local mode: log a warning (once per collection) above ``qdrant_local_warn_points``."""
        if not self.local or collection in self._warned:
            return
        with self.reading() as client:
            if not client.collection_exists(collection):
                return
            n = int(client.count(collection, exact=True).count)
        limit = self.settings.storage.qdrant_local_warn_points
        if n > limit:
            self._warned.add(collection)
            logger.warning(
                "Qdrant local mode: collection %s holds %d points (> %d); local mode is exact "
                "and pure Python (about 150 ms per filtered query at 10k points): use a Qdrant "
                "server (MEMORY_QDRANT_URL) for this size",
                collection,
                n,
                limit,
            )

    # ------------------------------------------------------------------ embedding config

    def embedding_info(self) -> tuple[str, int] | None:
        """The recorded (model, dim), or None when no embedding was recorded yet."""
        with self.reading() as client:
            rows = client.retrieve(self.meta, [EMBEDDING_ID])
        p = (rows[0].payload or {}) if rows else {}
        self._embedding = (str(p["model"]), int(p["dim"])) if p else None
        return self._embedding

    def ensure_embedding(self, model: str, dim: int) -> None:
        """Record (first call) or check the embedding model name and dimension.

        The first call records (model, dim) and creates the memories collection with a
        ``dense`` vector of ``dim`` dimensions (cosine); nothing is ever dropped or converted.

        Raises:
            InvalidInputError: empty model or dimension out of 1..16000.
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        check_embedding_spec(model, dim)
        recorded = self.recorded_embedding()
        if recorded is None:
            with self.writing() as client:
                point = models.PointStruct(
                    id=EMBEDDING_ID,
                    vector={},
                    payload={"kind": "embedding", "model": model, "dim": dim},
                )
                client.upsert(self.meta, [point], update_mode=models.UpdateMode.INSERT_ONLY)
                recorded = self.embedding_info()  # another process may have won the race
                assert recorded is not None
                create_memories_collection(
                    client, self.memories, recorded[1], self.local, self.layout, self.leg_dims()
                )
                self.memories_ready = True
        check_same_embedding(recorded, model, dim)

    def record_embedding(self, model: str, dim: int) -> None:
        """Replace the recorded (model, dim) (``memory-engine reembed``'s primary switch)."""
        point = models.PointStruct(
            id=EMBEDDING_ID, vector={}, payload={"kind": "embedding", "model": model, "dim": dim}
        )
        with self.writing() as client:
            client.upsert(self.meta, [point])
        self._embedding = (model, dim)

    def leg_dims(self) -> dict[str, int]:
        """Dimension of each recorded extra dense leg (meta points ``kind: leg``)."""
        ids = [derived_id(f"leg:{leg}") for leg in (*EXTRA_LEGS, STAGING_LEG)]
        with self.reading() as client:
            rows = client.retrieve(self.meta, ids)
        return {
            str(p["leg"]): int(p["dim"])
            for p in ((r.payload or {}) for r in rows)
            if p.get("kind") == "leg"
        }

    def recorded_embedding(self) -> tuple[str, int] | None:
        """The recorded (model, dim), from the cache when known, else read."""
        return self._embedding or self.embedding_info()

    def dim(self) -> int | None:
        """The recorded vector dimension, or None when nothing is recorded yet."""
        recorded = self.recorded_embedding()
        return recorded[1] if recorded else None

    def model_dim(self, first: NewMemory) -> tuple[str, int]:
        """The recorded (model, dim); records the first item's when nothing is recorded yet.

        Raises:
            InvalidInputError: nothing recorded and the item names no embedding model.
        """
        recorded = self.recorded_embedding()
        if recorded is None:
            self.ensure_embedding(*first_embedding(first))
            recorded = self._embedding
        assert recorded is not None
        return recorded
