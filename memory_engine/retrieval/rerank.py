"""Rerank seam: a bounded pool of the best fused candidates is rescored by a ``Reranker``.

No reranker is configured by default: no local cross-encoder model ships with the offline
install (nothing is downloaded), and the LLM reranker belongs with the LLM protocol
(``memory_engine/llm``). Any object with ``rerank(query, texts) -> scores`` plugs in here, e.g.
a sentence-transformers ``CrossEncoder`` loaded from a local path, or an LLM judging relevance.

Only the first ``pool`` candidates (default 20, at most 100) are rescored: a CPU cross-encoder
over a large pool took 100 s in a public report (docs/architecture.md#f11-recall-shortfall). Reranked candidates
are ordered by ``rerank`` and stay ahead of the rest, which keep their order. The trace holds
``scores["rerank"]`` and ``ranks["rerank"]``.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from memory_engine.config.retrieval import MAX_RERANK_POOL
from memory_engine.retrieval.records import Hit, Scored

__all__ = ["MAX_RERANK_POOL", "Reranker", "apply_rerank"]


@runtime_checkable
class Reranker(Protocol):
    """Scores (query, text) pairs; one float per text, higher = more relevant."""

    name: str

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]: ...


def apply_rerank(
    query: str, candidates: Sequence[Scored], *, reranker: Reranker, pool: int
) -> list[Hit]:
    """Rescore the first ``pool`` candidates with ``reranker`` (see module docstring).

    Raises:
        ValueError: ``pool`` outside 1..MAX_RERANK_POOL, or the reranker returned a wrong
            number of scores or a non-finite score.
    """
    if not 1 <= pool <= MAX_RERANK_POOL:
        raise ValueError(f"rerank pool must be in 1..{MAX_RERANK_POOL}")
    head, tail = list(candidates[:pool]), list(candidates[pool:])
    scores = reranker.rerank(query, [c.memory.content for c in head]) if head else []
    if len(scores) != len(head) or not all(math.isfinite(s) for s in scores):
        raise ValueError(f"reranker {reranker.name!r} returned bad scores for {len(head)} texts")
    # rerank scores may be negative (logits); shift so the weighting stage sees values >= 0
    low = min(scores, default=0.0)
    order = sorted(range(len(head)), key=lambda i: -scores[i])
    out = [
        Hit(
            head[i].memory,
            {**head[i].scores, "rerank": scores[i] - min(low, 0.0) + 1e-9},
            {**head[i].ranks, "rerank": r},
        )
        for r, i in enumerate(order, start=1)
    ]
    return out + [Hit(c.memory, {**c.scores, "rerank": 0.0}, dict(c.ranks)) for c in tail]
