"""``SearchOptions``: one search's configuration, and the retrieval domain of ``Settings``.

The same class is both ``Settings.retrieval`` (the engine's defaults, read from the flat
``MEMORY_*`` variables) and the options of one search (``MemoryEngine.search_options``
validates a caller's overrides on top of ``settings.retrieval``), so every retrieval knob has
exactly one default. A search stores ``model_dump(mode="json")`` as its trace's ``config``;
``from_trace_config`` reads one back, old traces included.

This module imports nothing of the engine but models and constants, so ``config`` can use it.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory_engine.models import MemoryStatus

#: Fusion of the legs' ranked lists (``retrieval/normfusion.py``).
FusionMethod = Literal["rrf", "zscore", "minmax"]

#: Hard maximum of candidates sent to a reranker (``retrieval/rerank.py``).
MAX_RERANK_POOL = 100

#: Task types that weight memory types (``retrieval/weighting.py``: ``TASK_TYPE_WEIGHTS``).
TASK_TYPES: tuple[str, ...] = ("general", "consultation", "knowledge_qa", "workflow")

__all__ = [
    "ADVANCED",
    "DEEP_SEARCH_K",
    "DEPTH_PER_RESULT",
    "PER_SEARCH",
    "TRACE_DEFAULTS",
    "Leg",
    "SearchOptions",
    "recall_depth",
]

#: A search for more than :data:`DEEP_SEARCH_K` memories recalls at least this many
#: candidates per leg per memory asked for (``k``), so it looks deeper than
#: ``candidates_per_leg``: the fused list must still hold ``k`` good candidates after the
#: floors and dedupe. LoCoMo dev r@25/r@50 of a ``k`` = 50 search 82.79/86.62 -> 85.27/89.05
#: (held-out 80.01/84.29 -> 82.65/86.80).
DEPTH_PER_RESULT = 4
#: Searches of at most this many memories (the default ``k`` = 10 included) recall exactly
#: ``candidates_per_leg`` per leg (or ``k`` when larger), as configured.
DEEP_SEARCH_K = 12
#: Most candidates a leg recalls (``candidates_per_leg``'s maximum).
MAX_DEPTH = 1000


def recall_depth(candidates_per_leg: int, k: int) -> int:
    """Candidates each leg recalls for a search of ``k`` memories: ``candidates_per_leg``
    (never fewer than ``k``); for ``k`` > :data:`DEEP_SEARCH_K`, :data:`DEPTH_PER_RESULT` x
    ``k`` when that is more (at most :data:`MAX_DEPTH`)."""
    if k <= DEEP_SEARCH_K:
        return max(candidates_per_leg, k)
    return max(candidates_per_leg, min(DEPTH_PER_RESULT * k, MAX_DEPTH), k)


Leg = Literal["dense", "keyword"]

ADVANCED: dict[str, Any] = {"advanced": True}
"""``json_schema_extra`` of a tuning knob: settable, but no user should need to (README marks it)."""

PER_SEARCH: dict[str, Any] = {"per_search": True}
"""``json_schema_extra`` of a per-call argument: not read from the environment."""

TRACE_DEFAULTS: dict[str, Any] = {
    "relevance_floor": False,
    "fusion": "rrf",
    "keyword_terms_ref": None,
    "session_weight": 0.0,
    "session_window": 1,
    "session_decay": 0.5,
}
"""Values of the keys a trace stored before its stage existed lacks: the stage was off then.

