"""Search pipeline (the orchestrator; each stage lives in its own module of this package):

scope -> expand (``expansion``) -> dense + keyword legs -> fuse (``fusion`` RRF or
``normfusion`` z-score / min-max) -> session-neighbour smoothing (``session``) -> rerank
(``rerank``, optional) -> weighting by task type and retention (``weighting``) -> threshold
(``thresholds``) -> dedupe / MMR (``diversity``) -> top-k -> token budget -> memory block.
Every stage writes into the ``Trace`` (docs/architecture.md#search-pipeline): its name in ``trace.stages``, its
score under a name from ``scores.SCORE_KINDS`` and its rank under ``ranks[<stage>]``.
"""

from __future__ import annotations

import logging
import math
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from memory_engine import text as textmod
from memory_engine.config.retrieval import Leg, SearchOptions, recall_depth
from memory_engine.embedding.base import Embedder
from memory_engine.entities import entity_terms
from memory_engine.models import Candidate, Scope, SearchResult, Trace, TraceCandidate
from memory_engine.retrieval.block import flag_line, format_line, memory_flags, render_block
from memory_engine.retrieval.diversity import DROP_DUPLICATE, dedupe, mmr_order
from memory_engine.retrieval.expansion import MAX_EXPANSIONS, Expander, composite_query
from memory_engine.retrieval.legs import run_legs
from memory_engine.retrieval.normfusion import fuse, leg_normalised, leg_score_key
from memory_engine.retrieval.records import Hit, Scored, to_candidate
from memory_engine.retrieval.rerank import Reranker, apply_rerank
from memory_engine.retrieval.script import cjk_share, dense_leg_weights
from memory_engine.retrieval.session import smooth_sessions
from memory_engine.retrieval.thresholds import (
    DROP_RELEVANCE,
    MATCH_WINDOW,
    floor_legs,
    keyword_coverage,
    match_cosine_for,
    memory_terms,
    min_cosine_for,
    query_names,
    relevance_drops,
    vouching_legs,
)
from memory_engine.retrieval.waterfall import lift_sources
from memory_engine.retrieval.weighting import WeightFn, apply_weights
from memory_engine.stores.base import SearchIndex

log = logging.getLogger(__name__)

DROP_MIN_SCORE = "below_min_score"
DROP_MIN_COSINE = "below_min_cosine"
DROP_TOP_K = "below_top_k"
WARN_NO_MATCH = "no memory matched the query well enough (relevance floor); the block is empty"
DROP_BUDGET = "over_token_budget"
__all__ = [
    "DROP_BUDGET",
    "DROP_DUPLICATE",
    "DROP_MIN_COSINE",
    "DROP_MIN_SCORE",
    "DROP_RELEVANCE",
    "DROP_TOP_K",
    "Leg",
    "SearchOptions",
    "muted_dense_legs",
    "run_search",
]


class _Notes:
    """What the score waterfall reads beyond scores and ranks, by memory id: each leg's
    normalised score, the session neighbour that lifted it, its block-line tokens."""

    def __init__(self) -> None:
        self.normalised: dict[uuid.UUID, dict[str, float]] = {}
        self.lift_from: dict[uuid.UUID, uuid.UUID] = {}
        self.tokens: dict[uuid.UUID, int] = {}


def _summarise(
    c: Scored, dropped: str | None = None, notes: _Notes | None = None
) -> TraceCandidate:
    m = c.memory
    extra: dict[str, Any] = {}
    if notes is not None:
        extra = {
            "normalised": notes.normalised.get(m.id, {}),
            "lift_from": notes.lift_from.get(m.id),
            "tokens": notes.tokens.get(m.id),
        }
    return TraceCandidate(
        memory_id=m.id,
        content=m.content,
        memory_type=m.memory_type,
        source=m.source,
        observed_at=m.observed_at,
        created_at=m.created_at,
        scores=dict(c.scores),
        ranks=dict(c.ranks),
        dropped=dropped,
        entities=m.entities,
        status=m.status,
        superseded_by=m.superseded_by,
        **extra,
    )


class _Clock:
    """Per-stage timings in ms."""

    def __init__(self) -> None:
        self.timings: dict[str, float] = {}
        self._t = time.perf_counter()

    def add(self, timings: dict[str, float]) -> None:
        """Take stage timings measured elsewhere (concurrent legs); restart the lap."""
        for name, ms in timings.items():
            self.timings[name] = self.timings.get(name, 0.0) + ms
        self._t = time.perf_counter()

    def lap(self, name: str) -> None:
        now = time.perf_counter()
        self.timings[name] = self.timings.get(name, 0.0) + (now - self._t) * 1000
        self._t = now


