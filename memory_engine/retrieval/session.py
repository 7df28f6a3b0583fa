"""Session-neighbour smoothing for episodic memories (conversation turns).

A question about a conversation often names one turn while the evidence is the turn before or
after it (the answer to a question, the follow-up to a statement). So a turn's score borrows
from its neighbours in the same session. With ``n(d)`` = the best of
``fused(m) * decay ** (|i_m - i_d| - 1)`` over the turns m of d's session with
``1 <= |i_m - i_d| <= window``:

* ``lift`` (default): ``session(d) = fused(d) + weight * max(0, n(d) - fused(d))``: a turn is
  pulled toward a stronger neighbour and never past it (weight <= 1), and a run of equally
  mediocre turns does not inflate itself;
* ``sum``: ``session(d) = fused(d) + weight * (sum of those neighbour scores)``;

over the fused pool only (a neighbour not recalled by any leg adds nothing). Only episodic
memories with a session id and a turn index take part. The turn index is
``metadata["turn"]`` when it is an int, else the trailing integer of ``source_ref``
(LoCoMo's ``D3:12`` -> 12, ingest stores ``dia_id`` there and ``session_id=<conv>-s<n>``).
Output: ``scores["session"]`` and ``ranks["session"]``; order by ``session`` descending.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from memory_engine.models import Candidate, Memory, MemoryType

__all__ = ["smooth_sessions", "turn_index"]

_TRAILING_INT = re.compile(r"(\d+)\s*$")


def turn_index(memory: Memory) -> int | None:
    """Position of the memory's turn in its session, or None when unknown."""
    turn = memory.metadata.get("turn")
    if isinstance(turn, int) and not isinstance(turn, bool):
        return turn
    if memory.source_ref:
        m = _TRAILING_INT.search(memory.source_ref)
        if m:
            return int(m.group(1))
    return None


def smooth_sessions(
    candidates: Sequence[Candidate],
    *,
    weight: float,
    window: int = 1,
    decay: float = 0.5,
    score_key: str = "fused",
    mode: Literal["lift", "sum"] = "lift",
) -> list[Candidate]:
    """Add neighbour scores (see module docstring) and re-sort.

    Args:
        candidates: fused candidates, each with ``scores[score_key]`` >= 0.
        weight: share of a neighbour's score borrowed (>= 0; 0 = stage off, order kept).
        window: neighbours on each side (>= 1).
        decay: factor per extra step of distance, in [0, 1].
        score_key: the score to smooth.
        mode: ``lift`` or ``sum`` (see module docstring).

    Returns:
        The candidates with ``scores["session"]`` and ``ranks["session"]``, best first (ties
        keep the input order).

    Raises:
        ValueError: negative weight, window < 1 or decay outside [0, 1].
    """
    if weight < 0 or window < 1 or not 0.0 <= decay <= 1.0:
        raise ValueError("need weight >= 0, window >= 1 and 0 <= decay <= 1")
    base = [c.scores.get(score_key, 0.0) for c in candidates]
    positions: dict[str, dict[int, float]] = defaultdict(dict)
    keys: list[tuple[str, int] | None] = []
    for c, s in zip(candidates, base, strict=True):
        m = c.memory
        idx = turn_index(m) if m.memory_type == MemoryType.EPISODIC and m.session_id else None
        if idx is None or m.session_id is None:
            keys.append(None)
            continue
        keys.append((m.session_id, idx))
        positions[m.session_id][idx] = max(s, positions[m.session_id].get(idx, 0.0))
    smoothed = []
    for s, key in zip(base, keys, strict=True):
        extra = 0.0
        if key is not None and weight > 0:
            turns = positions[key[0]]
            near = [
                decay ** (d - 1) * turns.get(key[1] + sign * d, 0.0)
                for d in range(1, window + 1)
                for sign in (-1, 1)
            ]
            extra = sum(near) if mode == "sum" else max(0.0, max(near) - s)
        smoothed.append(s + weight * extra)
    order = sorted(range(len(candidates)), key=lambda i: -smoothed[i])
    return [
        Candidate(
            memory=candidates[i].memory,
            scores={**candidates[i].scores, "session": smoothed[i]},
            ranks={**candidates[i].ranks, "session": r},
        )
        for r, i in enumerate(order, start=1)
    ]
