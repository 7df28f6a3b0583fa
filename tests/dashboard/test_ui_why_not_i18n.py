"""The "why not X?" explanation and stage in Chinese (pure: a hand-built trace, no database).
``retrieval.explain.why_not`` explains in English only; the dashboard showed that sentence
on the Chinese page."""

from __future__ import annotations

import re
import uuid

import pytest

from memory_engine.dashboard.frames.retrieval import explanation, stage_name
from memory_engine.models import MemorySource, MemoryType, Scope, Trace, TraceCandidate
from memory_engine.retrieval.explain import why_not

CONFIG = {"k": 1, "min_score": 0.02, "token_budget": 50, "candidates_per_leg": 50}
#: Words of the engine's English sentences that must not reach the Chinese page.
ENGLISH = re.compile(r"[A-Za-z_]{4,}")


def _candidate(
    final: float, rank: int | None, dropped: str | None, **scores: float
) -> TraceCandidate:
    ranks = {"weighted": rank or 2}
    if dropped is None:
        ranks["final"] = rank or 1
    return TraceCandidate(
        memory_id=uuid.uuid4(),
        content="王伟喜欢喝乌龙茶",
        memory_type=MemoryType.EPISODIC,
        source=MemorySource.CONVERSATION,
        scores={"final": final, **scores},
        ranks=ranks,
        dropped=dropped,
    )


def _trace(*candidates: TraceCandidate) -> Trace:
    return Trace(
        tenant_id="t", scope=Scope.of("t"), query="茶", config=CONFIG, candidates=list(candidates)
    )


@pytest.mark.parametrize(
    "dropped",
    [
        None,
        "below_min_score",
        "below_min_cosine",
        "below_relevance_floor",
        "duplicate_content",
        "near_duplicate",
        "below_top_k",
        "over_token_budget",
    ],
)
def test_explanation_is_chinese_for_every_verdict(dropped: str | None) -> None:
    kept = _candidate(0.9, 1, None, rrf=0.03, cosine=0.8)
    mine = kept if dropped is None else _candidate(0.1, 2, dropped, rrf=0.01, cosine=0.1)
    trace = _trace(kept, mine) if mine is not kept else _trace(kept)
    result = why_not(trace, mine.memory_id)
    zh = explanation(result, trace, "zh")
    words = set(ENGLISH.findall(zh)) - {"token", "min_score"}  # terms the zh UI keeps
    assert zh and not words, zh
    assert not set(ENGLISH.findall(stage_name(result.stage, "zh"))) - {"token"}, result.stage
    assert explanation(result, trace, "en")


def test_explanation_keeps_the_numbers() -> None:
    kept = _candidate(0.9871, 1, None)
    cut = _candidate(0.0123, 8, "below_top_k")
    trace = _trace(kept, cut)
    zh = explanation(why_not(trace, cut.memory_id), trace, "zh")
    assert "8" in zh and "k = 1" in zh and "0.0123" in zh and "0.9871" in zh
    stranger = explanation(why_not(trace, uuid.uuid4()), trace, "zh")
    assert "50" in stranger
