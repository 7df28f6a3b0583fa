"""Block accounting and stale-fact warnings of one search trace (pure, no store access).

Block accounting (:func:`block_accounting`): the memories in the block with the tokens of
each line, then the candidates that just missed, best first, each with the rule that cut it
and what it would take to include it:

* ``k``: out-ranked after the k returned; needs ``k >= position`` (its place among the
  candidates that passed threshold and dedupe);
* ``token_budget``: its line did not fit; needs ``token_budget >= used + its tokens``;
* ``threshold``: its ``rrf`` is below ``min_score`` (needs ``min_score <= rrf``), its cosine
  below the embedder's floor (``min_cosine <= cosine``), or another floor's reason (as is);
* ``dedupe``: a better-ranked memory has the same or nearly the same content (edit or remove
  that one);
* ``status``: a reason naming a status (statuses are filtered inside the legs: a memory of
  another status than ``config["statuses"]`` never enters the pool).

Then per stage the candidates left, the cl100k tokens of their content and the time spent.

Stale facts (:func:`stale_facts`): a returned memory ranked above a memory that replaces it:
its ``superseded_by`` (``superseded``), or a newer non-episodic memory naming one of the same
entities (``same_entity``; conversation turns are events, not facts that go stale).
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from memory_engine import text as textmod
from memory_engine.entities import entity_key
from memory_engine.models import Memory, MemoryStatus, MemoryType, Trace, TraceCandidate
from memory_engine.retrieval.block import format_line
from memory_engine.retrieval.waterfall import DEDUPE_DROPS, Waterfall, trace_candidates, waterfall

__all__ = [
    "BlockAccounting",
    "BlockLine",
    "CutRule",
    "NearMiss",
    "SearchExplanation",
    "StageTotal",
    "StaleFact",
    "block_accounting",
    "explain_search",
    "stale_facts",
]

CutRule = Literal["k", "token_budget", "threshold", "dedupe", "status", "other"]

#: Near misses listed by default.
NEAR_MISSES = 10


class BlockLine(BaseModel):
    """One memory in the block: its line number, id, content and line tokens (cl100k)."""

    model_config = ConfigDict(frozen=True)

    rank: int
    memory_id: uuid.UUID
    content: str
    tokens: int


class NearMiss(BaseModel):
    """A candidate that just missed the block.

    Attributes:
        memory_id, content: the memory.
        rule: what cut it (see the module docstring); ``reason`` is the trace's drop reason.
        final_score: its deciding score (None when never weighted).
        weighted_rank: its rank after weighting (the order selection walks).
        tokens: what its block line would cost (cl100k).
        needs: the setting and the value that would let it in (``{"k": 6}``,
            ``{"token_budget": 812}``, ``{"min_score": 0.0123}``); empty when no setting does
            (dedupe).
    """

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    content: str
    rule: CutRule
    reason: str
    final_score: float | None
    weighted_rank: int | None
    tokens: int
    needs: dict[str, int | float]


class StageTotal(BaseModel):
    """Candidates left after a stage, the tokens of their content and the stage's time (ms;
    None when the trace has no timing for it)."""

    model_config = ConfigDict(frozen=True)

    stage: str
    candidates: int
    tokens: int
    ms: float | None


class BlockAccounting(BaseModel):
    """What went into the block and what just missed it.

    Attributes:
        k, token_budget: the limits searched with (0 = no budget).
        used_tokens: tokens of the whole block (header, fence and lines).
        lines: the block's memories in order.
        near_misses: the next candidates, best first.
        stages: per-stage totals in pipeline order.
        statuses: the statuses the legs searched.
    """

    model_config = ConfigDict(frozen=True)

    k: int | None
    token_budget: int
    used_tokens: int
    lines: list[BlockLine]
    near_misses: list[NearMiss]
    stages: list[StageTotal]
    statuses: list[str]


def _line_tokens(c: TraceCandidate, position: int, tenant_id: str) -> int:
    if c.tokens is not None:
        return c.tokens
    when = {"created_at": c.created_at} if c.created_at is not None else {}
    memory = Memory(
        tenant_id=tenant_id,
        content=c.content,
        memory_type=c.memory_type,
        source=c.source,
        observed_at=c.observed_at,
        **when,
    )
    return textmod.count_tokens(format_line(position, memory)) + 1


def _rule(reason: str) -> CutRule:
    if reason == "below_top_k":
        return "k"
    if reason == "over_token_budget":
        return "token_budget"
    if reason in DEDUPE_DROPS:
        return "dedupe"
    if "status" in reason:
        return "status"
    if reason.startswith("below_") or "floor" in reason or "threshold" in reason:
        return "threshold"
    return "other"


def _needs(
    c: TraceCandidate, rule: CutRule, *, position: int, used: int, tokens: int
) -> dict[str, int | float]:
    if rule == "k":
        return {"k": position}
    if rule == "token_budget":
        return {"token_budget": used + tokens}
    if c.dropped == "below_min_score" and "rrf" in c.scores:
        return {"min_score": c.scores["rrf"]}
    if c.dropped == "below_min_cosine" and "cosine" in c.scores:
        return {"min_cosine": c.scores["cosine"]}
    return {}


_TIMED = (
    ("legs", ("terms", "embed_query", "dense", "keyword")),
    ("fuse", ("fuse", "session", "rerank", "weight")),
    ("threshold+dedupe", ("dedupe",)),
    ("top_k+budget", ("select",)),
)


def block_accounting(trace: Trace, *, near_misses: int = NEAR_MISSES) -> BlockAccounting:
    """The block accounting of ``trace`` (see the module docstring).

    Args:
        trace: a search trace.
        near_misses: how many dropped candidates to list (>= 0), best first.
    """
    pool = trace_candidates(trace)
    returned = [c for c in pool if c.dropped is None and "final" in c.ranks]
    lines = [
        BlockLine(
            rank=c.ranks["final"],
            memory_id=c.memory_id,
            content=c.content,
            tokens=_line_tokens(c, c.ranks["final"], trace.tenant_id),
        )
        for c in returned
    ]
    used = textmod.count_tokens(trace.block)
    position = len(returned)
    misses = []
    for c in [c for c in pool if c.dropped is not None][: max(near_misses, 0)]:
        reason = c.dropped or "other"
        rule = _rule(reason)
        if rule in ("k", "token_budget"):
            position += 1
        tokens = _line_tokens(c, len(returned) + 1, trace.tenant_id)
        misses.append(
            NearMiss(
                memory_id=c.memory_id,
                content=c.content,
                rule=rule,
                reason=reason,
                final_score=c.scores.get("final"),
                weighted_rank=c.ranks.get("weighted"),
                tokens=tokens,
                needs=_needs(c, rule, position=position, used=used, tokens=tokens),
            )
        )

    def tokens_of(cands: Sequence[TraceCandidate]) -> int:
        return sum(textmod.count_tokens(c.content) for c in cands)

    after_threshold = [
        c for c in pool if c.dropped is None or _rule(c.dropped) not in ("threshold", "other")
    ]
    after_dedupe = [c for c in after_threshold if c.dropped is None or _rule(c.dropped) != "dedupe"]
    survivors = {
        "legs": pool,
        "fuse": pool,
        "threshold+dedupe": after_dedupe,
        "top_k+budget": returned,
    }
    stages = []
    for name, keys in _TIMED:
        got = [trace.timings_ms[k] for k in keys if k in trace.timings_ms]
        left = survivors[name]
        stages.append(
            StageTotal(
                stage=name,
                candidates=len(left),
                tokens=tokens_of(left),
                ms=round(sum(got), 3) if got else None,
            )
        )
    stages.append(
        StageTotal(
            stage="block", candidates=len(returned), tokens=used, ms=trace.timings_ms.get("total")
        )
    )
    k = trace.config.get("k")
    return BlockAccounting(
        k=int(k) if k is not None else None,
        token_budget=int(trace.config.get("token_budget") or 0),
        used_tokens=used,
        lines=lines,
        near_misses=misses,
        stages=stages,
        statuses=[str(s) for s in trace.config.get("statuses", [MemoryStatus.ACTIVE.value])],
    )


# ----------------------------------------------------------------------------- stale facts


class StaleFact(BaseModel):
    """A returned memory ranked above the memory that replaces it.

    Attributes:
        kind: ``superseded`` (the older one's ``superseded_by`` is the newer one) or
            ``same_entity`` (an older fact about the same entity).
        entity: the shared entity's name (``same_entity``), else None.
        older_id, older_content, older_score, older_rank: the outranking memory (returned;
            its deciding score and final rank).
        current_id, current_content: the newer memory (content "" when not in the pool).
        current_score, current_rank: its deciding score and final rank (None: not returned,
            or not recalled at all).
        current_dropped: its drop reason when it was in the pool but not returned.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["superseded", "same_entity"]
    entity: str | None
    older_id: uuid.UUID
    older_content: str
    older_score: float | None
    older_rank: int
    current_id: uuid.UUID
    current_content: str
    current_score: float | None
    current_rank: int | None
    current_dropped: str | None


def _when(c: TraceCandidate) -> float:
    at = c.observed_at or c.created_at
    return at.timestamp() if at is not None else float("-inf")


def _order(c: TraceCandidate) -> int:
    return c.ranks.get("final") or 10**6 + c.ranks.get("weighted", 10**6)


def stale_facts(trace: Trace) -> list[StaleFact]:
    """Returned memories that outrank the memory replacing them (see the module docstring);
    one warning per returned memory (its superseding memory first, else the newest memory on
    a shared entity), in final order."""
    pool = trace_candidates(trace)
    by_id = {c.memory_id: c for c in pool}
    keys = {c.memory_id: {entity_key(e): e for e in c.entities if entity_key(e)} for c in pool}
    out: list[StaleFact] = []
    for older in [c for c in pool if c.dropped is None and "final" in c.ranks]:
        current: TraceCandidate | None = None
        kind: Literal["superseded", "same_entity"] = "superseded"
        entity: str | None = None
        newer_id = older.superseded_by
        if newer_id is not None and (
            newer_id not in by_id or _order(by_id[newer_id]) > _order(older)
        ):
            current = by_id.get(newer_id)
            if current is None:
                out.append(_stale(older, None, newer_id, kind, None))
                continue
        elif older.memory_type != MemoryType.EPISODIC and keys[older.memory_id]:
            mine = keys[older.memory_id]
            later = [
                c
                for c in pool
                if c.memory_id != older.memory_id
                and c.memory_type != MemoryType.EPISODIC
                and _when(c) > _when(older)
                and _order(c) > _order(older)
                and set(mine) & set(keys[c.memory_id])
            ]
            if later:
                current = max(later, key=_when)
                kind = "same_entity"
                shared = sorted(set(mine) & set(keys[current.memory_id]))
                entity = mine[shared[0]]
        if current is not None:
            out.append(_stale(older, current, current.memory_id, kind, entity))
    return out


def _stale(
    older: TraceCandidate,
    current: TraceCandidate | None,
    current_id: uuid.UUID,
    kind: Literal["superseded", "same_entity"],
    entity: str | None,
) -> StaleFact:
    return StaleFact(
        kind=kind,
        entity=entity,
        older_id=older.memory_id,
        older_content=older.content,
        older_score=older.scores.get("final"),
        older_rank=older.ranks["final"],
        current_id=current_id,
        current_content=current.content if current else "",
        current_score=current.scores.get("final") if current else None,
        current_rank=current.ranks.get("final") if current else None,
        current_dropped=current.dropped if current else None,
    )


class SearchExplanation(BaseModel):
    """Everything a search did, per candidate: the score waterfall, the block accounting and
    the stale-fact warnings (``search --json``, MCP ``memory_search`` with ``explain=true``)."""

    model_config = ConfigDict(frozen=True)

    waterfall: Waterfall
    block: BlockAccounting
    stale_facts: list[StaleFact]


def explain_search(trace: Trace, *, near_misses: int = NEAR_MISSES) -> SearchExplanation:
    """The :class:`SearchExplanation` of ``trace``."""
    return SearchExplanation(
        waterfall=waterfall(trace),
        block=block_accounting(trace, near_misses=near_misses),
        stale_facts=stale_facts(trace),
    )