def _recall(
    queries: Sequence[str],
    *,
    scope: Scope,
    options: SearchOptions,
    store: SearchIndex,
    embedder: Embedder | None,
    clock: _Clock,
    warnings: list[str],
    extra_legs: Mapping[str, Embedder] | None = None,
    skip: frozenset[str] = frozenset(),
) -> tuple[dict[str, list[Hit]], list[str]]:
    """Run every leg for every query (but the dense legs in ``skip``); leg names get
    ``@x<i>`` for the i-th expansion. Each leg's rows become ``records.Hit``s holding their
    leg rank (``ranks[<leg>]``)."""
    depth = recall_depth(options.candidates_per_leg, options.k)  # deeper for a large k
    legs, timings, first_terms = run_legs(
        queries,
        scope=scope,
        legs=options.legs,
        depth=depth,
        statuses=options.statuses,
        store=store,
        embedder=embedder,
        warnings=warnings,
        extra_legs=extra_legs,
        skip=skip,
    )
    clock.add(timings)
    # Defence in depth: no leg may hold another tenant's row (docs/architecture.md#f1-scope-filter).
    for name, cands in legs.items():
        for c in cands:
            if c.memory.tenant_id != scope.tenant_id:
                raise AssertionError(f"leg {name} returned a memory of another tenant")
    ranked = {  # a row already holding its rank keeps its ranks dict (~150 a search)
        name: [
            Hit(c.memory, c.scores, c.ranks if c.ranks.get(name) == pos else {**c.ranks, name: pos})
            for pos, c in enumerate(cands, start=1)
        ]
        for name, cands in legs.items()
    }
    return ranked, first_terms


def muted_dense_legs(
    query: str, options: SearchOptions, extra_legs: Mapping[str, Embedder] | None
) -> frozenset[str]:
    """The dense legs whose fusion weight is 0 for ``query``'s script (``dense`` for an
    all-CJK query with the default ``cjk_english_weight=0``), with two dense legs and a
    normalised fusion: such a leg adds nothing to any candidate's fused score, so it is not
    run (its query is not embedded, its model need not load) and the trace marks it
    ``skipped``. With ``rrf`` every leg counts whatever its weight, so none is muted.

    Args:
        query: the main query (after ``composite_query``).
        options: the search configuration (weights, fusion).
        extra_legs: the extra dense legs of the search (none: nothing is muted).
    """
    if not extra_legs or options.fusion == "rrf":
        return frozenset()
    return frozenset(leg for leg, w in dense_leg_weights(query, options).items() if w <= 0.0)


def _query_index(leg: str) -> int:
    """Index in the searched queries of a leg name (``dense`` -> 0, ``keyword@x2`` -> 2)."""
    _, sep, suffix = leg.partition("@x")
    return int(suffix) if sep else 0


