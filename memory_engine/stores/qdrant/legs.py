"""Extra dense legs of the Qdrant store (:class:`memory_engine.stores.base.VectorLegs`).

Each extra leg is a named vector of the memories collection (``dense_ml``, cosine), declared
when the collection is created: a leg recorded before the first write is part of the new
collection. Qdrant cannot add a named vector to an existing collection, so a leg missing from
one raises :class:`~memory_engine.errors.LegUnavailableError` until ``memory-engine reembed
--leg`` rebuilds the collection (:meth:`QdrantVectorLegs.replace_leg`). Leg records are meta
points (``kind: leg``).
"""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
from qdrant_client import models

from memory_engine.errors import LegUnavailableError
from memory_engine.models import Candidate, MemoryStatus, Scope
from memory_engine.stores.base import STAGING_LEG, LegRecord, LegState
from memory_engine.stores.common import check_record_ids, vector_param
from memory_engine.stores.legs import KNOWN_LEGS, LegBook, check_leg, first_state, unstaged_error
from memory_engine.stores.qdrant.codec import DENSE, derived_id, scope_filter
from memory_engine.stores.qdrant.connection import EMBEDDING_ID, QdrantConnection
from memory_engine.stores.qdrant.io import qdrant_errors
from memory_engine.stores.qdrant.rebuild import rebuild_collection

#: Points copied per scroll page when the collection is rebuilt.
REBUILD_PAGE = 256


def _leg_id(leg: str) -> str:
    return derived_id(f"leg:{leg}")


def collection_legs(client: Any, name: str) -> dict[str, int]:
    """Named dense vectors (other than ``dense``) of an existing collection, with their size."""
    with qdrant_errors():
        if not client.collection_exists(name):
            return {}
        vectors = client.get_collection(name).config.params.vectors
    if not isinstance(vectors, dict):
        return {}
    return {n: int(p.size) for n, p in vectors.items() if n != DENSE}


