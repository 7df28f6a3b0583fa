"""Extract-mode writes, the durable write queue, write trails and rate limits of ``MemoryEngine``.

* ``write_extract``: one input through guard -> evaluate+extract -> dedupe -> judge -> commit
  (``write/extract.py``), recorded in the write journal with its decision trail.
* ``enqueue_write`` / ``process_pending_writes`` / a background worker: the durable queue
  behind ``write(..., wait=False)`` (``write/journal.py``; survives a process kill).
* ``write_status``, ``list_writes``, ``write_trail``, ``retry_write``: reading the journal.

Every memory event a write causes carries ``request_id`` = the write id, which links the
store's audit events to the trail.
"""

from __future__ import annotations

import logging
import threading
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from memory_engine import text as textmod
from memory_engine.deps import EngineBase, check_scope
from memory_engine.errors import InvalidInputError, MemoryEngineError
from memory_engine.llm import WriteLLM, build_llm
from memory_engine.models import Page, Scope
from memory_engine.stores.base import InsertOutcome
from memory_engine.write.consolidate import ConsolidationReport, consolidate
from memory_engine.write.extract import Outcome, PipelineParts, run_extract
from memory_engine.write.guard import clean_text
from memory_engine.write.journal import WriteJournal
from memory_engine.write.limits import TokenBuckets
from memory_engine.write.raw import (
    WriteRequest,
    WriteResult,
    check_metadata,
    write_batch,
)
from memory_engine.write.refusals import screen_or_refuse

log = logging.getLogger(__name__)

JOURNAL_FILE = "write_journal.sqlite3"


def _result(index: int, outcome: Outcome) -> WriteResult:
    outcomes = []
    for a in outcome.actions:
        if a.get("planned"):
            continue
        mid = uuid.UUID(a["memory_id"])
        if a["action"] == "create":
            outcomes.append(InsertOutcome(memory_id=mid, status="created"))
        elif a["action"] == "duplicate":
            outcomes.append(InsertOutcome(memory_id=mid, status="duplicate", existing_id=mid))
    return WriteResult(
        index=index,
        outcomes=outcomes,
        write_id=outcome.write_id,
        remembered=outcome.remembered,
        reason=outcome.reason,
        actions=outcome.actions,
        warnings=outcome.warnings,
    )


