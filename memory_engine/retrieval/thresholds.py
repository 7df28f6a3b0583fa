"""Similarity floors and the relevance floor (not one magic 0.7 for every model).

Two kinds of floor, both calibrated per embedder on the development splits only (LoCoMo
conv-26/30/41/42/43 and MADial user 1; ``bench/locomo.py --dump`` / ``bench/madial.py --dump``
write the candidates they were read from):

* **noise floor** (:data:`CALIBRATED_MIN_COSINE`): cosine scales differ by model
  (all-MiniLM-L6-v2 gives unrelated English sentences ~0.0-0.2, USE-multilingual-v3 ~0.0-0.3,
  OpenAI-style models ~0.1-0.3). A dense-only candidate (no keyword hit) below its embedder's
  floor is noise: each floor is below the 1st percentile of the cosine between a question and
  its gold evidence on both development splits.
* **relevance floor** (:func:`relevance_drops`, on by default: ``retrieval.relevance_floor``):
  the memory block holds memories only when at least one leg *matches* the query: a dense leg
  whose cosine reaches its model's match cosine (:data:`CALIBRATED_MATCH_COSINE`, for a
  Latin-script query :data:`LATIN_MATCH_COSINE` where the model has one, or
  ``retrieval.match_cosine``; lower for long queries, see :func:`match_cosine_for`), or the keyword leg for a memory holding at least
  ``retrieval.match_coverage`` of the query's distinct keyword terms. When nothing matches,
  every candidate is dropped with ``below_relevance_floor`` (the block is empty, the trace
  keeps them and says why); when something matches, candidates with neither a keyword hit
  nor a cosine above the noise floor are dropped the same way. Each match cosine is the
  value at which the no-answer set of the development splits (one tenant's memories against
  the other tenants' queries) gets about 0.5 memories per query while recall drops by at
  most ~1.5 points (numbers in the README's *Retrieval* section). Only the
  best :data:`MATCH_WINDOW` candidates are checked for a match.

Relative, per-tenant floors were measured on the development dumps and do not separate
answered from no-answer queries, so the floor stays absolute: the z-score of a leg's top
cosine within the leg's own candidates (the tenant's background for that query) has the same
median for both (LoCoMo dev MiniLM 3.23 vs 3.17, MADial-zh USE-m3 3.16 vs 2.99), as do the
top-1 minus median margin, the top-1/top-2 gap, the fused score's lead and agreement of the
legs on the top candidate; every cut on them cost more recall per no-answer memory removed
than raising the absolute match cosine. Absolute per-memory floors (replayed on the same dumps)
do no better: keeping, once a query matches, only memories within 0.1-0.3 of a leg's match
cosine or holding 20-50% of the query's terms left LoCoMo dev's no-answer set at 0.76-0.88
memories per query for 0.1-4 points of recall (its no-answer blocks are opened by real
matches: the other conversations' questions about a "John" against a conversation with a
John); dropping the proper-name rule: 0.88 -> 0.70 for -0.65 r@5; a matched-terms count for
long queries (MADial dialogues never reach 0.67 coverage) raised MADial-zh held-out r@5 48.97
-> 57.25 but its no-answer blocks 2.9 -> 7.1. No cross-encoder ships with the install.

Unknown models have neither floor (-1.0 / no match cosine): set ``MEMORY_MIN_COSINE`` and
``MEMORY_MATCH_COSINE`` for them; without a match cosine a dense leg vouches for every
candidate, so the relevance floor then only acts through the keyword leg's candidates.
"""

from __future__ import annotations

import functools
import math
import re
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import NamedTuple

from memory_engine import text as textmod
from memory_engine.retrieval.records import Scored

__all__ = [
    "CALIBRATED_MATCH_COSINE",
    "CALIBRATED_MIN_COSINE",
    "DROP_RELEVANCE",
    "LATIN_MATCH_COSINE",
    "LATIN_SHARE",
    "MATCH_COSINE_PER_DOUBLING",
    "FLOOR_LEG_SHARE",
    "MATCH_WINDOW",
    "VOUCH_LEG_SHARE",
    "SHORT_QUERY_TERMS",
    "FloorVerdict",
    "floor_legs",
    "keyword_coverage",
    "match_cosine_for",
    "memory_terms",
    "min_cosine_for",
    "query_names",
    "relevance_drops",
    "vouching_legs",
]

