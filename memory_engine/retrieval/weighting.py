"""Weighting stage: memory type by task type, times the retention/recency hook.

``final(d) = score(d) * type_weight(task_type, d.memory_type) * retention(d)``, where ``score``
is the previous stage's score (``session``, ``rerank`` or ``fused``), ``type_weight`` comes
from :data:`TASK_TYPE_WEIGHTS` and ``retention`` from the caller's weight function (the engine
plugs in ``scoring.py``; without one it is 1.0). Scores are >= 0 here, so weights > 1 move a
memory up and weights < 1 move it down.

Task types and their weights (documented in README "Retrieval"):

================  ========  ========  ==========
task_type         episodic  semantic  procedural
================  ========  ========  ==========
(none), general   1.0       1.0       1.0
consultation      1.3       1.0       0.8
knowledge_qa      0.8       1.3       1.0
workflow          0.8       1.0       1.3
================  ========  ========  ==========

Consultation (advice on the user's situation) leans on what happened (episodic), knowledge QA on
what is true (semantic), a workflow on how things are done (procedural).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime

from memory_engine.config.retrieval import TASK_TYPES
from memory_engine.models import Memory, MemoryType
from memory_engine.retrieval.records import Hit, Scored
from memory_engine.scoring import RetentionParams, retention

__all__ = [
    "TASK_TYPES",
    "TASK_TYPE_WEIGHTS",
    "WeightFn",
    "apply_weights",
    "retention_weight_fn",
    "type_weight",
]

#: A retention/recency weight (>= 0) for one memory; the hook for ``scoring.py``.
WeightFn = Callable[[Memory], float]

TASK_TYPE_WEIGHTS: dict[str, dict[MemoryType, float]] = {
    "general": {MemoryType.EPISODIC: 1.0, MemoryType.SEMANTIC: 1.0, MemoryType.PROCEDURAL: 1.0},
    "consultation": {
        MemoryType.EPISODIC: 1.3,
        MemoryType.SEMANTIC: 1.0,
        MemoryType.PROCEDURAL: 0.8,
    },
    "knowledge_qa": {
        MemoryType.EPISODIC: 0.8,
        MemoryType.SEMANTIC: 1.3,
        MemoryType.PROCEDURAL: 1.0,
    },
    "workflow": {MemoryType.EPISODIC: 0.8, MemoryType.SEMANTIC: 1.0, MemoryType.PROCEDURAL: 1.3},
}
if tuple(TASK_TYPE_WEIGHTS) != TASK_TYPES:  # one list of task types, declared in config
    raise ImportError("TASK_TYPE_WEIGHTS and config.retrieval.TASK_TYPES disagree")


def type_weight(task_type: str | None, memory_type: MemoryType) -> float:
    """Weight of ``memory_type`` for ``task_type`` (None = general). Raises ValueError when the
    task type is unknown."""
    if task_type is None:
        return 1.0
    table = TASK_TYPE_WEIGHTS.get(task_type)
    if table is None:
        raise ValueError(f"unknown task_type {task_type!r}; known: {', '.join(TASK_TYPES)}")
    return table[memory_type]


def retention_weight_fn(share: float, params: RetentionParams, now: datetime) -> WeightFn:
    """The engine's retention hook: ``weight(d) = 1 - share + share * min(1, retention(d, now))``.

    Args:
        share: in [0, 1]; 0 gives 1.0 for every memory, 1 multiplies by the retention score
            itself (capped at 1, so the ``decay`` preset's access bonus cannot push a memory
            above a fresh one by more than its own importance allows).
        params: the retention preset and its half-life (``scoring.RetentionParams``).
        now: the clock (UTC) ages are measured to.

    Returns:
        A function memory -> weight in [1 - share, 1].

    Raises:
        ValueError: ``share`` outside [0, 1].
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"retention share must be in [0, 1], got {share!r}")

    def weight(memory: Memory) -> float:
        return 1.0 - share + share * min(1.0, max(0.0, retention(memory, now, params)))

    return weight


def apply_weights(
    candidates: Sequence[Scored],
    *,
    score_key: str,
    task_type: str | None = None,
    weight_fn: WeightFn | None = None,
) -> list[Hit]:
    """Weight and re-sort candidates.

    Args:
        candidates: best first, each with ``scores[score_key]`` >= 0.
        score_key: the previous stage's score.
        task_type: one of :data:`TASK_TYPES` or None.
        weight_fn: retention/recency weight per memory (None = 1.0 for all); a negative or
            non-finite result is refused.

    Returns:
        Candidates with ``scores["type_weight"]``, ``scores["retention"]``, ``scores["final"]``
        and ``ranks["weighted"]``, sorted by ``final`` descending (ties keep the input order).

    Raises:
        ValueError: unknown task type, or ``weight_fn`` returned a negative/non-finite weight.
    """
    weighted: list[dict[str, float]] = []
    for c in candidates:
        tw = type_weight(task_type, c.memory.memory_type)
        rw = 1.0 if weight_fn is None else float(weight_fn(c.memory))
        if not rw >= 0.0 or rw == float("inf"):
            raise ValueError(f"weight function returned {rw!r} for memory {c.memory.id}")
        base = c.scores.get(score_key, 0.0)
        weighted.append({**c.scores, "type_weight": tw, "retention": rw, "final": base * tw * rw})
    order = sorted(range(len(weighted)), key=lambda i: -weighted[i]["final"])
    return [  # one new record each (a search weighs ~100)
        Hit(candidates[i].memory, weighted[i], {**candidates[i].ranks, "weighted": r})
        for r, i in enumerate(order, start=1)
    ]