def run_search(
    query: str,
    *,
    scope: Scope,
    options: SearchOptions,
    store: SearchIndex,
    embedder: Embedder | None,
    expander: Expander | None = None,
    reranker: Reranker | None = None,
    weight_fn: WeightFn | None = None,
    extra_legs: Mapping[str, Embedder] | None = None,
) -> SearchResult:
    """Run one traced hybrid search.

    Args:
        query: the current input (already cleaned by the caller).
        scope: tenant and narrowing ids; every leg filters by it.
        options: the configuration (stored in the trace).
        store: the candidate searches (any ``SearchIndex``).
        embedder: may be None only without the dense leg.
        expander: optional source of related queries (LLM seam), at most 3 used.
        reranker: optional reranker of the best ``options.rerank_pool`` fused candidates.
        weight_fn: retention/recency weight per memory (``scoring.py`` hook); None = 1.0.
        extra_legs: extra dense legs run with ``dense`` (``dense_ml`` -> its embedder), each
            weighted by the query's script (``script.dense_leg_weights``).

    Returns:
        SearchResult with the returned memories (``ranks["final"]``), the block and the trace.
    """
    clock = _Clock()
    t_all = time.perf_counter()
    warnings: list[str] = []
    stages: list[str] = []

    main_query = composite_query(query, options.recent_turns)
    queries = [main_query]
    if expander is not None:
        extra = expander.expand(
            query, task_type=options.task_type, recent_turns=options.recent_turns
        )
        queries += [q for q in dict.fromkeys(extra) if q and q != main_query][:MAX_EXPANSIONS]
        stages.append("expand")
    elif main_query != query:
        stages.append("expand")
    clock.lap("expand")

    muted = muted_dense_legs(main_query, options, extra_legs)
    legs, terms = _recall(
        queries,
        scope=scope,
        options=options,
        store=store,
        embedder=embedder,
        clock=clock,
        warnings=warnings,
        extra_legs=extra_legs,
        skip=muted,
    )
    stages += list(legs)
    leg_health: dict[str, dict[str, Any]] = {
        name: {"count": len(c), "empty": not c} for name, c in legs.items()
    }
    for name, health in leg_health.items():
        if not health["empty"]:
            continue
        if name.split("@", 1)[0] in muted:
            health["skipped"] = True  # weight 0 for this query's script: not embedded
        elif name.startswith("keyword") and not textmod.query_terms(queries[_query_index(name)]):
            health["skipped"] = True  # already warned: the query has no keyword terms
        else:
            warnings.append(f"leg {name} returned no candidates")

    kw_weight = options.keyword_weight
    if options.keyword_terms_ref and len(terms) > options.keyword_terms_ref:
        kw_weight *= math.sqrt(options.keyword_terms_ref / len(terms))
    weights = {"dense": options.dense_weight, "keyword": kw_weight}
    if extra_legs:  # two dense legs: weighted by the query's script
        weights.update(dense_leg_weights(main_query, options))
    models = {"dense": embedder.model_name if embedder is not None else None}
    models.update({leg: emb.model_name for leg, emb in (extra_legs or {}).items()})
    for name, health in leg_health.items():
        base = name.split("@", 1)[0]
        health["weight"] = round(weights.get(base, options.dense_weight), 4)
        if base in models:  # each dense leg names the model its scores come from
            health["model"] = models[base]
    fused = fuse(
        legs,
        method=options.fusion,
        rrf_k=options.rrf_k,
        weights=weights,
        depth=recall_depth(options.candidates_per_leg, options.k),
    )
    stages.append(f"fuse:{options.fusion}")
    notes = _Notes()
    notes.normalised = leg_normalised(
        legs,
        [c.memory.id for c in fused],
        method=options.fusion,
        depth=recall_depth(options.candidates_per_leg, options.k),
    )
    clock.lap("fuse")
    score_key = "fused"
    if options.session_weight > 0:
        fused = smooth_sessions(
            fused,
            weight=options.session_weight,
            window=options.session_window,
            decay=options.session_decay,
            mode=options.session_mode,
        )
        score_key = "session"
        notes.lift_from = lift_sources(
            fused,
            window=options.session_window,
            decay=options.session_decay,
            mode=options.session_mode,
        )
        stages.append("session")
        clock.lap("session")
    if reranker is not None:
        fused = apply_rerank(query, fused, reranker=reranker, pool=options.rerank_pool)
        score_key = "rerank"
        stages.append(f"rerank:{reranker.name}")
        clock.lap("rerank")
    ranked = apply_weights(
        fused, score_key=score_key, task_type=options.task_type, weight_fn=weight_fn
    )
    stages.append("weight")
    clock.lap("weight")

    model = embedder.model_name if embedder is not None else None
    floor = min_cosine_for(model, options.min_cosine, calibrated=options.calibrated_min_cosine)
    dropped: list[TraceCandidate] = []
    passing: list[Hit] = []
    for c in ranked:
        dense_only = not any(name.startswith("keyword") for name in c.ranks)
        if c.scores["rrf"] < options.min_score:
            dropped.append(_summarise(c, DROP_MIN_SCORE, notes))
        elif dense_only and c.scores.get("cosine", 1.0) < floor:
            dropped.append(_summarise(c, DROP_MIN_COSINE, notes))
        else:
            passing.append(c)
    if options.relevance_floor:
        # each dense leg that counts for this query is floored by its own model's values (a
        # leg weighted down for the query's script, e.g. MiniLM on Chinese, decides nothing)
        counted = floor_legs(weights, list(models))
        floored = {leg: name for leg, name in models.items() if leg in counted}
        names = query_names(main_query)
        passing = _relevance_floor(
            passing,
            terms,
            floored,
            options,
            dropped,
            warnings,
            notes,
            names,
            vouching=vouching_legs(weights, counted),
            script_share=cjk_share(main_query),
        )
    stages.append("threshold")
    kept, dups = dedupe(passing, near_duplicate=options.near_duplicate, limit=options.k * 4)
    dropped += [_summarise(c, reason, notes) for c, reason in dups]
    kept = mmr_order(kept, score_key="final", lam=options.mmr_lambda, pool=options.k * 4)
    stages.append("dedupe" if options.mmr_lambda >= 1.0 else "dedupe+mmr")
    clock.lap("dedupe")

    returned: list[Candidate] = []
    budget_used = textmod.count_tokens(render_block([]))
    flagged: list[tuple[int, tuple[str, ...]]] = []
    for c in kept:
        if len(returned) >= options.k:
            dropped.append(_summarise(c, DROP_TOP_K, notes))
            continue
        position = len(returned) + 1
        line_tokens = textmod.count_tokens(format_line(position, c.memory)) + 1
        flags = memory_flags(c.memory)
        if flags:  # the header's flag line grows with each flagged memory
            line_tokens += textmod.count_tokens(flag_line([*flagged, (position, flags)])) - (
                textmod.count_tokens(flag_line(flagged)) if flagged else -1
            )
        if options.token_budget and budget_used + line_tokens > options.token_budget:
            notes.tokens[c.memory.id] = line_tokens
            dropped.append(_summarise(c, DROP_BUDGET, notes))
            continue
        notes.tokens[c.memory.id] = line_tokens
        budget_used += line_tokens
        if flags:
            flagged.append((position, flags))
        returned.append(to_candidate(c, ranks={**c.ranks, "final": position}, flags=flags))
    stages += ["top_k", "budget"]
    clock.lap("select")
    block = render_block([c.memory for c in returned])
    timings = clock.timings
    timings["total"] = (time.perf_counter() - t_all) * 1000

    trace = Trace(
        tenant_id=scope.tenant_id,
        scope=scope,
        query=query,
        config=options.model_dump(mode="json"),
        embedding_model=model if any(n.startswith("dense") for n in legs) else None,
        query_terms=tuple(terms),
        legs={name: [_summarise(c) for c in cands] for name, cands in legs.items()},
        candidates=[_summarise(c, None, notes) for c in returned] + dropped,
        block=block,
        timings_ms={k: round(v, 3) for k, v in timings.items()},
        warnings=warnings,
        stages=stages,
        leg_health=leg_health,
        searched_queries=queries,
    )
    return SearchResult(memories=returned, block=block, trace=trace)