DROP_RELEVANCE = "below_relevance_floor"

CALIBRATED_MIN_COSINE: dict[str, float] = {
    # gold cosine p1: LoCoMo dev 0.18, MADial-zh dev 0.31 (1,349 / 204 question-evidence pairs)
    "all-MiniLM-L6-v2": 0.15,
    # gold cosine p1: LoCoMo dev 0.07, MADial-zh dev 0.20
    "universal-sentence-encoder-multilingual-3": 0.05,
}

CALIBRATED_MATCH_COSINE: dict[str, float] = {
    # LoCoMo dev (997 questions, 1,000 no-answer queries): r@5/10/25/50 66.82/75.80/82.86/
    # 86.85 -> 65.53/74.33/81.36/85.11 and 10 -> 0.58 memories per no-answer query (0.50:
    # -0.7 points, 0.78; 0.53: -2.0 to -2.7 points, 0.52). MADial-en user 1: ~97% of the gold
    # evidence in the top 10 kept, ~5 memories per no-answer dialogue (its users' memories
    # share topics). MiniLM cannot
    # read Chinese (any two Chinese texts score ~0.5-0.7), so it never closes a Chinese query.
    "all-MiniLM-L6-v2": 0.52,
    # MADial-zh user 1 (59 dialogues, 84 no-answer dialogues): keeps ~97% of the gold
    # evidence in the top 10, ~2.6 memories per no-answer dialogue. Not yet checked on LoCoMo.
    "universal-sentence-encoder-multilingual-3": 0.5,
}

#: Match cosine of a model whose cosines run higher on a query written mostly in Latin
#: script (CJK share below :data:`LATIN_SHARE`) than on a Chinese one, calibrated on the
#: English development splits; it replaces :data:`CALIBRATED_MATCH_COSINE`'s value (set on
#: MADial-zh) for such queries. USE-m3's 0.5 opened the block of 47 of LoCoMo dev's 1,000
#: no-answer queries on its own cosine; 0.55: LoCoMo dev no-answer 0.88 -> 0.79 memories per
#: query with r@5/10/25/50 unchanged (66.62/75.91/82.79/86.57), MADial-en user 1 unchanged
#: (r@5/10 61.34/77.11); 0.58: -0.1 point for 0.78. Kept at 0.5 (no stricter value): 0.55 also
#: drops an English query's cross-language match of a Chinese memory ("peanut allergy" ->
#: 我对花生过敏, cosine between 0.5 and 0.55; tests/retrieval/test_engine_retrieval_stages.py).
LATIN_MATCH_COSINE: dict[str, float] = {
    "universal-sentence-encoder-multilingual-3": 0.5,
}
#: A query whose CJK share (``script.cjk_share``) is below this is a Latin-script query for
#: :data:`LATIN_MATCH_COSINE`.
LATIN_SHARE = 0.5

#: Query length (distinct keyword terms) up to which the match cosine applies unchanged.
SHORT_QUERY_TERMS = 8
#: A long query's cosine to a short memory is lower (mean pooling over more tokens): the
#: match cosine falls by this much per doubling of the query's terms beyond
#: ``SHORT_QUERY_TERMS`` (calibrated on MADial-en user 1: joined dialogues of ~45 terms).
MATCH_COSINE_PER_DOUBLING = 0.05
#: The best this many candidates are checked for a match (the default ``k``), whatever the
#: search's ``k``: a query matches or not independently of how many memories it asks for.
MATCH_WINDOW = 10
#: A dense leg takes part in the relevance floor for a query only when its fusion weight for
#: that query is at least this share of the strongest dense leg's: a leg weighted down for the
#: query's script (MiniLM on a Chinese dialogue whose speaker names are Latin) reads that
#: script badly, and its cosines (any two Chinese texts score ~0.5-0.7 on MiniLM) would vouch
#: for every query. MADial-zh user 1's no-answer set: 9.8 memories per query when MiniLM at
#: weight 0.15 could vouch.
FLOOR_LEG_SHARE = 0.5
#: Of those, a dense leg *vouches* for the query (its match cosine alone lets the block hold
#: memories) only when its weight is at least this share of the strongest dense leg's; a leg
#: between :data:`FLOOR_LEG_SHARE` and this share keeps its candidates above its noise floor
#: but cannot open the block on its own. Equal to :data:`FLOOR_LEG_SHARE` (every floor leg
#: vouches) by default. 0.75 (the multilingual leg, at half the English leg's weight, cannot
#: vouch for an English query) took LoCoMo dev's no-answer set from 0.88 to 0.77 memories per
#: query at -0.1 recall and left MADial-en user 1 unchanged, but cost the held-out MADial-en
#: user 2 3.3 / 4.3 points of r@5 / r@10 (its long dialogue queries often reach only USE-m3's
#: match cosine), so it is not the default.
VOUCH_LEG_SHARE = 0.5


