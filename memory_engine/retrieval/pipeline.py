"""Search pipeline: scope -> dense + keyword recall -> RRF -> threshold -> dedupe -> top-k ->
token budget -> memory block. Every stage writes into the ``Trace`` (DESIGN.md section 6).
"""

from __future__ import annotations

import logging
import time
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memory_engine import text as textmod
from memory_engine.embedding.base import Embedder
from memory_engine.models import (
    Candidate,
    MemoryStatus,
    Scope,
    SearchResult,
    Trace,
    TraceCandidate,
)
from memory_engine.retrieval.block import format_line, render_block
from memory_engine.retrieval.fusion import rrf_fuse
from memory_engine.stores.base import MemoryStore

log = logging.getLogger(__name__)

Leg = Literal["dense", "keyword"]

DROP_MIN_SCORE = "below_min_score"
DROP_MIN_COSINE = "below_min_cosine"
DROP_DUPLICATE = "duplicate_content"
DROP_TOP_K = "below_top_k"
DROP_BUDGET = "over_token_budget"


class SearchOptions(BaseModel):
    """One search's configuration; stored in the trace so a search can be replayed.

    Attributes:
        k: memories returned, 1..search_max_k.
        legs: retrieval legs to run.
        candidates_per_leg: recall depth of each leg before fusion.
        rrf_k: RRF constant.
        min_score: drop fused candidates with ``rrf`` below this (>= 0).
        min_cosine: drop candidates found only by the dense leg with cosine below this.
        token_budget: max tokens of the block (cl100k); 0 = unlimited.
        statuses: statuses searched (default active only).
    """

    model_config = ConfigDict(frozen=True)

    k: int = Field(10, ge=1, le=1000)
    legs: tuple[Leg, ...] = ("dense", "keyword")
    candidates_per_leg: int = Field(50, ge=1, le=1000)
    rrf_k: int = Field(60, ge=1)
    min_score: float = Field(0.0, ge=0.0)
    min_cosine: float = Field(-1.0, ge=-1.0, le=1.0)
    token_budget: int = Field(2000, ge=0)
    statuses: tuple[MemoryStatus, ...] = (MemoryStatus.ACTIVE,)


def _summarise(c: Candidate, dropped: str | None = None) -> TraceCandidate:
    m = c.memory
    return TraceCandidate(
        memory_id=m.id,
        content=m.content,
        memory_type=m.memory_type,
        source=m.source,
        observed_at=m.observed_at,
        created_at=m.created_at,
        scores=dict(c.scores),
        ranks=dict(c.ranks),
        dropped=dropped,
    )


def run_search(
    query: str,
    *,
    scope: Scope,
    options: SearchOptions,
    store: MemoryStore,
    embedder: Embedder | None,
) -> SearchResult:
    """Run one traced hybrid search. ``embedder`` may be None only without the dense leg."""
    timings: dict[str, float] = {}
    warnings: list[str] = []
    legs: dict[str, list[Candidate]] = {}
    t_all = time.perf_counter()

    t0 = time.perf_counter()
    terms = textmod.query_terms(query)
    timings["terms"] = (time.perf_counter() - t0) * 1000
    # Each leg recalls at least k candidates, so a large k is never silently capped.
    depth = max(options.candidates_per_leg, options.k)
    if "dense" in options.legs and embedder is not None:
        t0 = time.perf_counter()
        vector = embedder.embed([query])[0]
        timings["embed_query"] = (time.perf_counter() - t0) * 1000
        t0 = time.perf_counter()
        legs["dense"] = store.dense_search(vector, scope=scope, k=depth, statuses=options.statuses)
        timings["dense"] = (time.perf_counter() - t0) * 1000
    if "keyword" in options.legs:
        t0 = time.perf_counter()
        if terms:
            legs["keyword"] = store.keyword_search(
                terms, scope=scope, k=depth, statuses=options.statuses
            )
        else:
            legs["keyword"] = []
            warnings.append("query has no keyword terms; keyword leg skipped")
        timings["keyword"] = (time.perf_counter() - t0) * 1000
    # Defence in depth: no leg may hold another tenant's row (FAILURES.md section 1).
    for name, cands in legs.items():
        for c in cands:
            if c.memory.tenant_id != scope.tenant_id:
                raise AssertionError(f"leg {name} returned a memory of another tenant")

    t0 = time.perf_counter()
    ranked_legs = {
        name: [
            Candidate(memory=c.memory, scores=c.scores, ranks={**c.ranks, name: i})
            for i, c in enumerate(cands, start=1)
        ]
        for name, cands in legs.items()
    }
    fused = rrf_fuse(ranked_legs, k=options.rrf_k)
    timings["fuse"] = (time.perf_counter() - t0) * 1000

    t0 = time.perf_counter()
    kept: list[Candidate] = []
    dropped: list[TraceCandidate] = []
    seen_hashes: set[str] = set()
    for c in fused:
        reason = None
        if c.scores["rrf"] < options.min_score:
            reason = DROP_MIN_SCORE
        elif (
            set(c.ranks) <= {"dense", "fused"} and c.scores.get("cosine", 1.0) < options.min_cosine
        ):
            reason = DROP_MIN_COSINE
        elif c.memory.content_hash and c.memory.content_hash in seen_hashes:
            reason = DROP_DUPLICATE
        if reason:
            dropped.append(_summarise(c, reason))
            continue
        if c.memory.content_hash:
            seen_hashes.add(c.memory.content_hash)
        kept.append(c)

    returned: list[Candidate] = []
    budget_used = textmod.count_tokens(render_block([]))
    for c in kept:
        if len(returned) >= options.k:
            dropped.append(_summarise(c, DROP_TOP_K))
            continue
        line_tokens = textmod.count_tokens(format_line(len(returned) + 1, c.memory)) + 1
        if options.token_budget and budget_used + line_tokens > options.token_budget:
            dropped.append(_summarise(c, DROP_BUDGET))
            continue
        budget_used += line_tokens
        returned.append(
            Candidate(
                memory=c.memory,
                scores=c.scores,
                ranks={**c.ranks, "final": len(returned) + 1},
            )
        )
    timings["select"] = (time.perf_counter() - t0) * 1000
    block = render_block([c.memory for c in returned])
    timings["total"] = (time.perf_counter() - t_all) * 1000

    trace_candidates = [_summarise(c) for c in returned] + dropped
    trace = Trace(
        tenant_id=scope.tenant_id,
        scope=scope,
        query=query,
        config=options.model_dump(mode="json"),
        embedding_model=embedder.model_name if embedder and "dense" in legs else None,
        query_terms=tuple(terms),
        legs={name: [_summarise(c) for c in cands] for name, cands in ranked_legs.items()},
        candidates=trace_candidates,
        block=block,
        timings_ms={k: round(v, 3) for k, v in timings.items()},
        warnings=warnings,
    )
    return SearchResult(memories=returned, block=block, trace=trace)


def delta_rank(candidate: TraceCandidate) -> int | None:
    """Best single-leg rank minus final rank (positive: fusion moved it up); None if dropped."""
    final = candidate.ranks.get("final")
    leg_ranks = [r for name, r in candidate.ranks.items() if name in ("dense", "keyword")]
    if final is None or not leg_ranks:
        return None
    return min(leg_ranks) - final


def legs_of(candidates: Sequence[TraceCandidate]) -> set[str]:
    """Names of the legs that produced any of ``candidates``."""
    return {name for c in candidates for name in c.ranks if name in ("dense", "keyword")}
