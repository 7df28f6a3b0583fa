"""After a search: access counting and restore on a strong match, off the response path.

Access counting (``settings.lifecycle.record_access``): one batched store write per search for the
returned memories, without an audit event (an access is not a change of the memory; which
searches returned it is in the stored traces), made by one background worker per engine after
the response (``flush`` waits for it; ``close`` flushes). Failures are logged, never raised: the
search result is already returned. Counts still queued when a process is killed are lost (they
are advisory).
"""

from __future__ import annotations

import logging
import uuid
from concurrent.futures import Future, ThreadPoolExecutor
from datetime import datetime

from memory_engine.deps import EngineDeps
from memory_engine.errors import (
    InvalidInputError,
    MemoryEngineError,
    MemoryNotFoundError,
    VersionConflictError,
)
from memory_engine.lifecycle.plan import is_expired
from memory_engine.models import EventAction, Memory, MemoryStatus, Scope, SearchResult
from memory_engine.stores.guard import GuardedStore, report_alarms

log = logging.getLogger(__name__)


class AccessBookkeeper:
    """The one background worker of an engine that records what each search returned.

    Args:
        deps: the bundle (settings, store, embedder, clock, lock).

    The worker thread is started by the first search that has something to record.
    """

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._executor: ThreadPoolExecutor | None = None
        self._last: Future[None] | None = None

    def after_search(self, scope: Scope, query: str, result: SearchResult) -> None:
        """Queue the bookkeeping of a search (access counts, restore on a strong match) on
        the background worker (docs/architecture.md#search-pipeline). Never raises."""
        s = self._deps.settings
        ids = [c.memory.id for c in result.memories] if s.lifecycle.record_access else []
        restore = s.lifecycle.retention_restore_min_cosine is not None
        if not ids and not restore:
            return
        at = self._deps.clock()
        with self._deps.lock:
            if self._executor is None:
                self._executor = ThreadPoolExecutor(
                    max_workers=1, thread_name_prefix="memory-access"
                )
            self._last = self._executor.submit(self._record, scope, query, result, ids, at, restore)

    def _record(
        self,
        scope: Scope,
        query: str,
        result: SearchResult,
        ids: list[uuid.UUID],
        at: datetime,
        restore: bool,
    ) -> None:
        try:
            if ids:
                self._deps.store.record_access(ids, scope=scope, at=at)
            if restore:
                self.restore_on_match(scope, query, result)
        except MemoryEngineError as exc:
            log.warning("after-search bookkeeping failed: %s", exc.message)
        except Exception:  # noqa: BLE001 - a worker must not die silently
            log.exception("after-search bookkeeping failed")

    def flush(self, timeout: float = 30.0) -> None:
        """Wait until the bookkeeping of every search made so far is written (tests, close)."""
        future = self._last
        if future is not None:
            future.result(timeout=timeout)  # one worker: the last task finishes last

    def close(self) -> None:
        """Finish the queued bookkeeping and stop the worker. Safe to call twice; a later
        search starts a new worker."""
        with self._deps.lock:  # no search submits to the executor being shut down
            executor, self._executor = self._executor, None
        if executor is not None:
            executor.shutdown(wait=True)

    def restore_on_match(self, scope: Scope, query: str, result: SearchResult) -> list[Memory]:
        """Restore archived memories whose cosine to ``query`` >= the setting (not expired,
        never quarantined: prompt injection from an untrusted source waits for a reviewer);
        each restore is a ``restore`` event naming the trace and the cosine. The search runs
        behind the cross-tenant guard (stage ``restore:dense``): a foreign row is dropped,
        logged and audited, never restored."""
        deps = self._deps
        threshold = deps.settings.lifecycle.retention_restore_min_cosine
        if threshold is None:
            return []
        vector = deps.embedder.embed([query])[0]
        guard = GuardedStore(deps.store, scope, stage_prefix="restore:")
        hits = guard.dense_search(vector, scope=scope, k=5, statuses=(MemoryStatus.ARCHIVED,))
        report_alarms(
            guard,
            reason="cross-tenant rows dropped from the restore-on-match search",
            trace_id=str(result.trace.id),
        )
        now = deps.clock()
        restored: list[Memory] = []
        for c in hits:
            cosine = c.scores.get("cosine", -1.0)
            if cosine < threshold or is_expired(c.memory, now):
                continue
            if c.memory.metadata.get("quarantined"):  # only a reviewer releases it
                continue
            try:
                restored.append(
                    deps.store.update(
                        c.memory.id,
                        scope=Scope.of(scope.tenant_id),
                        expected_version=c.memory.version,
                        changes={"status": MemoryStatus.ACTIVE},
                        actor="lifecycle",
                        reason=f"restore: search {result.trace.id} matched with cosine "
                        f"{cosine:.3f} >= {threshold:g}",
                        action=EventAction.RESTORE.value,
                    )
                )
            except (VersionConflictError, MemoryNotFoundError, InvalidInputError) as exc:
                log.info("restore on match skipped for %s: %s", c.memory.id, exc)
        return restored