def floor_legs(weights: Mapping[str, float], legs: Collection[str]) -> set[str]:
    """The dense ``legs`` whose match cosine counts for a query: those whose fusion weight for
    it (``weights``, leg -> weight >= 0; a leg missing there weighs 1.0) is positive and at
    least :data:`FLOOR_LEG_SHARE` of the largest weight among ``legs``."""
    return _legs_at_share(weights, legs, FLOOR_LEG_SHARE)


def vouching_legs(weights: Mapping[str, float], legs: Collection[str]) -> set[str]:
    """The dense ``legs`` (normally :func:`floor_legs`'s) whose match cosine alone can open
    the block for a query: weight positive and at least :data:`VOUCH_LEG_SHARE` of the
    largest weight among ``legs`` (``weights`` as in :func:`floor_legs`)."""
    return _legs_at_share(weights, legs, VOUCH_LEG_SHARE)


def _legs_at_share(weights: Mapping[str, float], legs: Collection[str], share: float) -> set[str]:
    weight = {leg: weights.get(leg, 1.0) for leg in legs}
    top = max(weight.values(), default=0.0)
    return {leg for leg, w in weight.items() if w > 0 and w >= share * top}


def min_cosine_for(model_name: str | None, configured: float, *, calibrated: bool) -> float:
    """Effective noise floor: the configured one, raised to the model's calibrated floor when
    ``calibrated`` is true and the model is known."""
    if not calibrated or model_name is None:
        return configured
    return max(configured, CALIBRATED_MIN_COSINE.get(model_name, -1.0))


def match_cosine_for(
    model_name: str | None,
    configured: float | None,
    *,
    query_terms: int = 1,
    cjk_share: float = 1.0,
) -> float | None:
    """Cosine at which a dense leg of ``model_name`` matches a query of ``query_terms``
    distinct keyword terms and CJK share ``cjk_share`` (in [0, 1], ``script.cjk_share``):
    ``configured`` when set, else the calibrated value (:data:`LATIN_MATCH_COSINE`'s for a
    Latin-script query when the model has one, else :data:`CALIBRATED_MATCH_COSINE`'s),
    lowered by :data:`MATCH_COSINE_PER_DOUBLING` per doubling beyond
    :data:`SHORT_QUERY_TERMS`; None for an unknown model without a configured value."""
    base = configured
    if base is None and model_name is not None:
        if cjk_share < LATIN_SHARE:
            base = LATIN_MATCH_COSINE.get(model_name)
        if base is None:
            base = CALIBRATED_MATCH_COSINE.get(model_name)
    if base is None:
        return None
    excess = math.log2(max(query_terms, 1) / SHORT_QUERY_TERMS)
    return base - MATCH_COSINE_PER_DOUBLING * max(0.0, excess)


_WORD_RE = re.compile(r"\b[A-Z][a-z]+(?:['-][A-Za-z]+)*\b")
_SENTENCE_END = ".!?。！？:："
_TITLES = frozenset({"dr", "mr", "mrs", "ms", "prof", "st"})


