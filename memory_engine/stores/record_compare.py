"""Comparing two records of one memory id, as copied between stores (``memory-engine copy``
verification, the conformance suite): which fields, vectors, keyword terms and events differ."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

import numpy as np

from memory_engine.models import Event
from memory_engine.stores.base import MemoryRecord


def _event_key(event: Event) -> dict[str, Any]:
    return event.model_dump(mode="json", exclude={"id"})


def _same_direction(a: Sequence[float], b: Sequence[float], atol: float) -> bool:
    """Whether two vectors point the same way: unit-normalised, equal within ``atol`` per
    component. Both stores search by cosine, and Qdrant may keep a vector normalised (its
    server does; local mode until it is reopened), so the norm is not data."""
    va, vb = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    if va.shape != vb.shape:
        return False
    na, nb = float(np.linalg.norm(va)), float(np.linalg.norm(vb))
    if na == 0.0 or nb == 0.0:
        return na == nb
    return bool(np.allclose(va / na, vb / nb, atol=atol, rtol=0))


def record_differences(a: MemoryRecord, b: MemoryRecord, *, atol: float = 1e-6) -> list[str]:
    """Names of what differs between two records of one memory id (empty when equal).

    Compared: every memory field (id, version, status, timestamps, ...), the vector's direction
    (unit-normalised, within ``atol`` per component), each extra leg's vector the same way
    (``legs.<leg> missing`` when only ``a`` has it), the keyword terms as a multiset (when both
    stores kept them) and the event sequence (action, actor, time, snapshots, reason, request id, details; event
    ids are store-local and ignored).
    """
    diffs: list[str] = []
    if (a.memory is None) != (b.memory is None):
        diffs.append("memory missing" if b.memory is None else "memory unexpected")
    elif a.memory is not None and b.memory is not None:
        da, db = a.memory.public_dict(), b.memory.public_dict()
        diffs.extend(f"memory.{k}" for k in sorted(set(da) | set(db)) if da.get(k) != db.get(k))
        if a.embedding is None or b.embedding is None:
            if a.embedding != b.embedding:
                diffs.append("embedding")
        elif not _same_direction(a.embedding, b.embedding, atol):
            diffs.append("embedding")
        if a.terms is not None and b.terms is not None and Counter(a.terms) != Counter(b.terms):
            diffs.append("terms")
        for leg in sorted(set(a.legs) | set(b.legs)):
            va, vb = a.legs.get(leg), b.legs.get(leg)
            if va is None or vb is None:
                diffs.append(f"legs.{leg} {'missing' if vb is None else 'unexpected'}")
            elif not _same_direction(va, vb, atol):
                diffs.append(f"legs.{leg}")
    ea, eb = [_event_key(e) for e in a.events], [_event_key(e) for e in b.events]
    if len(ea) != len(eb):
        diffs.append(f"events ({len(ea)} vs {len(eb)})")
    else:
        diffs.extend(f"events[{i}]" for i, (x, y) in enumerate(zip(ea, eb, strict=True)) if x != y)
    return diffs