def _relevance_floor(
    candidates: list[Hit],
    terms: Sequence[str],
    models: Mapping[str, str | None],
    options: SearchOptions,
    dropped: list[TraceCandidate],
    warnings: list[str],
    notes: _Notes | None = None,
    names: frozenset[str] = frozenset(),
    vouching: frozenset[str] | set[str] | None = None,
    script_share: float = 1.0,
) -> list[Hit]:
    """The relevance floor (``thresholds.relevance_drops``): adds ``scores["coverage"]`` to
    the keyword-leg candidates among the best ``max(k, MATCH_WINDOW)`` (tokenizing a memory costs
    ~0.1-0.25 ms, so deeper ones are not scored: a memory holding most query terms ranks
    high), moves the candidates below the floor to ``dropped`` and warns when nothing matched
    the query (the block is then empty). ``models``: dense leg name -> its embedder's model
    name (each dense leg gets its own model's match cosine and noise floor); ``vouching``: the
    legs among them whose match cosine can open the block (None = all); ``script_share``:
    the query's CJK share, which picks a model's Latin-script match cosine."""
    scored: list[Hit] = []
    for pos, c in enumerate(candidates):
        if pos < max(options.k, MATCH_WINDOW) and any(
            name.startswith("keyword") for name in c.ranks
        ):
            held = memory_terms(c.memory.content) | frozenset(entity_terms(c.memory.entities))
            cov = keyword_coverage(terms, held)
            extra = {"names": 1.0} if names and names <= held else {}
            c = Hit(c.memory, {**c.scores, "coverage": round(cov, 4), **extra}, c.ranks, c.flags)
        scored.append(c)
    verdict = relevance_drops(
        scored,
        dense_floors={
            leg: (
                match_cosine_for(
                    name, options.match_cosine, query_terms=len(terms), cjk_share=script_share
                ),
                min_cosine_for(name, options.min_cosine, calibrated=True),
            )
            for leg, name in models.items()
        },
        match_coverage=options.match_coverage,
        score_key=leg_score_key,
        vouching=vouching,
    )
    if scored and not verdict.matched:
        warnings.append(WARN_NO_MATCH)
    dropped.extend(
        _summarise(c, verdict.dropped[i], notes)
        for i, c in enumerate(scored)
        if i in verdict.dropped
    )
    return [c for i, c in enumerate(scored) if i not in verdict.dropped]


def delta_rank(candidate: TraceCandidate) -> int | None:
    """Best single-leg rank minus final rank (positive: fusion moved it up); None if dropped."""
    final = candidate.ranks.get("final")
    leg_ranks = [r for name, r in candidate.ranks.items() if name.startswith(("dense", "keyword"))]
    if final is None or not leg_ranks:
        return None
    return min(leg_ranks) - final


def legs_of(candidates: Sequence[TraceCandidate]) -> set[str]:
    """Names of the legs that produced any of ``candidates``."""
    return {name for c in candidates for name in c.ranks if name.startswith(("dense", "keyword"))}
