"""Maintenance planning: which memories the next maintenance run archives, purges or expires.

Pure functions over memories and a clock (no store access), so the dry run, the real run, the
CLI and the Retention page all compute the same plan (docs/architecture.md#retention-and-lifecycle; policy from the first
source article's §4.4: "daily: archive what ranks at the bottom *and* is below the threshold; purge
what has been archived for more than 30 days and not accessed again").

Rules, evaluated at ``now`` (UTC):

* **expire**: an ``active`` memory whose ``valid_until`` <= ``now`` (the fact no longer holds in
  the world) is archived with reason ``expire``.
* **archive**: among the remaining ``active`` memories, ranked by retention (lowest first,
  :func:`memory_engine.scoring.rank_by_retention`), the lowest ``ceil(bottom_fraction × n)``
  whose retention is below ``floor``.
* **purge**: an ``archived`` memory whose last touch (``max(updated_at, last_accessed_at)``;
  archiving sets ``updated_at``) is at least ``purge_after_days`` before ``now``.
* **awaiting review**: a memory quarantined by the injection screen (stored ``archived`` with
  ``metadata.quarantined``) and not changed since (version 1: a reviewer's restore, edit or
  delete bumps the version) is never purged by the rule above: it must not disappear before a
  human has looked at it. It is counted in ``MaintenancePlan.awaiting_review`` instead, unless
  ``quarantine_purge_after_days`` (``MEMORY_QUARANTINE_PURGE_DAYS``) opts in to purging it
  that long after its last touch.

``superseded`` and ``deleted`` memories are left alone (supersede keeps history; delete has its
own purge path).
"""

from __future__ import annotations

import math
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from memory_engine.models import Memory, MemoryStatus, ensure_utc
from memory_engine.scoring import RetentionParams, rank_by_retention, retention

Action = Literal["archive", "purge", "expire"]


class MaintenancePolicy(BaseModel):
    """Thresholds of one maintenance run.

    Attributes:
        params: retention formula and parameters.
        floor: archive only below this retention.
        bottom_fraction: archive only within this lowest fraction of the ranking, [0, 1].
        purge_after_days: purge archived memories untouched this long (days, >= 0).
        quarantine_purge_after_days: purge quarantined memories awaiting review untouched this
            long (days, >= 0); None (default) = never, they wait for a reviewer.
    """

    model_config = ConfigDict(frozen=True)

    params: RetentionParams = RetentionParams()
    floor: float = Field(0.05, ge=0.0)
    bottom_fraction: float = Field(0.2, ge=0.0, le=1.0)
    purge_after_days: float = Field(30.0, ge=0.0)
    quarantine_purge_after_days: float | None = Field(None, ge=0.0)


class PlannedChange(BaseModel):
    """One change the plan makes; ``version`` is the version it was planned against."""

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    action: Action
    version: int
    retention: float
    reason: str
    content: str = ""


class MaintenancePlan(BaseModel):
    """What one maintenance run of one tenant does, in order: expire, archive, purge.

    ``awaiting_review``: quarantined memories awaiting review that this run keeps (all of them
    unless ``policy.quarantine_purge_after_days`` is set; then those not yet that old).
    """

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    now: datetime
    policy: MaintenancePolicy
    scanned_active: int = 0
    scanned_archived: int = 0
    awaiting_review: int = 0
    changes: list[PlannedChange] = Field(default_factory=list)

    def of(self, action: Action) -> list[PlannedChange]:
        """The planned changes of one action."""
        return [c for c in self.changes if c.action == action]

    def counts(self) -> dict[str, int]:
        """``{"archive": n, "purge": m, "expire": k}``."""
        return {a: len(self.of(a)) for a in ("archive", "purge", "expire")}


def last_touch(memory: Memory) -> datetime:
    """``max(updated_at, last_accessed_at)`` in UTC."""
    times = [ensure_utc(memory.updated_at), ensure_utc(memory.last_accessed_at)]
    return max(t for t in times if t is not None)


def is_expired(memory: Memory, now: datetime) -> bool:
    """True when ``valid_until`` is set and not after ``now``."""
    until, now_utc = ensure_utc(memory.valid_until), ensure_utc(now)
    return until is not None and now_utc is not None and until <= now_utc