class PipelineMixin(EngineBase):
    """Extract-mode writes and the durable write queue (lazy: nothing opens until used)."""

    _llm_obj: WriteLLM | None = None
    _journal_obj: WriteJournal | None = None
    _buckets_obj: TokenBuckets | None = None
    _call_limit: threading.BoundedSemaphore | None = None
    _worker: threading.Thread | None = None
    _worker_stop: threading.Event | None = None

    # ------------------------------------------------------------------ wiring
    @property
    def llm(self) -> WriteLLM:
        """The write-decision LLM (``MEMORY_LLM_PROVIDER``; injectable via ``set_llm``)."""
        if self._llm_obj is None:
            with self._lock:
                if self._llm_obj is None:
                    self._llm_obj = build_llm(self.settings)
        return self._llm_obj

    def set_llm(self, llm: WriteLLM) -> None:
        """Use ``llm`` for write decisions (dependency injection; tests, custom providers)."""
        self._llm_obj = llm

    @property
    def write_journal(self) -> WriteJournal:
        """The SQLite write journal (``MEMORY_WRITE_QUEUE_PATH`` or data_dir/JOURNAL_FILE)."""
        if self._journal_obj is None:
            with self._lock:
                if self._journal_obj is None:
                    path = self.settings.write_queue_path or Path(self.settings.data_dir) / (
                        JOURNAL_FILE
                    )
                    self._journal_obj = WriteJournal(Path(path))
        return self._journal_obj

    def open_write_journal(self, path: Path) -> None:
        """Use the journal at ``path`` from now on (instead of the configured one)."""
        with self._lock:
            if self._journal_obj is not None:
                self._journal_obj.close()
            self._journal_obj = WriteJournal(Path(path))

    def _parts(self) -> PipelineParts:
        if self._call_limit is None:
            with self._lock:
                if self._call_limit is None:
                    self._call_limit = threading.BoundedSemaphore(self.settings.llm_max_concurrency)
        return PipelineParts(
            settings=self.settings,
            store=self.store,
            embedder=self.embedder,
            llm=self.llm,
            limit=self._call_limit,
        )

    def rate_limit(self, scope: Scope) -> float:
        """Take one write token of the scope's session (``MEMORY_WRITE_RATE_PER_SESSION``);
        sleeps while none is free; returns seconds waited. Raises RateLimitedError."""
        if self._buckets_obj is None:
            with self._lock:
                if self._buckets_obj is None:
                    self._buckets_obj = TokenBuckets(self.settings.write_rate_per_session)
        key = f"{scope.tenant_id}/{scope.session_id or scope.user_id or '-'}"
        return self._buckets_obj.acquire(key)

    # ------------------------------------------------------------------ writes
    def _screen(self, request: WriteRequest, scope: Scope, mode: str, actor: str) -> WriteRequest:
        """The PII policy and injection screen; a refusal is journalled and audited first."""
        return screen_or_refuse(
            request,
            scope,
            settings=self.settings,
            journal=self.write_journal,
            store=self.store,
            mode=mode,
            actor=actor,
        )

    def _accept(self, scope: Scope, req: WriteRequest, mode: str, actor: str) -> str:
        cleaned = clean_text(req.text, max_chars=self.settings.max_input_chars)
        check_metadata(req.metadata)
        return self.write_journal.accept(
            scope,
            mode,
            req.model_dump(mode="json"),
            actor,
            textmod.content_hash(cleaned),
        )

    def write_extract(
        self,
        scope: Scope,
        request: WriteRequest,
        *,
        actor: str = "api",
        dry_run: bool = False,
        index: int = 0,
    ) -> WriteResult:
        """One input through the extract pipeline, now; recorded in the journal.

        A dry run decides everything (LLM calls included) but changes no memory; its trail is
        returned in ``WriteResult.actions`` (``planned``) and recorded too.

        Returns:
            WriteResult: ``remembered``, ``reason``, ``actions`` (create / duplicate /
            supersede / supplement), ``outcomes`` of stored rows, ``warnings``, ``write_id``.
            A failure is in ``error`` (``extraction_failed`` keeps the input for
            ``retry_write``), never "success, zero memories".

        Raises:
            EmptyContentError, ContentTooLargeError, InvalidInputError: bad input (not queued).
        """
        scope = check_scope(scope)
        request = self._screen(request, scope, "extract", actor)  # PII never reaches the LLM
        write_id = self._accept(scope, request, "extract", actor)
        self.write_journal.mark_running(write_id)
        return self._process(write_id, scope, request, "extract", actor, dry_run, index)

    def _process(
        self,
        write_id: str,
        scope: Scope,
        req: WriteRequest,
        mode: str,
        actor: str,
        dry_run: bool = False,
        index: int = 0,
    ) -> WriteResult:
        journal = self.write_journal
        try:
            if mode == "raw":
                raw = write_batch(
                    [req],
                    scope=scope,
                    settings=self.settings,
                    store=self.store,
                    embedder=self.embedder,
                    extractor=self._extractor,
                    actor=actor,
                    reason="queued write",
                )[0]
                result = raw.model_copy(update={"write_id": write_id, "index": index})
                if result.error:
                    journal.finish(write_id, "failed", error=result.error)
                else:
                    rows = [str(m) for m in result.memory_ids]
                    journal.finish(write_id, "done", result={"rows": rows, "reason": "raw"})
                return result
            text = clean_text(req.text, max_chars=self.settings.max_input_chars)
            done = None if dry_run else journal.find_done(scope, textmod.content_hash(text))
            if done is not None and self._still_active(scope, done):
                outcome = Outcome(
                    write_id,
                    True,
                    "same input as an earlier write (exact hash, no LLM call)",
                    [{"action": "duplicate", "memory_id": mid} for mid in done["result"]["rows"]],
                    {"write_id": write_id, "duplicate_of_write": done["id"]},
                    [],
                )
                for mid in done["result"]["rows"]:
                    self._reinforce_id(scope, mid, write_id, actor)
            else:
                outcome = run_extract(
                    req,
                    scope=scope,
                    parts=self._parts(),
                    actor=actor,
                    write_id=write_id,
                    text=text,
                    dry_run=dry_run,
                )
        except MemoryEngineError as exc:
            error = exc.to_dict()
            error["details"]["write_id"] = write_id
            journal.finish(write_id, "failed", error=error)
            return WriteResult(index=index, error=error, write_id=write_id)
        result = _result(index, outcome)
        status = "done" if outcome.remembered and not dry_run else "skipped"
        rows = sorted({a["memory_id"] for a in outcome.actions if a.get("memory_id")})
        journal.finish(
            write_id,
            status,
            result={"reason": outcome.reason, "rows": rows, "actions": outcome.actions},
            trail={**outcome.trail, "warnings": outcome.warnings},
        )
        return result

    def _still_active(self, scope: Scope, done: dict[str, Any]) -> bool:
        rows = (done.get("result") or {}).get("rows") or []
        if not rows:
            return False
        try:
            return all(self.store.get(uuid.UUID(m), scope=scope).status == "active" for m in rows)
        except MemoryEngineError:
            return False

    def _reinforce_id(self, scope: Scope, memory_id: str, write_id: str, actor: str) -> None:
        from memory_engine.write.extract import _reinforce

        mem = self.store.get(uuid.UUID(memory_id), scope=scope)
        _reinforce(self._parts(), scope, mem, write_id, actor)

    def ingest_extract(
        self,
        scope: Scope,
        requests: Sequence[WriteRequest],
        *,
        actor: str = "ingest",
        progress: Callable[[int], None] | None = None,
    ) -> list[WriteResult]:
        """Extract-mode ingest: each request in order (so later turns can supersede earlier
        ones); assistant/system turns are skipped. Bad items get their typed error."""
        scope = check_scope(scope)
        out: list[WriteResult] = []
        for i, req in enumerate(requests):
            speaker = str(req.metadata.get("speaker") or "").lower()
            if speaker in ("assistant", "system"):
                out.append(WriteResult(index=i, remembered=False, reason=f"{speaker} turn"))
            else:
                try:
                    out.append(self.write_extract(scope, req, actor=actor, index=i))
                except MemoryEngineError as exc:
                    out.append(WriteResult(index=i, error=exc.to_dict()))
            if progress:
                progress(i + 1)
        return out

    # ------------------------------------------------------------------ queue
    def enqueue_write(
        self, scope: Scope, request: WriteRequest, *, mode: str = "extract", actor: str = "api"
    ) -> str:
        """Accept a write for background processing; durable when this returns.

        Returns:
            The write id (see ``write_status``). Starts the background worker if needed.

        Raises:
            EmptyContentError, ContentTooLargeError, InvalidInputError: bad input (not queued).
        """
        if mode not in ("raw", "extract"):
            raise InvalidInputError(f"unknown write mode {mode!r}", mode=mode)
        scope = check_scope(scope)
        request = self._screen(request, scope, mode, actor)  # the journal holds no PII
        write_id = self._accept(scope, request, mode, actor)
        self.start_write_worker()
        return write_id

    def process_pending_writes(self, *, max_items: int | None = None) -> int:
        """Process queued writes in this thread, oldest first; returns how many were run."""
        n = 0
        while max_items is None or n < max_items:
            row = self.write_journal.claim()
            if row is None:
                break
            self._run_row(row)
            n += 1
        return n

    def _run_row(self, row: dict[str, Any]) -> None:
        try:
            scope = Scope.model_validate(row["scope"])
            req = WriteRequest.model_validate(row["request"])
        except Exception as exc:  # corrupt row: fail it, keep it for inspection
            self.write_journal.finish(
                row["id"], "failed", error={"error": "invalid_row", "message": str(exc)}
            )
            return
        self._process(row["id"], scope, req, row["mode"], row["actor"])

    def start_write_worker(self, *, poll_seconds: float = 0.2) -> None:
        """Start the background thread that drains the queue (idempotent)."""
        with self._lock:
            if self._worker is not None and self._worker.is_alive():
                return
            stop = threading.Event()

            def loop() -> None:
                while not stop.is_set():
                    try:
                        if self.process_pending_writes(max_items=50) == 0:
                            stop.wait(poll_seconds)
                    except Exception:  # keep draining; the row is marked failed or retried
                        log.exception("write worker step failed")
                        stop.wait(poll_seconds)

            self._worker_stop = stop
            self._worker = threading.Thread(target=loop, name="memory-write-worker", daemon=True)
            self._worker.start()

    def stop_write_worker(self, timeout: float = 10.0) -> None:
        """Stop the background worker after its current write."""
        if self._worker_stop is not None:
            self._worker_stop.set()
        if self._worker is not None:
            self._worker.join(timeout)
        self._worker = None

    def wait_for_writes(
        self,
        write_ids: Sequence[str],
        scope: Scope,
        timeout: float = 60.0,
        sleep: Callable[[float], None] | None = None,
    ) -> list[dict[str, Any]]:
        """Block until each write is finished (done, skipped or failed) or ``timeout``."""
        import time

        deadline = time.monotonic() + timeout
        pause = sleep or time.sleep
        while True:
            rows = [self.write_journal.get(w, scope) for w in write_ids]
            if all(r["status"] not in ("pending", "running") for r in rows):
                return rows
            if time.monotonic() > deadline:
                return rows
            pause(0.05)

    # ------------------------------------------------------------------ reading the journal
    def write_status(self, scope: Scope, write_id: str) -> dict[str, Any]:
        """One write's journal row (status, result, error, trail). Raises MemoryNotFoundError."""
        return self.write_journal.get(write_id, check_scope(scope))

    def write_trail(self, scope: Scope, write_id: str) -> dict[str, Any]:
        """The decision trail of one write: source span, guard, LLM calls (prompt, raw output,
        parsed, latency ms, tokens), facts, candidates shown, actions, rows."""
        row = self.write_status(scope, write_id)
        return dict(row.get("trail") or {})

    def list_writes(
        self,
        scope: Scope,
        *,
        limit: int = 50,
        cursor: str | None = None,
        status: str | None = None,
    ) -> Page:
        """Writes of the scope newest first (no trails), keyset-paginated."""
        return self.write_journal.list(
            check_scope(scope), limit=self._limit(limit), cursor=cursor, status=status
        )

    def retry_write(self, scope: Scope, write_id: str) -> None:
        """Queue a failed write again (its raw input was kept)."""
        self.write_journal.retry(write_id, check_scope(scope))
        self.start_write_worker()

    def consolidate(
        self,
        scope: Scope,
        *,
        similarity: float = 0.9,
        max_memories: int = 2000,
        dry_run: bool = False,
        actor: str = "consolidate",
    ) -> ConsolidationReport:
        """Merge clusters of near-duplicate active memories into one (``write/consolidate``).

        Args:
            similarity: cosine in [-1, 1] from which two memories are near-duplicates.
            max_memories: most active memories examined (newest first), 2..20000.

        Returns:
            ConsolidationReport: clusters (members, merged content, survivor), merged count,
            members skipped because they changed while it ran (``conflicts``).
        """
        if not -1.0 <= similarity <= 1.0 or not 2 <= max_memories <= 20_000:
            raise InvalidInputError("similarity must be in [-1, 1], max_memories in [2, 20000]")
        parts = self._parts()
        return consolidate(
            scope=check_scope(scope),
            store=parts.store,
            embedder=parts.embedder,
            llm=parts.llm,
            limit=parts.limit,
            similarity=similarity,
            max_memories=max_memories,
            page_size=self.settings.list_max_limit,
            actor=actor,
            dry_run=dry_run,
        )

    def close(self) -> None:
        """Stop the worker, close the journal and the store. Safe to call twice."""
        self.stop_write_worker()
        if self._journal_obj is not None:
            self._journal_obj.close()
            self._journal_obj = None
        super().close()