class QdrantVectorLegs:
    """Record, write, search and count the extra dense legs of one Qdrant store.

    Args:
        conn: the store's shared connection.
        search: the reader's ``dense_search`` (takes ``using`` and ``dim``).
    """

    def __init__(self, conn: QdrantConnection, search: Callable[..., list[Candidate]]) -> None:
        self._conn = conn
        self._search = search
        self._book = LegBook(self._read_records)

    def _read_records(self) -> dict[str, LegRecord]:
        with self._conn.reading() as client:
            rows = client.retrieve(self._conn.meta, [_leg_id(leg) for leg in KNOWN_LEGS])
        records = {}
        for r in rows:
            p = r.payload or {}
            if p.get("kind") == "leg":
                records[str(p["leg"])] = LegRecord(
                    leg=str(p["leg"]), model=str(p["model"]), dim=int(p["dim"]), state=p["state"]
                )
        return records

    def leg_records(self) -> dict[str, LegRecord]:
        """Every recorded extra leg (meta points)."""
        return self._book.records()

    def insert_vectors(self, vectors: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
        """A new memory's leg vectors, checked (:meth:`LegBook.insert_vectors`)."""
        return self._book.insert_vectors(vectors)

    def leg_dims(self) -> dict[str, int]:
        """Dimension of every recorded leg (what a new memories collection declares)."""
        return {leg: r.dim for leg, r in self.leg_records().items()}

    def _write_record(self, record: LegRecord) -> None:
        point = models.PointStruct(
            id=_leg_id(record.leg), vector={}, payload={"kind": "leg", **record.model_dump()}
        )
        with self._conn.writing() as client:
            client.upsert(self._conn.meta, [point])
        self._book.forget()

    def ensure_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """See :meth:`memory_engine.stores.base.VectorLegs.ensure_leg`.

        Raises:
            LegUnavailableError: the memories collection exists without the leg's vector.
        """
        known = self._book.known(leg, model, dim)
        if known is not None:
            return known
        if self._conn.memories_exist():
            with self._conn.reading() as client:
                has = collection_legs(client, self._conn.memories)
            if leg not in has:
                raise LegUnavailableError(
                    f"this Qdrant collection has no {leg} vector: run "
                    f"`memory-engine reembed --leg {leg}` to rebuild it with one",
                    leg=leg,
                )
            if has[leg] != dim:
                raise LegUnavailableError(
                    f"the {leg} vector of this collection has {has[leg]} dims, not {dim}",
                    leg=leg,
                )
        with self._conn.reading() as client:
            used = bool(client.retrieve(self._conn.meta, [EMBEDDING_ID]))
        record = LegRecord(leg=leg, model=model, dim=dim, state=first_state(used))
        self._write_record(record)
        return record

    def set_leg_state(self, leg: str, state: LegState) -> None:
        """See :meth:`memory_engine.stores.base.VectorLegs.set_leg_state`."""
        self._write_record(self._book.get(leg).model_copy(update={"state": state}))

    def set_leg_vectors(
        self, leg: str, vectors: Mapping[uuid.UUID, Sequence[float]], *, scope: Scope
    ) -> int:
        """See :meth:`memory_engine.stores.base.VectorLegs.set_leg_vectors`: the points of the
        tenant that exist (and hold a ``dense`` vector) get the leg's vector."""
        dim = self._book.get(leg).dim
        if not vectors or not self._conn.memories_exist():
            return 0
        wanted = {
            str(i): vector_param(v, dim, f"{leg} vector").tolist() for i, v in vectors.items()
        }
        with self._conn.writing() as client:
            found, _ = client.scroll(
                self._conn.memories,
                scroll_filter=scope_filter(
                    scope,
                    models.HasIdCondition(has_id=list(wanted)),
                    models.HasVectorCondition(has_vector=DENSE),
                ),
                limit=len(wanted),
                with_payload=False,
                with_vectors=False,
            )
            ids = [str(p.id) for p in found]
            if ids:
                client.update_vectors(
                    self._conn.memories,
                    [models.PointVectors(id=i, vector={leg: wanted[i]}) for i in ids],
                )
        return len(ids)

    def leg_search(
        self,
        leg: str,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_search`."""
        dim = self._book.get(leg).dim
        return self._search(vector, scope=scope, k=k, statuses=statuses, using=leg, dim=dim)

    def leg_missing(
        self, leg: str, *, scope: Scope, limit: int = 256, after: uuid.UUID | None = None
    ) -> builtins.list[tuple[uuid.UUID, str]]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_missing` (ids ascending)."""
        check_leg(leg)
        if not self._conn.memories_exist():
            return []
        must: list[Any] = [models.HasVectorCondition(has_vector=DENSE)]
        flt = scope_filter(scope, *must)
        flt.must_not = [models.HasVectorCondition(has_vector=leg)]
        out: list[tuple[uuid.UUID, str]] = []
        offset: Any = None
        with self._conn.reading() as client:
            while True:
                page, offset = client.scroll(
                    self._conn.memories,
                    scroll_filter=flt,
                    limit=REBUILD_PAGE,
                    offset=offset,
                    with_payload=["content"],
                    with_vectors=False,
                )
                out += [
                    (uuid.UUID(str(p.id)), str((p.payload or {}).get("content", ""))) for p in page
                ]
                if offset is None:
                    break
        out.sort(key=lambda r: r[0])
        if after is not None:
            out = [r for r in out if r[0] > after]
        return out[:limit]

    def leg_counts(self, leg: str, *, scope: Scope) -> tuple[int, int]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_counts`."""
        check_leg(leg)
        if not self._conn.memories_exist():
            return 0, 0
        with_dense = scope_filter(scope, models.HasVectorCondition(has_vector=DENSE))
        both = scope_filter(
            scope,
            models.HasVectorCondition(has_vector=DENSE),
            models.HasVectorCondition(has_vector=leg),
        )
        if leg not in collection_legs(self._conn.client, self._conn.memories):
            return 0, self._conn.count(self._conn.memories, with_dense)
        return (
            self._conn.count(self._conn.memories, both),
            self._conn.count(self._conn.memories, with_dense),
        )

    def leg_vectors(
        self, leg: str, memory_ids: Sequence[uuid.UUID], *, scope: Scope
    ) -> dict[uuid.UUID, tuple[float, ...]]:
        """See :meth:`memory_engine.stores.base.VectorLegs.leg_vectors`."""
        check_leg(leg)
        ids = check_record_ids(memory_ids, self._conn.settings.limits.list_max_limit)
        if not ids or not self._conn.memories_exist():
            return {}
        with self._conn.reading() as client:
            if leg not in collection_legs(client, self._conn.memories):
                return {}
            rows, _ = client.scroll(
                self._conn.memories,
                scroll_filter=scope_filter(
                    scope,
                    models.HasIdCondition(has_id=[str(i) for i in ids]),
                    models.HasVectorCondition(has_vector=leg),
                ),
                limit=len(ids),
                with_payload=False,
                with_vectors=[leg],
            )
        out: dict[uuid.UUID, tuple[float, ...]] = {}
        for r in rows:
            vec = r.vector.get(leg) if isinstance(r.vector, dict) else None
            if vec is not None:
                out[uuid.UUID(str(r.id))] = tuple(float(x) for x in vec)  # type: ignore[arg-type]
        return out

    def commit_primary(self, model: str, dim: int) -> None:
        """See :meth:`memory_engine.stores.base.VectorLegs.commit_primary`: the collection is
        rebuilt with the staged vectors as ``dense`` (of ``dim`` dimensions) and every point's
        ``embedding_model`` set, then the store's record is replaced."""
        self._book.staged(model, dim)
        missing = models.Filter(
            must=[models.HasVectorCondition(has_vector=DENSE)],
            must_not=[models.HasVectorCondition(has_vector=STAGING_LEG)],
        )
        left = self._conn.count(self._conn.memories, missing)
        if left:
            raise unstaged_error(left)
        legs = {n: d for n, d in self.leg_dims().items() if n != STAGING_LEG}
        rebuild_collection(
            self._conn, legs, drop=None, dense_dim=dim, promote=STAGING_LEG, model=model
        )
        self._conn.record_embedding(model, dim)
        with self._conn.writing() as client:
            client.delete(
                self._conn.meta,
                points_selector=models.PointIdsList(points=[_leg_id(STAGING_LEG)]),
            )
        self._book.forget()

    def replace_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """See :meth:`memory_engine.stores.base.VectorLegs.replace_leg`: the memories collection
        is rebuilt with the leg's vector of ``dim`` dimensions (every point copied with its
        payload and other vectors, under the write lock); a re-run after a crash finishes it
        (the copy is kept in ``<memories>_rebuild`` until the new collection is complete)."""
        self._book.known(leg, model, dim)
        dims = {n: d for n, d in self.leg_dims().items() if n != leg}
        dims[leg] = dim
        rebuild_collection(self._conn, dims, drop=leg)
        record = LegRecord(leg=leg, model=model, dim=dim, state="filling")
        self._write_record(record)
        return record