def archive_reason(value: float, floor: float, rank: int, n: int) -> str:
    """Event reason of a retention archive."""
    return (
        f"maintenance: retention {value:.4f} < floor {floor:g} (rank {rank} of {n}, lowest first)"
    )


def still_archivable(memory: Memory, now: datetime, policy: MaintenancePolicy) -> bool:
    """Re-check of one planned archive against a fresh read (an access may have raised it)."""
    return (
        memory.status is MemoryStatus.ACTIVE
        and retention(memory, now, policy.params) < policy.floor
    )


def awaiting_review(memory: Memory) -> bool:
    """True for a memory quarantined by the injection screen that no one has changed since
    (archived, ``metadata.quarantined``, version 1)."""
    return (
        memory.status is MemoryStatus.ARCHIVED
        and bool(memory.metadata.get("quarantined"))
        and memory.version == 1
    )


def purge_after_days(memory: Memory, policy: MaintenancePolicy) -> float | None:
    """Days an archived ``memory`` stays untouched before it is purged; None = never."""
    if awaiting_review(memory):
        return policy.quarantine_purge_after_days
    return policy.purge_after_days


def still_purgeable(memory: Memory, now: datetime, policy: MaintenancePolicy) -> bool:
    """True when ``memory`` is due for purging at ``now`` (the plan, and the re-check of one
    planned purge against a fresh read)."""
    now_utc = ensure_utc(now)
    assert now_utc is not None
    days = purge_after_days(memory, policy)
    if days is None or memory.status is not MemoryStatus.ARCHIVED:
        return False
    return last_touch(memory) <= now_utc - timedelta(days=days)


def _purge_reason(memory: Memory, policy: MaintenancePolicy) -> str:
    since = f"{last_touch(memory):%Y-%m-%d %H:%M} UTC"
    if awaiting_review(memory):
        return (
            f"maintenance: quarantined (injection suspected), unreviewed since {since} "
            f"(>= {policy.quarantine_purge_after_days:g} days, MEMORY_QUARANTINE_PURGE_DAYS)"
        )
    return (
        f"maintenance: archived and untouched since {since} (>= {policy.purge_after_days:g} days)"
    )


def plan_maintenance(
    tenant_id: str,
    active: Iterable[Memory],
    archived: Iterable[Memory],
    *,
    now: datetime,
    policy: MaintenancePolicy,
) -> MaintenancePlan:
    """The plan for one tenant from its ``active`` and ``archived`` memories (see module doc)."""
    now_utc = ensure_utc(now)
    assert now_utc is not None
    changes: list[PlannedChange] = []
    active_list = list(active)
    live: list[Memory] = []
    for m in active_list:
        if is_expired(m, now_utc):
            changes.append(
                PlannedChange(
                    memory_id=m.id,
                    action="expire",
                    version=m.version,
                    retention=retention(m, now_utc, policy.params),
                    reason=f"expire: valid_until {ensure_utc(m.valid_until):%Y-%m-%d %H:%M} UTC "
                    f"<= {now_utc:%Y-%m-%d %H:%M} UTC",
                    content=m.content,
                )
            )
        else:
            live.append(m)
    ranked = rank_by_retention(live, now_utc, policy.params)
    bottom = math.ceil(policy.bottom_fraction * len(ranked))
    for rank, (m, value) in enumerate(ranked[:bottom], start=1):
        if value >= policy.floor:
            break  # ranked lowest first: nothing later is below the floor either
        changes.append(
            PlannedChange(
                memory_id=m.id,
                action="archive",
                version=m.version,
                retention=value,
                reason=archive_reason(value, policy.floor, rank, len(ranked)),
                content=m.content,
            )
        )
    archived_list = list(archived)
    waiting = 0
    for m in archived_list:
        if still_purgeable(m, now_utc, policy):
            changes.append(
                PlannedChange(
                    memory_id=m.id,
                    action="purge",
                    version=m.version,
                    retention=retention(m, now_utc, policy.params),
                    reason=_purge_reason(m, policy),
                    content=m.content,
                )
            )
        elif awaiting_review(m):
            waiting += 1
    return MaintenancePlan(
        tenant_id=tenant_id,
        now=now_utc,
        policy=policy,
        scanned_active=len(active_list),
        scanned_archived=len(archived_list),
        awaiting_review=waiting,
        changes=changes,
    )
