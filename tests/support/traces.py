"""Search traces for store tests: one stored candidate, the scope and time the test needs."""

from __future__ import annotations

import uuid
from datetime import datetime

from memory_engine.models import MemorySource, MemoryType, Scope, Trace, TraceCandidate


def one_candidate_trace(
    scope: Scope,
    query: str,
    created_at: datetime,
    *,
    memory_id: uuid.UUID | None = None,
    content: str = "c",
) -> Trace:
    """A trace of ``scope`` for ``query`` made at ``created_at`` (timezone-aware), holding one
    episodic conversation candidate (``memory_id``, new when ``None``) with an RRF score."""
    cand = TraceCandidate(
        memory_id=memory_id or uuid.uuid4(),
        content=content,
        memory_type=MemoryType.EPISODIC,
        source=MemorySource.CONVERSATION,
        scores={"rrf": 0.03},
    )
    return Trace(
        tenant_id=scope.tenant_id,
        scope=scope,
        query=query,
        created_at=created_at,
        candidates=[cand],
    )