def query_names(query: str) -> frozenset[str]:
    """Proper names a query mentions, as keyword terms: capitalised Latin words that do not
    start a sentence ("Ann" in "What should I cook for Ann tonight?"). A memory holding every
    one of them matches the query (:func:`relevance_drops`): the question is about whom or
    what it names, however its other words are phrased."""
    names: set[str] = set()
    for m in _WORD_RE.finditer(query):
        before = query[: m.start()].rstrip()
        if m.group(0).lower() in _TITLES:
            continue
        titled = re.search(r"\b(?:dr|mr|mrs|ms|prof|st)\.$", before, re.I) is not None
        if not before or (before[-1] in _SENTENCE_END and not titled) or before[-1] in "\"'“‘(":
            continue  # a sentence's first word is capitalised anyway
        names.update(textmod.tokenize(m.group(0)))
    return frozenset(names)


@functools.lru_cache(maxsize=8192)
def memory_terms(content: str) -> frozenset[str]:
    """Distinct keyword terms of a memory's content (``text.tokenize``), cached per content
    (the same memories come back search after search)."""
    return frozenset(textmod.tokenize(content))


def keyword_coverage(query_terms: Collection[str], memory_terms: Collection[str]) -> float:
    """Share in [0, 1] of the distinct ``query_terms`` found in ``memory_terms`` (0 for no
    query terms)."""
    wanted = set(query_terms)
    if not wanted:
        return 0.0
    return len(wanted & set(memory_terms)) / len(wanted)


class FloorVerdict(NamedTuple):
    """Outcome of the relevance floor for one search.

    Attributes:
        dropped: index in the candidate list -> drop reason (``below_relevance_floor``).
        matched: whether at least one candidate matched the query on some leg.
        best: score name (``cosine``, ``cosine_ml``, ``coverage``) -> the best value any
            candidate had, for the trace's explanation.
    """

    dropped: dict[int, str]
    matched: bool
    best: dict[str, float]


def relevance_drops(
    candidates: Sequence[Scored],
    *,
    dense_floors: Mapping[str, tuple[float | None, float]],
    match_coverage: float,
    score_key: Callable[[str], str],
    vouching: Collection[str] | None = None,
) -> FloorVerdict:
    """Apply the relevance floor to ranked candidates (nothing is removed here).

    Args:
        candidates: the weighted candidates, best first; the keyword-leg ones among the
            first :data:`MATCH_WINDOW` carry ``scores["coverage"]``.
        dense_floors: dense leg name (``dense``, ``dense_ml``; expansions ``dense@x1`` use
            their base leg's) -> (match cosine or None = the leg matches every candidate it
            returned, noise floor).
        match_coverage: keyword coverage in [0, 1] at which the keyword leg matches.
        score_key: leg name -> the score the leg wrote (``normfusion.leg_score_key``).
        vouching: the dense legs whose match cosine can make a candidate a match
            (:func:`vouching_legs`); the others in ``dense_floors`` only keep candidates above
            their noise floor. None = every leg of ``dense_floors``.

    Returns:
        The :class:`FloorVerdict`.
    """
    best: dict[str, float] = {}
    strong: list[bool] = []
    weak: list[bool] = []
    for pos, c in enumerate(candidates):
        in_window = pos < MATCH_WINDOW
        is_strong = False
        is_weak = False
        for leg in c.ranks:
            base = leg.split("@", 1)[0]
            if base.startswith("keyword"):
                cov = c.scores.get("coverage", 0.0)
                best["coverage"] = max(best.get("coverage", 0.0), cov)
                is_weak = True
                named = c.scores.get("names", 0.0) >= 1.0  # holds every name of the query
                is_strong = is_strong or (in_window and (cov >= match_coverage or named))
            elif base in dense_floors:
                key = score_key(base)
                value = c.scores.get(key)
                if value is None:
                    continue
                best[key] = max(best.get(key, -1.0), value)
                match, noise = dense_floors[base]
                is_weak = is_weak or value >= noise
                vouches = vouching is None or base in vouching
                is_strong = is_strong or (
                    vouches and in_window and (match is None or value >= match)
                )
        strong.append(is_strong)
        weak.append(is_weak or is_strong)
    matched = any(strong)
    dropped = {i: DROP_RELEVANCE for i in range(len(candidates)) if not matched or not weak[i]}
    return FloorVerdict(dropped=dropped, matched=matched, best=best)
