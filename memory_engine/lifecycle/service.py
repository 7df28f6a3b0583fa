"""``LifecycleService``: retention, maintenance (expire, archive, purge), verified purge and
"forget a user".

Concurrency: maintenance plans from a snapshot, then applies each change with the version it
planned against (``expected_version``); a memory edited, restored or written meanwhile makes the
store raise VersionConflictError and the change is skipped and reported, never applied over the
newer state. An access does not bump the version, so each archive/purge is re-checked against a
fresh read right before it is applied (an access since planning cancels it).

After a search, access counting and restore on a strong match run in
:mod:`memory_engine.lifecycle.access`.
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta
from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.deps import EngineDeps, as_uuid, check_scope
from memory_engine.errors import (
    InvalidInputError,
    MemoryNotFoundError,
    VersionConflictError,
)
from memory_engine.lifecycle.erasure import (
    ContentCache,
    ErasureCheck,
    PurgePreview,
    ReadProbe,
    build_checks,
    erase_working_quotes,
    run_probes,
    working_quotes,
)
from memory_engine.lifecycle.plan import (
    MaintenancePlan,
    MaintenancePolicy,
    PlannedChange,
    is_expired,
    plan_maintenance,
    still_archivable,
    still_purgeable,
)
from memory_engine.models import (
    Event,
    EventAction,
    Memory,
    MemoryFilter,
    MemoryStatus,
    Scope,
    ensure_utc,
)
from memory_engine.scoring import PRESET_ARCHIVE_FLOOR, RetentionParams, retention
from memory_engine.security.policy import redact_stored

log = logging.getLogger(__name__)

#: Actor name of maintenance changes.
MAINTENANCE_ACTOR = "maintenance"
_ALL = tuple(MemoryStatus)


class MaintenanceReport(BaseModel):
    """Result of one maintenance run of one tenant.

    ``applied`` counts changes made per action; ``skipped`` lists planned changes not made,
    each ``{"memory_id", "action", "why"}`` (``changed``: edited/accessed/gone since planning,
    ``conflict``: a concurrent write won the version check).
    """

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    dry_run: bool
    plan: MaintenancePlan
    applied: dict[str, int] = Field(default_factory=dict)
    skipped: list[dict[str, str]] = Field(default_factory=list)
    seconds: float = 0.0


class PurgeProof(BaseModel):
    """The deletion receipt of a verified purge (also the ``details`` of its ``purge_proof``
    event, which ``memory-engine purge --json`` prints as is).

    ``checks`` lists every place checked (``lifecycle.erasure``): index counts and read paths,
    each with its count before and after the purge. ``checked`` holds the index counts after
    it (:meth:`MemoryStore.index_presence`, ``journal_writes_with_content``,
    ``working_memory_entries``); ``dense_hit``/``keyword_hit``: the id came back from a dense
    search with the memory's own content vector, or a keyword search with its terms, over
    every status; ``row_found``: a ``get`` still found it; ``redacted``: copies rewritten by
    the second pass (journal writes, working-memory entries, events, traces). ``ok`` is True
    when every check passes and nothing was found.
    """

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    tenant_id: str = ""
    at: datetime
    checked: dict[str, int]
    dense_hit: bool
    keyword_hit: bool
    row_found: bool
    redacted: dict[str, int] = Field(default_factory=dict)
    checks: list[ErasureCheck] = Field(default_factory=list)
    probes: dict[str, Any] = Field(default_factory=dict)
    ok: bool

    @property
    def failed(self) -> list[str]:
        """Names of the checks that did not pass (empty when ``ok``)."""
        return [c.name for c in self.checks if not c.ok]


class ForgetReport(BaseModel):
    """Result of :meth:`LifecycleService.forget_user`."""

    model_config = ConfigDict(frozen=True)

    tenant_id: str
    user_id: str
    found: int
    purged: int
    verified: int
    failed: list[str] = Field(default_factory=list)
    traces_deleted: int = 0
    working_sessions_cleared: int = 0


def retention_params(settings: Settings, **overrides: Any) -> RetentionParams:
    """Retention parameters from ``settings`` (preset, half-life, access weight), with
    non-None ``overrides`` (what-if sliders; ``preset`` picks another preset)."""
    values: dict[str, Any] = {
        "half_life_days": settings.lifecycle.retention_half_life_days,
        "access_weight": settings.lifecycle.retention_access_weight,
    }
    values.update({k: v for k, v in overrides.items() if v is not None and k != "preset"})
    return RetentionParams.for_preset(
        overrides.get("preset") or settings.lifecycle.retention_preset, **values
    )


class LifecycleService:
    """Retention, maintenance, verified purge and forget-user over ``deps.store``.

    Args:
        deps: the bundle (settings, store, embedder, clock).
        clear_user_sessions: forgets every working-memory session of a scope's user and
            returns how many (``ContextService.clear_user_sessions``); ``forget_user`` calls it
            first.
        read_probes: the read paths a deletion receipt re-queries, by name
            (``lifecycle.erasure.READ_PATHS``; the engine passes its get, list, search and
            as-of reads); none: the receipt has index checks only.
        content_cache: the as-of embedding cache a purge empties of the erased text
            (``HistoryService``); none: counted as 0.
    """

    def __init__(
        self,
        deps: EngineDeps,
        *,
        clear_user_sessions: Callable[[Scope], int],
        read_probes: Mapping[str, ReadProbe] | None = None,
        content_cache: ContentCache | None = None,
    ) -> None:
        self._deps = deps
        self._clear_user_sessions = clear_user_sessions
        self._read_probes = dict(read_probes or {})
        self._content_cache = content_cache

    # ------------------------------------------------------------------ retention
    def retention_params(self, **overrides: Any) -> RetentionParams:
        """Retention parameters from settings (preset, half-life, access weight), with
        non-None ``overrides`` (what-if sliders)."""
        return retention_params(self._deps.settings, **overrides)

    def maintenance_policy(
        self, params: RetentionParams | None = None, **overrides: Any
    ) -> MaintenancePolicy:
        """Thresholds from settings (floor defaults to the preset's), with ``overrides``."""
        p = params or self.retention_params()
        s = self._deps.settings
        floor = s.lifecycle.retention_archive_floor
        values: dict[str, Any] = {
            "params": p,
            "floor": PRESET_ARCHIVE_FLOOR[p.preset] if floor is None else floor,
            "bottom_fraction": s.lifecycle.retention_archive_bottom_fraction,
            "purge_after_days": s.lifecycle.retention_purge_after_days,
            "quarantine_purge_after_days": s.lifecycle.quarantine_purge_days,
        }
        values.update({k: v for k, v in overrides.items() if v is not None})
        return MaintenancePolicy.model_validate(values)

    def retention(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        now: datetime | None = None,
        params: RetentionParams | None = None,
    ) -> float:
        """Retention of one memory at ``now`` (default: the current time, UTC)."""
        memory = self._deps.store.get(as_uuid(memory_id), scope=check_scope(scope))
        return retention(memory, now or self._deps.clock(), params or self.retention_params())

    def iter_memories(
        self, scope: Scope, statuses: tuple[MemoryStatus, ...] = ()
    ) -> Iterator[Memory]:
        """Every memory of the scope with one of ``statuses`` (all when empty), page by page."""
        scope = check_scope(scope)
        cursor: str | None = None
        filters = MemoryFilter(statuses=statuses)
        while True:
            page = self._deps.store.list(
                scope=scope,
                filters=filters,
                limit=self._deps.settings.limits.list_max_limit,
                cursor=cursor,
            )
            yield from page.items
            cursor = page.next_cursor
            if not cursor:
                return

    # ------------------------------------------------------------------ maintenance
    def plan_maintenance(
        self,
        scope: Scope,
        *,
        now: datetime | None = None,
        policy: MaintenancePolicy | None = None,
    ) -> MaintenancePlan:
        """What :meth:`maintain` would do now for the scope's tenant (reads only)."""
        scope = Scope.of(check_scope(scope).tenant_id)
        return plan_maintenance(
            scope.tenant_id,
            self.iter_memories(scope, (MemoryStatus.ACTIVE,)),
            self.iter_memories(scope, (MemoryStatus.ARCHIVED,)),
            now=ensure_utc(now) or self._deps.clock(),
            policy=policy or self.maintenance_policy(),
        )

    def maintain(
        self,
        scope: Scope,
        *,
        now: datetime | None = None,
        dry_run: bool = False,
        policy: MaintenancePolicy | None = None,
        actor: str = MAINTENANCE_ACTOR,
        progress: Callable[[int, int], None] | None = None,
    ) -> MaintenanceReport:
        """Run maintenance for the scope's tenant: expire, archive, purge (module doc).

        Args:
            now: the clock (UTC; default now). Tests and what-if views pass a future time.
            dry_run: plan only; the report's ``plan`` is exactly what a real run would apply.
            progress: called with (changes done, changes planned) after each change.

        Each change is one event (``archive`` with reason ``expire: ...`` or
        ``maintenance: ...``; ``purge`` followed by its ``purge_proof``).
        """
        t0 = time.perf_counter()
        plan = self.plan_maintenance(scope, now=now, policy=policy)
        if dry_run:
            return MaintenanceReport(
                tenant_id=plan.tenant_id,
                dry_run=True,
                plan=plan,
                seconds=round(time.perf_counter() - t0, 3),
            )
        tenant = Scope.of(plan.tenant_id)
        applied = {"archive": 0, "purge": 0, "expire": 0}
        skipped: list[dict[str, str]] = []
        total = len(plan.changes)
        for done, change in enumerate(plan.changes, start=1):
            why = self._apply_change(tenant, change, plan, actor)
            if why is None:
                applied[change.action] += 1
            else:
                skipped.append(
                    {"memory_id": str(change.memory_id), "action": change.action, "why": why}
                )
            if progress is not None:
                progress(done, total)
        return MaintenanceReport(
            tenant_id=plan.tenant_id,
            dry_run=False,
            plan=plan,
            applied=applied,
            skipped=skipped,
            seconds=round(time.perf_counter() - t0, 3),
        )

    def _apply_change(
        self, scope: Scope, change: PlannedChange, plan: MaintenancePlan, actor: str
    ) -> str | None:
        """Apply one planned change; returns None when applied, else why it was skipped."""
        try:
            fresh = self._deps.store.get(change.memory_id, scope=scope)
        except MemoryNotFoundError:
            return "changed"
        if fresh.version != change.version:
            return "changed"
        ok = {
            "expire": lambda m: m.status is MemoryStatus.ACTIVE and is_expired(m, plan.now),
            "archive": lambda m: still_archivable(m, plan.now, plan.policy),
            "purge": lambda m: still_purgeable(m, plan.now, plan.policy),
        }[change.action](fresh)
        if not ok:
            return "changed"
        try:
            if change.action == "purge":
                self.purge_verified(
                    scope,
                    change.memory_id,
                    reason=change.reason,
                    actor=actor,
                    expected_version=change.version,
                )
            else:
                self._deps.store.update(
                    change.memory_id,
                    scope=scope,
                    expected_version=change.version,
                    changes={"status": MemoryStatus.ARCHIVED},
                    actor=actor,
                    reason=change.reason,
                    action=EventAction.ARCHIVE.value,
                )
        except VersionConflictError:
            return "conflict"
        except MemoryNotFoundError:
            return "changed"
        return None

    def maintain_all(
        self, *, now: datetime | None = None, dry_run: bool = False, actor: str = MAINTENANCE_ACTOR
    ) -> list[MaintenanceReport]:
        """:meth:`maintain` for every tenant (tenant list through the audited admin path)."""
        tenants = self._deps.store.admin_tenant_counts(
            actor=actor, reason="maintenance: all tenants"
        )
        return [self.maintain(Scope.of(t), now=now, dry_run=dry_run, actor=actor) for t in tenants]

    # ------------------------------------------------------------------ verified deletion
    def _index_counts(self, tenant: Scope, mid: uuid.UUID, content: str) -> dict[str, int]:
        """Every index count of a receipt (``lifecycle.erasure.INDEX_CHECKS``)."""
        checked = self._deps.store.index_presence(mid, scope=tenant, content=content)
        return {
            **checked,
            "journal_writes_with_content": self._deps.journal.quotes(tenant.tenant_id, content),
            "working_memory_entries": working_quotes(
                self._deps.working_memory.store, tenant.tenant_id, content
            ),
            "as_of_cache_entries": (
                self._content_cache.cached_copies(content) if self._content_cache else 0
            ),
        }

    def purge_preview(self, scope: Scope, memory_id: uuid.UUID | str) -> PurgePreview:
        """What :meth:`purge_verified` would erase now, counted (nothing changes): the row,
        its vector, keyword postings, entity links, event snapshots and reasons, stored traces
        and journalled writes quoting it, working-memory entries quoting it, and the hits of
        every read path.

        Raises:
            MemoryNotFoundError: no such memory in the scope. StoreUnavailableError.
        """
        scope = check_scope(scope)
        mid = as_uuid(memory_id)
        memory = self._deps.store.get(mid, scope=scope)
        tenant = Scope.of(scope.tenant_id)
        counts = self._index_counts(tenant, mid, memory.content)
        reads, errors = run_probes(
            self._read_probes, tenant, mid, memory.content, self._deps.clock()
        )
        return PurgePreview(
            memory_id=mid,
            tenant_id=scope.tenant_id,
            memory_type=memory.memory_type.value,
            status=memory.status.value,
            version=memory.version,
            created_at=memory.created_at,
            counts=counts,
            reads=reads,
            errors=errors,
        )

    def purge_verified(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        reason: str | None = None,
        actor: str = "api",
        expected_version: int | None = None,
    ) -> PurgeProof:
        """Purge (erase) a memory, then prove it: re-query every index and every read path and
        record the receipt.

        Steps: read the memory; count everything that holds it (:meth:`purge_preview`'s
        counts: the receipt's ``before``); embed its content and tokenize it (the probes);
        purge (row, vector, keyword terms, content redacted from events and traces); erase it
        from the write journal (``WriteJournal.erase_memory``: inputs, trails) and from the
        working-memory buffers; re-run the redaction if anything still holds content; then
        count again (``after``), run a ``get``, a dense search with the content's own vector
        and a keyword search with its terms (every status), and every read path
        (``read_probes``). A ``purge_proof`` event stores the receipt
        (``PurgeProof.model_dump(mode="json")``) with its reason ``verified deletion`` or
        ``verified deletion FAILED``.

        Raises:
            MemoryNotFoundError, VersionConflictError (``expected_version`` stale),
            StoreUnavailableError (then nothing was erased when the working store is down).
        """
        scope = check_scope(scope)
        mid = as_uuid(memory_id)
        memory = self._deps.store.get(mid, scope=scope)
        tenant = Scope.of(scope.tenant_id)
        content = memory.content
        before = self._index_counts(tenant, mid, content)
        reads_before, _ = run_probes(self._read_probes, tenant, mid, content, self._deps.clock())
        vector = self._deps.embedder.embed([content])[0]
        terms = list(dict.fromkeys(textmod.tokenize(content)))
        reason = redact_stored(reason, tenant_id=scope.tenant_id, settings=self._deps.settings)
        just_before = self._deps.clock() - timedelta(microseconds=1)
        self._deps.store.purge(
            mid, scope=scope, actor=actor, reason=reason, expected_version=expected_version
        )
        scrubbed = self._deps.journal.erase_memory(scope.tenant_id, mid, content)
        working = erase_working_quotes(self._deps.working_memory.store, scope.tenant_id, content)
        redacted: dict[str, int] = {"journal_writes": scrubbed} if scrubbed else {}
        if working:
            redacted["working_memory_entries"] = working
        if self._content_cache is not None and self._content_cache.forget_content(content):
            redacted["as_of_cache_entries"] = 1
        checked = self._deps.store.index_presence(mid, scope=tenant, content=content)
        if (
            checked["events_with_content"]
            or checked["traces_with_content"]
            or checked.get("reasons_with_content")
        ):
            redacted.update(self._deps.store.redact_history(mid, scope=tenant, content=content))
        checked = self._index_counts(tenant, mid, content)
        try:
            self._deps.store.get(mid, scope=tenant)
            row_found = True
        except MemoryNotFoundError:
            row_found = False
        dense = self._deps.store.dense_search(vector, scope=tenant, k=50, statuses=_ALL)
        keyword = (
            self._deps.store.keyword_search(terms, scope=tenant, k=50, statuses=_ALL)
            if terms
            else []
        )
        dense_hit = any(c.memory.id == mid for c in dense)
        keyword_hit = any(c.memory.id == mid for c in keyword)
        reads_after, errors = run_probes(self._read_probes, tenant, mid, content, just_before)
        checks = build_checks(before, checked, reads_before, reads_after, errors)
        ok = not (row_found or dense_hit or keyword_hit) and all(c.ok for c in checks)
        proof = PurgeProof(
            memory_id=mid,
            tenant_id=scope.tenant_id,
            at=self._deps.clock(),
            checked=checked,
            dense_hit=dense_hit,
            keyword_hit=keyword_hit,
            row_found=row_found,
            redacted=redacted,
            checks=checks,
            probes={
                "dense_k": 50,
                "keyword_terms": len(terms),
                "statuses": "all",
                "as_of": just_before.isoformat(),
            },
            ok=ok,
        )
        self._deps.store.append_event(
            Event(
                tenant_id=scope.tenant_id,
                memory_id=mid,
                action=EventAction.PURGE_PROOF,
                actor=actor,
                reason="verified deletion" if ok else "verified deletion FAILED",
                details=proof.model_dump(mode="json"),
            ),
            scope=tenant,
        )
        if not ok:
            log.error("verified purge of %s failed: %s", mid, proof.model_dump(mode="json"))
        return proof

    def forget_user(
        self,
        scope: Scope,
        *,
        reason: str,
        actor: str = "api",
        progress: Callable[[int, int], None] | None = None,
    ) -> ForgetReport:
        """Erase everything of (tenant, user): the user's working-memory sessions first (so a
        backend that is down fails the call before anything is purged), then every memory (any
        status) with a verified purge, then the user's stored search traces.

        Raises:
            InvalidInputError: the scope has no ``user_id`` or no reason is given.
        """
        scope = check_scope(scope)
        if scope.user_id is None:
            raise InvalidInputError("forget_user needs a scope with user_id")
        if not reason or not reason.strip():
            raise InvalidInputError("a reason is required to forget a user")
        user_scope = Scope.of(scope.tenant_id, user_id=scope.user_id)
        sessions = self._clear_user_sessions(user_scope)
        ids = [m.id for m in self.iter_memories(user_scope)]
        purged = verified = 0
        failed: list[str] = []
        for i, mid in enumerate(ids, start=1):
            try:
                proof = self.purge_verified(user_scope, mid, reason=reason, actor=actor)
                purged += 1
                verified += int(proof.ok)
                if not proof.ok:
                    failed.append(str(mid))
            except MemoryNotFoundError:
                pass  # purged concurrently: nothing left to forget
            if progress is not None:
                progress(i, len(ids))
        traces = self._deps.store.delete_traces(scope=user_scope)
        return ForgetReport(
            tenant_id=scope.tenant_id,
            user_id=scope.user_id,
            found=len(ids),
            purged=purged,
            verified=verified,
            failed=failed,
            traces_deleted=traces,
            working_sessions_cleared=sessions,
        )
