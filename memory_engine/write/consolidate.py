"""Consolidation: merge clusters of near-duplicate active memories into one (LLM or rules).

Per cluster (same memory type and same user/agent/session ids, cosine >= ``similarity`` to the
cluster's first member, greedy in creation order): the LLM merges the contents (oldest first;
the rules provider keeps the latest), the newest member survives with the merged content and
``metadata.merged_from`` (provenance), and every other member becomes ``superseded`` with
``superseded_by`` = the survivor (event action ``merge``).

Never overwrites a memory changed while it ran: every update names the version read at the
start; a member changed since (VersionConflictError) is left as it is and reported. The others
are superseded first and the survivor is updated last, so a failure leaves the survivor
active: a merge never ends with zero memories on the subject.
"""

from __future__ import annotations

import threading
import uuid
from typing import Any

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from memory_engine import text as textmod
from memory_engine.embedding.base import Embedder
from memory_engine.entities import memory_terms
from memory_engine.errors import MemoryEngineError, VersionConflictError
from memory_engine.llm.base import WriteLLM
from memory_engine.models import Memory, MemoryFilter, MemoryStatus, Scope
from memory_engine.stores.base import MemoryStore


class ConsolidationReport(BaseModel):
    """What one consolidation run did (or would do, in a dry run)."""

    model_config = ConfigDict(frozen=True)

    scanned: int
    truncated: bool
    dry_run: bool
    clusters: list[dict[str, Any]] = Field(default_factory=list)
    merged: int = 0
    conflicts: list[dict[str, Any]] = Field(default_factory=list)


def _group_key(m: Memory) -> tuple[Any, ...]:
    return (m.memory_type, m.user_id, m.agent_id, m.session_id)


def find_clusters(mems: list[Memory], vectors: np.ndarray, similarity: float) -> list[list[int]]:
    """Greedy clusters (indexes into ``mems``, oldest first) of size >= 2.

    Args:
        vectors: unit vectors, one row per memory.
        similarity: least cosine to the cluster's first member.
    """
    order = sorted(range(len(mems)), key=lambda i: (mems[i].created_at, str(mems[i].id)))
    taken: set[int] = set()
    clusters = []
    for pos, i in enumerate(order):
        if i in taken:
            continue
        members = [i]
        for j in order[pos + 1 :]:
            if j in taken or _group_key(mems[j]) != _group_key(mems[i]):
                continue
            if float(vectors[i] @ vectors[j]) >= similarity:
                members.append(j)
        if len(members) > 1:
            taken.update(members)
            clusters.append(members)
    return clusters


def consolidate(
    *,
    scope: Scope,
    store: MemoryStore,
    embedder: Embedder,
    llm: WriteLLM,
    limit: threading.BoundedSemaphore,
    similarity: float,
    max_memories: int,
    page_size: int,
    actor: str,
    dry_run: bool = False,
) -> ConsolidationReport:
    """Merge near-duplicate clusters of the scope's active memories (see module docstring).

    Args:
        similarity: cosine in [-1, 1] from which two memories are near-duplicates.
        max_memories: most active memories read (newest first); ``truncated`` says when more
            exist.

    Raises:
        EmbeddingError, StoreError: lower layers failed (clusters already merged stay merged).
    """
    mems: list[Memory] = []
    cursor = None
    filters = MemoryFilter(statuses=(MemoryStatus.ACTIVE,))
    while len(mems) < max_memories:
        page = store.list(
            scope=scope,
            filters=filters,
            limit=min(page_size, max_memories - len(mems)),
            cursor=cursor,
        )
        mems.extend(page.items)
        cursor = page.next_cursor
        if cursor is None:
            break
    report: dict[str, Any] = {
        "scanned": len(mems),
        "truncated": cursor is not None,
        "dry_run": dry_run,
        "clusters": [],
        "conflicts": [],
        "merged": 0,
    }
    if len(mems) < 2:
        return ConsolidationReport(**report)
    with limit:
        vectors = np.asarray(embedder.embed([m.content for m in mems]), dtype=np.float32)
    vectors /= np.maximum(np.linalg.norm(vectors, axis=1, keepdims=True), 1e-9)
    for members in find_clusters(mems, vectors, similarity):
        cluster = [mems[i] for i in members]
        with limit:
            merged, call = llm.merge([m.content for m in cluster])
        entry: dict[str, Any] = {
            "members": [str(m.id) for m in cluster],
            "contents": [m.content for m in cluster],
            "merged": merged,
            "survivor": str(cluster[-1].id),
            "llm": {"provider": call.provider, "latency_ms": round(call.latency_ms, 1)},
        }
        report["clusters"].append(entry)
        if not dry_run:
            report["merged"] += _apply(store, embedder, scope, cluster, merged, actor, report)
    return ConsolidationReport(**report)


def _apply(
    store: MemoryStore,
    embedder: Embedder,
    scope: Scope,
    cluster: list[Memory],
    merged: str,
    actor: str,
    report: dict[str, Any],
) -> int:
    """Supersede the older members, then update the survivor; returns members superseded."""
    survivor, older = cluster[-1], cluster[:-1]
    request_id = f"consolidate-{uuid.uuid4().hex[:12]}"
    done: list[str] = []
    for m in older:
        try:
            store.update(
                m.id,
                scope=scope,
                expected_version=m.version,
                changes={"status": MemoryStatus.SUPERSEDED, "superseded_by": survivor.id},
                actor=actor,
                reason=f"merged into {survivor.id}",
                action="merge",
                request_id=request_id,
            )
            done.append(str(m.id))
        except (VersionConflictError, MemoryEngineError) as exc:
            report["conflicts"].append({"memory_id": str(m.id), "error": exc.to_dict()})
    if not done:
        return 0
    changes: dict[str, Any] = {
        "metadata": {
            **survivor.metadata,
            "merged_from": list(survivor.metadata.get("merged_from", [])) + done,
        },
        "confidence": max(m.confidence for m in cluster),
        "importance": max(m.importance for m in cluster),
    }
    embedding = terms = None
    if merged.strip() and merged != survivor.content:
        changes.update(content=merged, content_hash=textmod.content_hash(merged))
        embedding = embedder.embed([merged])[0]
        terms = memory_terms(merged, survivor.entities)
    try:
        store.update(
            survivor.id,
            scope=scope,
            expected_version=survivor.version,
            changes=changes,
            embedding=embedding,
            terms=terms,
            actor=actor,
            reason=f"merged {len(done)} near-duplicate(s)",
            action="merge",
            request_id=request_id,
        )
    except (VersionConflictError, MemoryEngineError) as exc:
        report["conflicts"].append({"memory_id": str(survivor.id), "error": exc.to_dict()})
    return len(done)
