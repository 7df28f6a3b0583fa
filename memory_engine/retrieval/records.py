"""The candidate records the search stages pass to each other (docs/architecture.md#search-pipeline).

A search makes about 900 candidates on its way through the stages: three legs of up to 50 rows,
then one new candidate per memory at each of fusion, session smoothing, weighting and the
relevance floor. As validated pydantic models (``models.Candidate``, frozen) they cost about
4 µs each, 3-4 ms of a search; a slotted dataclass costs well under 1 µs. So:

* the store's legs return ``models.Candidate`` (the public ``SearchIndex`` contract);
* inside :func:`pipeline.run_search` every stage takes any :class:`Scored` and returns
  :class:`Hit` records;
* only what a search hands out is a pydantic model again: the returned memories
  (``models.Candidate``, with ``ranks["final"]`` and ``flags``) and the trace's
  ``TraceCandidate`` summaries.

A :class:`Hit` is never changed after it is made: a stage that adds a score or a rank makes a
new one with new ``scores``/``ranks`` dicts (earlier stages' records, kept in the trace's legs,
must not see later scores). Two hits may share one dict when neither adds anything to it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Protocol

from memory_engine.models import Candidate, Memory

__all__ = ["Hit", "Scored", "to_candidate"]


class Scored(Protocol):
    """What a stage reads of a candidate: a ``models.Candidate`` or a :class:`Hit`.

    ``scores`` names each score by kind, all "higher is better" (``retrieval.scores``);
    ``ranks`` are 1-based positions per leg and stage.
    """

    @property
    def memory(self) -> Memory: ...

    @property
    def scores(self) -> Mapping[str, float]: ...

    @property
    def ranks(self) -> Mapping[str, int]: ...


@dataclass(slots=True, eq=False)
class Hit:
    """One memory at one stage of a search: its scores and ranks so far (see module docstring).

    Attributes:
        memory: the memory as the leg returned it.
        scores: score kind -> value (``cosine`` in [-1, 1], ``bm25`` >= 0, ``rrf``, ``fused``,
            ``session``, ``final``, ...), higher is better.
        ranks: leg or stage name -> 1-based position.
        flags: the injection-screening rules the memory is flagged for (returned ones only).
    """

    memory: Memory
    scores: Mapping[str, float]
    ranks: Mapping[str, int]
    flags: tuple[str, ...] = ()


def to_candidate(hit: Scored, *, ranks: Mapping[str, int], flags: tuple[str, ...]) -> Candidate:
    """The public record of a returned memory: ``hit``'s memory and scores with ``ranks``
    (its ranks plus ``final``) and ``flags``."""
    return Candidate(memory=hit.memory, scores=dict(hit.scores), ranks=dict(ranks), flags=flags)
