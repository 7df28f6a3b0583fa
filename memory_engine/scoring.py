"""Retention scoring: pure functions of a memory and a clock (docs/architecture.md#retention-and-lifecycle).

The engine (maintenance, as-of search), the CLI and every dashboard chart call these functions,
so a value shown on a chart is the value the engine acts on.

Two presets, selected by ``Settings.retention_preset``:

``decay`` (default)
    ``retention = importance × 0.5^(age_days / half_life_days) + w_access × ln(1 + access_count)``

    Importance halves every ``half_life_days`` (default 30) since the last access; repeated
    accesses add a slowly growing bonus ("frequently recalled memories are pulled back").
    Source: the "综合保留分" (combined retention score) of the Chinese agent-memory article this
    product grew from (§3.2: importance × time decay + access weighting, 30-day half-life, daily
    archive job, purge after 30 days in the archive; docs/architecture.md#retention-and-lifecycle), itself the exponential
    forgetting curve of Ebbinghaus (1885) as used by MemoryBank (Zhong et al., AAAI 2024).
    Range: [0, 1 + w_access × ln(1 + access_count)]; higher means "keep".

``weighted``
    ``retention = 0.4 × access_norm + 0.3 × recency + 0.3 × confidence``

    with ``recency = 0.5^(age_days / half_life_days)`` (default half-life 7 days) and
    ``access_norm = min(1, ln(1 + access_count) / ln(1 + access_saturation))``. Source: the
    second Chinese agent-memory article behind the product (§3.3, "score = access_count × 0.4 +
    recency_score × 0.3 + confidence × 0.3", exponential recency with a 7-day half-life). The
    article multiplies the raw count; we normalise it to [0, 1] (log-saturating at
    ``access_saturation`` accesses, default 20) so the three terms share a scale and one
    threshold works for every store size. Range: [0, 1].

Age: ``now - (last_accessed_at or created_at)`` in days of 86,400 seconds, UTC, clamped at 0
(a memory "from the future" under a frozen clock has age 0). Naive datetimes are taken as UTC.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memory_engine.errors import InvalidInputError
from memory_engine.models import Memory, ensure_utc

Preset = Literal["decay", "weighted"]

#: Seconds per day used for every age in this module.
SECONDS_PER_DAY = 86_400.0

#: Default half-life of each preset, in days.
PRESET_HALF_LIFE_DAYS: dict[str, float] = {"decay": 30.0, "weighted": 7.0}
#: Default archive floor of each preset (retention below it may be archived).
PRESET_ARCHIVE_FLOOR: dict[str, float] = {"decay": 0.05, "weighted": 0.35}
#: Weights of the ``weighted`` preset: access, recency, confidence.
WEIGHTED_WEIGHTS = (0.4, 0.3, 0.3)


class RetentionParams(BaseModel):
    """Parameters of :func:`retention`.

    Attributes:
        preset: ``decay`` or ``weighted`` (see the module docstring for both formulas).
        half_life_days: days after which the time factor halves (> 0).
        access_weight: ``w_access`` of the ``decay`` preset (>= 0); unused by ``weighted``.
        access_saturation: accesses at which ``access_norm`` reaches 1 (``weighted``, >= 1).
    """

    model_config = ConfigDict(frozen=True)

    preset: Preset = "decay"
    half_life_days: float = Field(30.0, gt=0.0, le=36_500.0)
    access_weight: float = Field(0.1, ge=0.0, le=10.0)
    access_saturation: int = Field(20, ge=1, le=1_000_000)

    @classmethod
    def for_preset(cls, preset: Preset, **overrides: float | int | None) -> RetentionParams:
        """The preset's defaults (half-life 30 or 7 days) with non-None ``overrides``."""
        if preset not in PRESET_HALF_LIFE_DAYS:
            raise InvalidInputError(f"unknown retention preset {preset!r}", preset=preset)
        values: dict[str, object] = {
            "preset": preset,
            "half_life_days": PRESET_HALF_LIFE_DAYS[preset],
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return cls.model_validate(values)


def age_days(memory: Memory, now: datetime) -> float:
    """Days (86,400 s) from the last access (or creation, if never accessed) to ``now``, >= 0."""
    start = ensure_utc(memory.last_accessed_at or memory.created_at)
    end = ensure_utc(now)
    assert start is not None and end is not None
    return max(0.0, (end - start).total_seconds() / SECONDS_PER_DAY)


def decay_factor(age: float, half_life_days: float) -> float:
    """``0.5 ** (age / half_life_days)``: 1 at age 0, 0.5 after one half-life; in (0, 1]."""
    if half_life_days <= 0:
        raise InvalidInputError("half_life_days must be > 0", half_life_days=half_life_days)
    return 0.5 ** (max(0.0, age) / half_life_days)


def access_bonus(access_count: int, access_weight: float) -> float:
    """``access_weight × ln(1 + access_count)`` (the ``decay`` preset's access term), >= 0."""
    return access_weight * math.log1p(max(0, access_count))


def access_norm(access_count: int, saturation: int) -> float:
    """``min(1, ln(1 + n) / ln(1 + saturation))``: 0 for never accessed, 1 from ``saturation``."""
    return min(1.0, math.log1p(max(0, access_count)) / math.log1p(max(1, saturation)))


def retention_of(
    *,
    importance: float,
    confidence: float,
    access_count: int,
    age: float,
    params: RetentionParams,
) -> float:
    """Retention from raw values (what-if charts use this with hypothetical ages).

    Args:
        importance: [0, 1]. confidence: [0, 1]. access_count: >= 0. age: days >= 0.
        params: the preset and its parameters.

    Returns:
        The retention score, higher = keep (range in the module docstring).
    """
    recency = decay_factor(age, params.half_life_days)
    if params.preset == "decay":
        return importance * recency + access_bonus(access_count, params.access_weight)
    w_access, w_recency, w_conf = WEIGHTED_WEIGHTS
    return (
        w_access * access_norm(access_count, params.access_saturation)
        + w_recency * recency
        + w_conf * confidence
    )


def retention(memory: Memory, now: datetime, params: RetentionParams | None = None) -> float:
    """Retention score of ``memory`` at ``now`` (UTC) under ``params`` (default: ``decay``).

    Example: importance 0.8, never accessed, created 30 days before ``now``, half-life 30 days
    -> ``0.8 × 0.5 + 0.1 × ln(1) = 0.4``.
    """
    p = params or RetentionParams()
    return retention_of(
        importance=memory.importance,
        confidence=memory.confidence,
        access_count=memory.access_count,
        age=age_days(memory, now),
        params=p,
    )


def decay_curve(
    memory: Memory, now: datetime, params: RetentionParams, days: Sequence[float]
) -> list[float]:
    """Retention of ``memory`` if left untouched for ``now + d`` days, for each ``d`` in ``days``."""
    base = age_days(memory, now)
    return [
        retention_of(
            importance=memory.importance,
            confidence=memory.confidence,
            access_count=memory.access_count,
            age=base + d,
            params=params,
        )
        for d in days
    ]


def rank_by_retention(
    memories: Iterable[Memory], now: datetime, params: RetentionParams
) -> list[tuple[Memory, float]]:
    """``(memory, retention)`` sorted lowest first (ties: oldest ``created_at``, then id)."""
    scored = [(m, retention(m, now, params)) for m in memories]
    scored.sort(key=lambda pair: (pair[1], ensure_utc(pair[0].created_at), str(pair[0].id)))
    return scored
