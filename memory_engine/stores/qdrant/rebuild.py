"""Rebuild the Qdrant memories collection with another set of extra dense legs.

Qdrant cannot add a named vector to an existing collection nor change a vector's size, so
``replace_leg`` copies every point into ``<memories>_rebuild`` (created with the new vectors),
then recreates ``<memories>`` from that copy. A meta point records the phase, so a run killed
at any moment is finished by the next one:

1. ``copying``: the copy may be partial; a re-run copies again (upserts are idempotent).
2. ``copied``: the copy is complete; the original is dropped, recreated with the new vectors
   and filled from the copy (again idempotent), then the copy and the marker are removed.

The rebuilt leg's vectors are not copied (they belong to the old model); every other vector,
the payload and the point ids are kept. On a server, points written while the copy ran are
copied again before the switch (a catch-up pass by version); writes in the last moments
before the original is dropped can still be missed, so pause writers for a rebuild there.
In local mode the running command holds the folder: no other process writes meanwhile.
"""

from __future__ import annotations

from typing import Any

from qdrant_client import models

from memory_engine.stores.qdrant.codec import DENSE, derived_id
from memory_engine.stores.qdrant.connection import QdrantConnection
from memory_engine.stores.qdrant.io import create_memories_collection

#: Points per scroll page of the copy.
COPY_PAGE = 256
_MARKER_ID = derived_id("rebuild")


def _phase(conn: QdrantConnection) -> str | None:
    with conn.reading() as client:
        rows = client.retrieve(conn.meta, [_MARKER_ID])
    return str((rows[0].payload or {}).get("phase")) if rows else None


def _set_phase(conn: QdrantConnection, phase: str | None, plan: dict[str, Any]) -> None:
    with conn.writing() as client:
        if phase is None:
            client.delete(conn.meta, points_selector=models.PointIdsList(points=[_MARKER_ID]))
        else:
            point = models.PointStruct(
                id=_MARKER_ID, vector={}, payload={"kind": "rebuild", "phase": phase, **plan}
            )
            client.upsert(conn.meta, [point])


def _moved(point: Any, drop: str | None, promote: str | None, model: str | None) -> Any:
    """The point as the rebuilt collection holds it: without vector ``drop``; with vector
    ``promote`` as the ``dense`` one and ``embedding_model`` = ``model``."""
    vectors = dict(point.vector) if isinstance(point.vector, dict) else {}
    if drop:
        vectors.pop(drop, None)
    payload = dict(point.payload or {})
    if promote:
        staged = vectors.pop(promote, None)
        vectors.pop(DENSE, None)
        if staged is not None:
            vectors[DENSE] = staged
            if model:
                payload["embedding_model"] = model
    return models.PointStruct(id=point.id, vector=vectors, payload=payload)


def _copy(
    conn: QdrantConnection,
    source: str,
    target: str,
    drop: str | None,
    promote: str | None = None,
    model: str | None = None,
    *,
    stale_only: bool = False,
) -> int:
    """Copy the points of ``source`` into ``target`` (as :func:`_moved` makes them); with
    ``stale_only`` only those ``target`` lacks or holds at another version (written while a
    first copy ran, on a server). Returns how many points were copied."""
    offset: Any = None
    copied = 0
    while True:
        with conn.reading() as client:
            page, offset = client.scroll(
                source,
                limit=COPY_PAGE,
                offset=offset,
                with_payload=["version"] if stale_only else True,
                with_vectors=not stale_only,
            )
            if stale_only and page:
                have = {
                    str(p.id): (p.payload or {}).get("version")
                    for p in client.retrieve(target, [p.id for p in page], with_payload=["version"])
                }
                stale = [
                    p.id
                    for p in page
                    if have.get(str(p.id), -1) != (p.payload or {}).get("version")
                ]
                page = (
                    client.retrieve(source, stale, with_payload=True, with_vectors=True)
                    if stale
                    else []
                )
        points = [_moved(p, drop, promote, model) for p in page]
        if points:
            with conn.writing() as client:
                client.upsert(target, points)
        copied += len(points)
        if offset is None:
            return copied


def rebuild_collection(
    conn: QdrantConnection,
    legs: dict[str, int],
    *,
    drop: str | None,
    dense_dim: int | None = None,
    promote: str | None = None,
    model: str | None = None,
) -> int:
    """Rebuild ``conn.memories`` with extra legs ``legs`` (name -> dim), resumably.

    Args:
        conn: the store's connection (the memories collection must exist, or nothing is done).
        legs: every extra leg the new collection declares.
        drop: the leg whose old vectors are not copied.
        dense_dim: size of the new ``dense`` vector (default: the recorded dimension).
        promote: a leg whose vectors become the ``dense`` ones (the primary switch).
        model: with ``promote``, the ``embedding_model`` every promoted point gets.

    Returns:
        Points in the rebuilt collection.
    """
    temp = f"{conn.memories}_rebuild"
    dim = dense_dim or conn.dim()
    if dim is None:
        return 0
    plan: dict[str, Any] = {"legs": legs, "dense_dim": dim, "promote": promote, "model": model}
    phase = _phase(conn)
    with conn.reading() as client:
        temp_exists = client.collection_exists(temp)
        original_exists = client.collection_exists(conn.memories)
    if phase != "copied":
        if not original_exists:
            return 0
        _set_phase(conn, "copying", plan)
        with conn.writing() as client:
            if temp_exists:
                client.delete_collection(temp)
            create_memories_collection(client, temp, dim, conn.local, conn.layout, legs)
        _copy(conn, conn.memories, temp, drop, promote, model)
        _copy(conn, conn.memories, temp, drop, promote, model, stale_only=True)  # writes meanwhile
        _set_phase(conn, "copied", plan)
    with conn.writing() as client:
        if client.collection_exists(conn.memories):
            client.delete_collection(conn.memories)
        create_memories_collection(client, conn.memories, dim, conn.local, conn.layout, legs)
    total = _copy(conn, temp, conn.memories, None)
    with conn.writing() as client:
        client.delete_collection(temp)
    _set_phase(conn, None, plan)
    return total


def finish_pending_rebuild(conn: QdrantConnection) -> bool:
    """Finish a rebuild whose copy was complete when its run stopped (opening the store); a
    rebuild still ``copying`` is left for ``memory-engine reembed`` (the original is intact).
    Returns True when one was finished."""
    with conn.reading() as client:
        rows = client.retrieve(conn.meta, [_MARKER_ID])
    payload = (rows[0].payload or {}) if rows else {}
    if payload.get("phase") != "copied":
        return False
    legs = {str(k): int(v) for k, v in (payload.get("legs") or {}).items()}
    rebuild_collection(conn, legs, drop=None, dense_dim=payload.get("dense_dim"))
    if payload.get("promote") and payload.get("model"):
        conn.record_embedding(str(payload["model"]), int(payload["dense_dim"]))
    return True
