"""Names, kinds and directions of every score a search writes into its trace.

Every score in ``Candidate.scores`` / ``TraceCandidate.scores`` is keyed by one of the names
below, and every one is "higher is better" (docs/architecture.md#data-model). A store or stage that would
produce a lower-is-better number (a distance) converts it before writing it. The dashboard
labels columns with :func:`score_label` (e.g. ``cosine ↑``); ``tests/retrieval/test_retrieval_stages``
checks that traces of every store and stage use only these names.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

__all__ = ["SCORE_KINDS", "ScoreKind", "score_label"]


class ScoreKind(NamedTuple):
    """What one score is: the stage that writes it, its range, and its direction."""

    stage: str
    meaning: str
    range: str
    direction: Literal["higher is better", "lower is better"]


SCORE_KINDS: dict[str, ScoreKind] = {
    "cosine": ScoreKind(
        "dense", "cosine similarity of query and memory vectors", "[-1, 1]", "higher is better"
    ),
    "cosine_ml": ScoreKind(
        "dense_ml",
        "cosine similarity of query and memory vectors of the multilingual dense leg",
        "[-1, 1]",
        "higher is better",
    ),
    "bm25": ScoreKind(
        "keyword", "BM25 (k1=1.2, b=0.75) over CJK-aware terms", "[0, inf)", "higher is better"
    ),
    "coverage": ScoreKind(
        "threshold",
        "share of the query's distinct keyword terms the memory holds (relevance floor)",
        "[0, 1]",
        "higher is better",
    ),
    "rrf": ScoreKind(
        "fuse",
        "reciprocal rank fusion, sum of 1/(rrf_k + rank)",
        "(0, legs/(rrf_k+1)]",
        "higher is better",
    ),
    "fused": ScoreKind(
        "fuse",
        "score the fusion method ranks by (rrf, or weighted z-score / "
        "min-max of the legs' scores rescaled to [0, 1])",
        "[0, inf)",
        "higher is better",
    ),
    "session": ScoreKind(
        "session",
        "fused score plus the weighted fused scores of the memory's "
        "neighbouring turns in the same session",
        "[0, inf)",
        "higher is better",
    ),
    "rerank": ScoreKind(
        "rerank", "reranker relevance (cross-encoder or LLM)", "model-defined", "higher is better"
    ),
    "type_weight": ScoreKind(
        "weight", "memory-type weight for the task type", "(0, inf)", "higher is better"
    ),
    "retention": ScoreKind(
        "weight",
        "retention/recency weight from the weight hook (1.0 when none)",
        "[0, inf)",
        "higher is better",
    ),
    "final": ScoreKind(
        "weight", "score the returned order is sorted by", "[0, inf)", "higher is better"
    ),
}


def score_label(name: str) -> str:
    """Column label of a score: ``"cosine ↑"``; unknown names get ``"?"`` instead of an arrow."""
    kind = SCORE_KINDS.get(name)
    if kind is None:
        return f"{name} ?"
    return f"{name} {'↑' if kind.direction == 'higher is better' else '↓'}"