(These were also the defaults of a ``SearchOptions`` built by hand before ``Settings`` and
``SearchOptions`` shared one class; the engine always filled them from ``Settings``.)
"""


class SearchOptions(BaseModel):
    """One search's configuration; the engine's defaults are ``Settings.retrieval``.

    Attributes:
        k: memories returned, 1..``limits.search_max_k`` (``MEMORY_SEARCH_K``; the engine
            checks the maximum).
        legs: retrieval legs to run (per search).
        candidates_per_leg: recall depth of each leg before fusion.
        rrf_k: RRF constant k in 1/(k + rank) (Cormack et al. 2009; computed for every fusion).
        fusion: ``rrf``, ``zscore`` or ``minmax`` (see ``normfusion``).
        dense_weight, keyword_weight: leg weights of the normalised fusions (>= 0).
        keyword_terms_ref: long-query damping of the keyword leg: with n query terms above
            this, its weight is multiplied by sqrt(ref / n) (a long conversational query
            matches many memories on a few common words each); None = off (``0`` in the
            environment or an old trace also means off).
        session_weight: share of a neighbouring turn's fused score a turn borrows (0 = off:
            the smoothing is the identity).
        session_window: neighbouring turns on each side (1..5).
        session_decay: factor per extra step of distance, [0, 1].
        session_mode: ``lift`` (toward a stronger neighbour) or ``sum`` (see ``session``).
        task_type: None or one of ``weighting.TASK_TYPES`` (memory-type weights; per search).
        recent_turns: the conversation's latest turns, oldest first (composite query; per
            search).
        min_score: drop fused candidates with ``rrf`` below this (>= 0; 0 keeps all).
        min_cosine: drop candidates found only by dense legs with cosine below this, in
            [-1, 1]; -1 (the lowest cosine) keeps all.
        calibrated_min_cosine: raise ``min_cosine`` to the embedder's calibrated floor.
        relevance_floor: keep memories only when some leg matches the query (a dense leg at
            its match cosine, or the keyword leg at ``match_coverage``); nothing matching ->
            an empty block (``retrieval/thresholds.py``). False = fill the k slots.
        match_cosine: cosine at which a dense leg matches, in [-1, 1]; None = the embedder's
            calibrated value (``thresholds.CALIBRATED_MATCH_COSINE``).
        match_coverage: share of the query's distinct keyword terms, in [0, 1], a memory
            must hold for the keyword leg to match.
        near_duplicate: drop candidates whose term-set Jaccard with a better one is >= this,
            in (0, 1]; None = off (a value above 1, the old ``1.01``, also means off).
        mmr_lambda: MMR trade-off in [0, 1]; 1 = pure relevance (MMR is the identity).
        rerank_pool: candidates a configured reranker rescores (1..100).
        retention_weight: share w of the retention score (``scoring.py``) in the weighting
            stage, [0, 1]: each candidate x (1 - w + w * retention); 0 = off
            (``MEMORY_RETENTION_SEARCH_WEIGHT``; used when the caller passes no ``weight_fn``).
        token_budget: max tokens of the block (cl100k); 0 = unlimited.
        statuses: statuses searched (default active only; per search).
    """

    model_config = ConfigDict(frozen=True)  # extra keys ignored: as-of traces add as_of/valid_at

    k: int = Field(10, ge=1, le=1000, description="Default number of memories returned.")
    legs: tuple[Leg, ...] = Field(("dense", "keyword"), json_schema_extra=PER_SEARCH)
    candidates_per_leg: int = Field(
        50,
        ge=1,
        le=MAX_DEPTH,
        description="Candidates each retrieval leg recalls before fusion (at least 4 per "
        "memory asked for when more than 12 are asked for).",
        json_schema_extra=ADVANCED,
    )
    rrf_k: int = Field(
        60,
        ge=1,
        description="RRF constant k in 1/(k + rank) (Cormack 2009).",
        json_schema_extra=ADVANCED,
    )
    fusion: FusionMethod = Field(
        "zscore", description="Fusion of the legs: rrf, zscore or minmax (normalised scores)."
    )
    dense_weight: float = Field(
        1.0, ge=0.0, description="Dense leg weight (zscore/minmax).", json_schema_extra=ADVANCED
    )
    keyword_weight: float = Field(
        1.5, ge=0.0, description="Keyword leg weight (zscore/minmax).", json_schema_extra=ADVANCED
    )
    multilingual_weight: float = Field(
        0.5,
        ge=0.0,
        description="Multilingual dense leg (dense_ml) weight for a query without CJK "
        "characters; it rises linearly to the dense weight as the query's CJK share reaches 1.",
        json_schema_extra=ADVANCED,
    )
    cjk_english_weight: float = Field(
        0.0,
        ge=0.0,
        description="English dense leg weight for an all-CJK query; it falls linearly from "
        "the dense weight as the query's CJK share rises (with a multilingual leg only).",
        json_schema_extra=ADVANCED,
    )
    keyword_terms_ref: int | None = Field(
        12,
        ge=1,
        le=1000,
        description="Long-query damping: keyword weight x sqrt(ref/terms) above ref terms; "
        "None (0 or an empty value in the environment) = off.",
        json_schema_extra=ADVANCED,
    )
    session_weight: float = Field(
        0.6,
        ge=0.0,
        description="Share of a neighbouring turn's score a turn borrows; 0 = off.",
        json_schema_extra=ADVANCED,
    )
    session_window: int = Field(
        2, ge=1, le=5, description="Neighbouring turns on each side.", json_schema_extra=ADVANCED
    )
    session_decay: float = Field(
        1.0,
        ge=0.0,
        le=1.0,
        description="Session smoothing factor per extra step of distance.",
        json_schema_extra=ADVANCED,
    )
    session_mode: Literal["lift", "sum"] = Field(
        "lift",
        description="Session smoothing: lift (toward a stronger neighbour) or sum.",
        json_schema_extra=ADVANCED,
    )
    task_type: str | None = Field(None, json_schema_extra=PER_SEARCH)
    recent_turns: tuple[str, ...] = Field((), max_length=50, json_schema_extra=PER_SEARCH)
    min_score: float = Field(
        0.0, ge=0.0, description="Drop fused candidates whose rrf score is below this."
    )
    min_cosine: float = Field(
        -1.0, ge=-1.0, le=1.0, description="Drop dense-only candidates below this cosine."
    )
    calibrated_min_cosine: bool = Field(
        False,
        description="Raise min_cosine to the embedder's calibrated floor.",
        json_schema_extra=ADVANCED,
    )
    relevance_floor: bool = Field(
        True,
        description="Return memories only when one leg matches the query (calibrated floors); "
        "nothing matching = an empty block. false = always fill the k slots.",
    )
    match_cosine: float | None = Field(
        None,
        ge=-1.0,
        le=1.0,
        description="Cosine at which the dense leg matches the query (relevance floor); "
        "unset = the embedder's calibrated value.",
        json_schema_extra=ADVANCED,
    )
    match_coverage: float = Field(
        0.67,
        ge=0.0,
        le=1.0,
        description="Share of the query's keyword terms a memory must hold for the keyword "
        "leg to match the query (relevance floor).",
        json_schema_extra=ADVANCED,
    )
    near_duplicate: float | None = Field(
        None,
        gt=0.0,
        le=1.0,
        description="Term-set Jaccard at which a result is a near duplicate; unset = off.",
        json_schema_extra=ADVANCED,
    )
    mmr_lambda: float = Field(
        1.0,
        ge=0.0,
        le=1.0,
        description="MMR trade-off; 1.0 = off.",
        json_schema_extra=ADVANCED,
    )
    rerank_pool: int = Field(
        20,
        ge=1,
        le=MAX_RERANK_POOL,
        description="Candidates a configured reranker rescores (bounded).",
        json_schema_extra=ADVANCED,
    )
    retention_weight: float = Field(
        0.0,
        ge=0.0,
        le=1.0,
        description="Share of the retention score in search ranking: 1 - w + w * retention; "
        "0 = off.",
    )
    token_budget: int = Field(
        2000, ge=0, description="Max tokens (tiktoken cl100k) of the memory block; 0 = no limit."
    )
    statuses: tuple[MemoryStatus, ...] = Field((MemoryStatus.ACTIVE,), json_schema_extra=PER_SEARCH)

    @field_validator("task_type")
    @classmethod
    def _known_task_type(cls, value: str | None) -> str | None:
        if value is not None and value not in TASK_TYPES:
            raise ValueError(f"unknown task_type {value!r}; known: {', '.join(TASK_TYPES)}")
        return value

    @field_validator("keyword_terms_ref", mode="before")
    @classmethod
    def _zero_terms_ref_is_off(cls, value: Any) -> Any:
        """The old "off" value 0 (``MEMORY_KEYWORD_TERMS_REF=0``, old traces) means None."""
        return None if value in (0, "0", "") else value

    @field_validator("near_duplicate", mode="before")
    @classmethod
    def _above_one_is_off(cls, value: Any) -> Any:
        """The old "off" values above 1 (``1.01``: ``.env`` files, old traces) mean None."""
        if value is None or value == "":
            return None
        try:
            return None if float(value) > 1.0 else value
        except (TypeError, ValueError):
            return value  # not a number: the field's own validation reports it

    @classmethod
    def from_trace_config(cls, config: Mapping[str, Any]) -> SearchOptions:
        """The options a stored trace ran with (``Trace.config``, any age).

        Keys a trace lacks because it was stored before that stage existed take
        ``TRACE_DEFAULTS`` (the stage off), never today's defaults; extra keys (``as_of``,
        ``valid_at`` of an as-of search) are ignored.

        Raises:
            pydantic.ValidationError: a stored value is out of range.
        """
        return cls(**{**TRACE_DEFAULTS, **config})

    @classmethod
    def env_fields(cls) -> tuple[str, ...]:
        """Names of the fields that are settings (read from ``MEMORY_*``), not per-search."""
        return tuple(
            name
            for name, field in cls.model_fields.items()
            if not (
                isinstance(field.json_schema_extra, dict)
                and field.json_schema_extra.get("per_search")
            )
        )
