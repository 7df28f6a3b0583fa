"""Session-neighbour smoothing of conversation turns (explicit session id and turn index).

A question about a conversation often names one turn while the evidence is the turn before or
after it (the answer to a question, the follow-up to a statement). So a turn's score borrows
from its neighbours in the same session. With ``n(d)`` = the best of
``fused(m) * decay ** (|i_m - i_d| - 1)`` over the turns m of d's session with
``1 <= |i_m - i_d| <= window``:

* ``lift`` (default): ``session(d) = fused(d) + weight * max(0, n(d) - fused(d))``: a turn is
  pulled toward a stronger neighbour and never past it (weight <= 1), and a run of equally
  mediocre turns does not inflate itself;
* ``sum``: ``session(d) = fused(d) + weight * (sum of those neighbour scores)``;

over the fused pool only (a neighbour not recalled by any leg adds nothing). Only memories with
an *explicit* conversation structure take part: a ``session_id`` and a turn index in
``metadata["turn"]`` (``models.TURN_KEY``, an int), of any memory type (facts extracted from a
turn carry its session and index). The turn is never parsed from ``source_ref``, tags or
content: ``JIRA-101``, ``p3`` or ``section 4.2`` are references, not turns. One legacy shape is
read too: rows the LoCoMo importer stored before it wrote ``metadata["turn"]`` (``metadata
["session"] == n``, ``session_id`` ending in ``-s<n>`` and ``source_ref`` exactly ``D<n>:<i>``
-> turn ``i``): all three marks of that importer together, never a free-form reference.
Output: ``scores["session"]`` and ``ranks["session"]``; order by ``session`` descending.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Sequence
from typing import Literal

from memory_engine.models import Memory, explicit_turn
from memory_engine.retrieval.records import Hit, Scored

__all__ = ["smooth_sessions", "turn_index"]


def _legacy_locomo_turn(memory: Memory) -> int | None:
    """Turn ``i`` of a row the LoCoMo importer wrote before explicit turns (module docstring)."""
    n = memory.metadata.get("session")
    if not isinstance(n, int) or isinstance(n, bool) or not memory.source_ref:
        return None
    if not (memory.session_id or "").endswith(f"-s{n}"):
        return None
    m = re.fullmatch(rf"D{n}:(\d{{1,9}})", memory.source_ref)
    return int(m.group(1)) if m else None


def turn_index(memory: Memory) -> int | None:
    """Position of the memory's turn in its session (explicit structure only), else None.

    Returns None for a memory without a session id, and for one whose only number is in a
    free-form reference (``source_ref="JIRA-101"``).
    """
    if not memory.session_id:
        return None
    turn = explicit_turn(memory.metadata)
    return turn if turn is not None else _legacy_locomo_turn(memory)


def smooth_sessions(
    candidates: Sequence[Scored],
    *,
    weight: float,
    window: int = 1,
    decay: float = 0.5,
    score_key: str = "fused",
    mode: Literal["lift", "sum"] = "lift",
) -> list[Hit]:
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
        idx = turn_index(m)
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
        Hit(
            candidates[i].memory,
            {**candidates[i].scores, "session": smoothed[i]},
            {**candidates[i].ranks, "session": r},
        )
        for r, i in enumerate(order, start=1)
    ]
