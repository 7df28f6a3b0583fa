"""Query expansion: a composite query from recent turns, plus an optional expander (LLM seam).

* Composite query (offline, always on when ``recent_turns`` are given): the last turns of the
  conversation, oldest first, then the current input, cut to ``max_chars`` by dropping the
  oldest turns first (the current input is always kept whole). Both legs search it, so a short
  follow-up ("and what did she say about it?") still finds the subject of the conversation.
* ``Expander``: anything that returns related queries (e.g. 2-3 LLM paraphrases). Each related
  query runs the same legs under the names ``dense@x1``, ``keyword@x1``, ... and is fused with
  the main legs. The LLM implementation lives with the LLM protocol (``memory_engine/llm``);
  this module only defines the seam, so retrieval never depends on an LLM.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

__all__ = ["MAX_EXPANSIONS", "Expander", "composite_query"]

#: Related queries used at most (each one costs one more round of legs).
MAX_EXPANSIONS = 3


@runtime_checkable
class Expander(Protocol):
    """Returns up to a few related queries (same language as the input), best first."""

    def expand(
        self, query: str, *, task_type: str | None, recent_turns: Sequence[str]
    ) -> list[str]: ...


def composite_query(
    query: str, recent_turns: Sequence[str] = (), *, turns: int = 3, max_chars: int = 1500
) -> str:
    """The query the legs search: the last ``turns`` recent turns, then ``query``.

    Args:
        query: the current input (kept whole).
        recent_turns: conversation turns, oldest first; blank ones are skipped.
        turns: at most this many of the latest turns are used (>= 0).
        max_chars: upper bound of the result when the query itself is shorter; older turns
            are dropped first.

    Returns:
        ``query`` alone when there are no usable turns, else the turns and the query joined
        by newlines.
    """
    kept: list[str] = []
    used = len(query)
    for turn in reversed(
        [t.strip() for t in recent_turns if t and t.strip()][-turns:] if turns else []
    ):
        if used + len(turn) + 1 > max_chars:
            break
        kept.append(turn)
        used += len(turn) + 1
    return "\n".join([*reversed(kept), query]) if kept else query
