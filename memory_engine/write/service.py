"""``WriteService``: every write of ``MemoryEngine``, the durable queue, trails and rate limits.

* ``write`` / ``write_many`` / ``ingest``: raw mode (``write/raw.py``: one memory per chunk)
  or, with ``mode="extract"``, through ``write_extract``.
* ``write_extract``: one input through guard -> evaluate+extract -> dedupe -> judge -> commit
  (``write/extract.py``), recorded in the write journal with its decision trail.
* ``enqueue_write`` / ``process_pending_writes`` / a background worker: the durable queue
  behind ``write(..., wait=False)`` (``write/journal.py``; survives a process kill).
* ``write_status``, ``list_writes``, ``write_trail``, ``retry_write``: reading the journal.

Every memory event a write causes carries ``request_id`` = the write id, which links the
store's audit events to the trail.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import ValidationError

from memory_engine.deps import EngineDeps, check_scope
from memory_engine.errors import InvalidInputError, MemoryEngineError, error_from_dict
from memory_engine.llm.usage import UsageMeter, metering
from memory_engine.models import TURN_KEY, MemorySource, MemoryType, Page, Scope, with_turn
from memory_engine.stores.base import InsertOutcome
from memory_engine.text import clean_text
from memory_engine.write.consolidate import ConsolidationReport, consolidate
from memory_engine.write.continuation import previous_rows
from memory_engine.write.extract import Outcome, PipelineParts, reinforce, run_extract
from memory_engine.write.ingest import Turn
from memory_engine.write.limits import TokenBuckets
from memory_engine.write.raw import WriteRequest, WriteResult, write_batch
from memory_engine.write.records import AcceptedWrite, WriteAction, WriteMode
from memory_engine.write.refusals import screen_or_refuse
from memory_engine.write.request_checks import check_metadata
from memory_engine.write.worker import QueueWorker


def _result(index: int, outcome: Outcome) -> WriteResult:
    outcomes = []
    for a in outcome.actions:
        if a.planned:
            continue
        mid = uuid.UUID(a.memory_id)
        if a.action == "create":
            outcomes.append(InsertOutcome(memory_id=mid, status="created"))
        elif a.action == "duplicate":
            outcomes.append(InsertOutcome(memory_id=mid, status="duplicate", existing_id=mid))
    return WriteResult(
        index=index,
        outcomes=outcomes,
        write_id=outcome.write_id,
        remembered=outcome.remembered,
        reason=outcome.reason,
        actions=outcome.action_dicts(),
        warnings=outcome.warnings,
    )


def _turn_metadata(turn: Turn) -> dict[str, Any]:
    """The metadata of a turn's memory: the turn's own, its speaker and its turn index."""
    meta = dict(turn.metadata)
    if turn.speaker:
        meta = {"speaker": turn.speaker, **meta}
    if turn.turn_index is not None:
        meta[TURN_KEY] = turn.turn_index
    return meta


class WriteService:
    """Raw and extract-mode writes, the durable write queue and its worker, write trails, rate
    limits and consolidation (lazy: nothing opens until used).

    Args:
        deps: the bundle (settings, store, embedder, llm, journal, extractor, lock).

    State: the LLM call limit (``llm_max_concurrency`` concurrent calls, shared by every
    write of this service), the per-session token buckets and the background worker
    (``write/worker.QueueWorker``).
    """

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps
        self._call_limit: threading.BoundedSemaphore | None = None
        self._buckets: TokenBuckets | None = None
        self._worker = QueueWorker(
            lambda batch: self.process_pending_writes(max_items=batch), deps.lock
        )

    def _parts(self) -> PipelineParts:
        deps = self._deps
        if self._call_limit is None:
            with deps.lock:
                if self._call_limit is None:
                    self._call_limit = threading.BoundedSemaphore(deps.settings.llm.max_concurrency)
        return PipelineParts(
            settings=deps.settings,
            store=deps.store,
            embedder=deps.embedder,
            llm=deps.llm,
            limit=self._call_limit,
            legs=deps.dense_legs(searching=False),
        )

    def rate_limit(self, scope: Scope) -> float:
        """Take one write token of the scope's session (``MEMORY_WRITE_RATE_PER_SESSION``);
        sleeps while none is free; returns seconds waited. Raises RateLimitedError."""
        if self._buckets is None:
            with self._deps.lock:
                if self._buckets is None:
                    self._buckets = TokenBuckets(self._deps.settings.write.rate_per_session)
        key = f"{scope.tenant_id}/{scope.session_id or scope.user_id or '-'}"
        return self._buckets.acquire(key)

    def write(
        self,
        scope: Scope,
        text: str,
        *,
        source: MemorySource = MemorySource.MANUAL,
        source_ref: str | None = None,
        observed_at: Any = None,
        memory_type: MemoryType = MemoryType.EPISODIC,
        importance: float = 0.5,
        tags: Sequence[str] = (),
        metadata: dict[str, Any] | None = None,
        actor: str = "api",
        reason: str | None = None,
        mode: Literal["raw", "extract"] | None = None,
        wait: bool = True,
        entities: Sequence[str] = (),
        turn: int | None = None,
    ) -> WriteResult:
        """Remember ``text``. Raises the typed error of a bad input.

        Args:
            turn: the text's turn index (0..``MAX_TURN_INDEX``) in the conversation session
                ``scope.session_id`` (required with it), stored as ``metadata["turn"]``: the
                explicit conversation structure session smoothing uses (facts extracted from
                the text carry it too).
            entities: names of the entities the text is about ("ACME", "Priya", "用户的儿子");
                each stored memory is linked to them (one entity per normalised name, see
                ``memory_engine.entities``); extract mode adds the extracted facts' own.
            mode: ``raw`` (one memory per chunk) or ``extract`` (should-remember, facts,
                duplicates and conflicts; see ``write_extract``); default
                ``MEMORY_WRITE_MODE``.
            wait: False = accept into the durable queue and return at once: the result has
                only ``write_id`` (poll ``write_status``); the write survives a process kill.

        Returns:
            WriteResult with one outcome per stored memory: ``created`` or ``duplicate``
            (extract mode adds ``remembered``, ``reason``, ``actions``, ``warnings``).

        Raises:
            EmptyContentError, ContentTooLargeError, InvalidInputError, EmbeddingMismatchError,
            RateLimitedError (more than ``MEMORY_WRITE_RATE_PER_SESSION`` writes/s for 30 s).
        """
        clean_text(
            text, max_chars=self._deps.settings.write.max_input_chars
        )  # raises the typed error
        mode = mode or self._deps.settings.write.mode
        metadata = with_turn(metadata or {}, turn, session_id=scope.session_id)
        try:
            req = WriteRequest(
                text=text,
                source=source,
                source_ref=source_ref,
                observed_at=observed_at,
                memory_type=memory_type,
                importance=importance,
                tags=tuple(tags),
                entities=tuple(entities),
                metadata=metadata,
            )
        except ValidationError as exc:  # a wrong type from the caller: the typed error
            raise InvalidInputError.of_validation("invalid write", exc) from None
        if mode == "extract" or not wait:
            self.rate_limit(check_scope(scope))
            if not wait:
                return WriteResult(index=0, write_id=self.enqueue_write(scope, req, mode=mode))
            result = self.write_extract(scope, req, actor=actor)
            if result.error:
                raise error_from_dict(result.error)
            return result
        result = self.write_many(scope, [req], actor=actor, reason=reason)[0]
        if result.error:
            raise error_from_dict(result.error)
        return result

    def write_many(
        self,
        scope: Scope,
        requests: Sequence[WriteRequest],
        *,
        actor: str = "api",
        reason: str | None = None,
        progress: Callable[[int], None] | None = None,
    ) -> list[WriteResult]:
        """Write a batch: each bad item gets its typed error, every good item is stored."""
        scope = check_scope(scope)
        return write_batch(
            requests,
            scope=scope,
            settings=self._deps.settings,
            store=self._deps.store,
            embedder=self._deps.embedder,
            extractor=self._deps.extractor,
            legs=self._deps.dense_legs(searching=False),
            actor=actor,
            reason=reason,
            progress=progress,
        )

    def ingest(
        self,
        scope: Scope,
        conversation: Sequence[Turn],
        *,
        source: MemorySource = MemorySource.CONVERSATION,
        actor: str = "ingest",
        progress: Callable[[int], None] | None = None,
        mode: Literal["raw", "extract"] = "raw",
    ) -> list[WriteResult]:
        """Store each turn as one episodic memory (speaker, time and turn id kept; a turn's
        ``session_id`` and ``turn_index`` become the memory's ``session_id`` and
        ``metadata["turn"]``, its explicit conversation structure, used by session smoothing;
        extracted facts carry their turn's).

        ``mode="extract"`` runs each turn through the extract pipeline instead (assistant and
        system turns skipped), see ``ingest_extract``.
        """
        requests = [
            WriteRequest(
                text=turn.text if mode == "extract" else turn.content(),
                source=source,
                source_ref=turn.turn_id,
                session_id=turn.session_id,
                observed_at=turn.observed_at,
                memory_type=MemoryType.EPISODIC,
                metadata=_turn_metadata(turn),
            )
            for turn in conversation
        ]
        if mode == "extract":
            return self.ingest_extract(scope, requests, actor=actor, progress=progress)
        return self.write_many(scope, requests, actor=actor, reason="ingest", progress=progress)

    # ------------------------------------------------------------------ writes
    def _accept(self, scope: Scope, request: WriteRequest, mode: str, actor: str) -> AcceptedWrite:
        """The guard of a journalled write, run once: scope checked, the PII policy and
        injection screen (a refusal is journalled and audited first: PII never reaches the
        LLM nor the journal), text cleaned, metadata checked.

        Raises:
            EmptyContentError, ContentTooLargeError, InvalidInputError, SensitiveDataError.
        """
        scope = check_scope(scope)
        screened, text = screen_or_refuse(
            request,
            scope,
            settings=self._deps.settings,
            journal=self._deps.journal,
            store=self._deps.store,
            mode=mode,
            actor=actor,
        )
        check_metadata(screened.metadata)
        return AcceptedWrite(scope, screened, text, "raw" if mode == "raw" else "extract", actor)

    def _journal(self, accepted: AcceptedWrite) -> str:
        """Record ``accepted`` in the journal (durable when this returns); its write id."""
        return self._deps.journal.accept(
            accepted.scope,
            accepted.mode,
            accepted.request.model_dump(mode="json"),
            accepted.actor,
            accepted.input_hash,
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
        accepted = self._accept(scope, request, "extract", actor)
        write_id = self._journal(accepted)
        self._deps.journal.mark_running(write_id)
        return self._process(write_id, accepted, dry_run, index)

    def _process(
        self, write_id: str, accepted: AcceptedWrite, dry_run: bool = False, index: int = 0
    ) -> WriteResult:
        """Run one journalled write now (raw: ``write_batch``; extract: exact input hash, then
        ``run_extract``) and record how it ended in the journal."""
        journal = self._deps.journal
        scope, actor = accepted.scope, accepted.actor
        spent: dict[str, Any] | None = None
        try:
            if accepted.mode == "raw":
                raw = write_batch(
                    [accepted.request],
                    scope=scope,
                    settings=self._deps.settings,
                    store=self._deps.store,
                    embedder=self._deps.embedder,
                    extractor=self._deps.extractor,
                    legs=self._deps.dense_legs(searching=False),
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
            previous = previous_rows(
                journal.previous(scope, write_id), journal.get(write_id, scope)
            )
            # the same input after another message may mean something else ("mostly jazz"
            # after "I play guitar"): the exact-hash shortcut only without a previous message
            done = None if dry_run or previous else journal.find_done(scope, accepted.input_hash)
            if done is not None and self._still_active(scope, done):
                outcome = Outcome(
                    write_id,
                    True,
                    "same input as an earlier write (exact hash, no LLM call)",
                    [WriteAction("duplicate", mid) for mid in done["result"]["rows"]],
                    {"write_id": write_id, "duplicate_of_write": done["id"]},
                    [],
                )
                for mid in done["result"]["rows"]:
                    self._reinforce_id(scope, mid, write_id, actor)
            else:
                with metering() as meter:
                    try:
                        outcome = run_extract(
                            accepted,
                            parts=self._parts(),
                            write_id=write_id,
                            dry_run=dry_run,
                            previous=previous,
                        )
                    finally:
                        spent = self._usage(meter)
        except MemoryEngineError as exc:
            return self._fail(write_id, exc, index, usage=spent)
        result = _result(index, outcome)
        if spent is not None:
            result = result.model_copy(update={"usage": spent})
        status = "done" if outcome.remembered and not dry_run else "skipped"
        journal.finish(
            write_id,
            status,
            result={
                "reason": outcome.reason,
                "rows": outcome.rows,
                "actions": result.actions,
                "dry_run": dry_run,
            },
            trail={**outcome.trail, "warnings": outcome.warnings, "usage": spent},
            usage=spent,
        )
        return result

    def _usage(self, meter: UsageMeter) -> dict[str, Any]:
        """The meter's totals with their cost at the configured prices (None if unpriced)."""
        llm = self._deps.settings.llm
        return meter.as_dict(llm.price_input_per_mtok, llm.price_output_per_mtok)

    def _fail(
        self,
        write_id: str,
        exc: MemoryEngineError,
        index: int = 0,
        *,
        usage: dict[str, Any] | None = None,
    ) -> WriteResult:
        """Record ``exc`` as the end of write ``write_id`` (input kept for ``retry_write``),
        with the LLM ``usage`` the failed run spent."""
        error = exc.to_dict()
        error["details"]["write_id"] = write_id
        self._deps.journal.finish(write_id, "failed", error=error, usage=usage)
        return WriteResult(index=index, error=error, write_id=write_id, usage=usage)

    def _still_active(self, scope: Scope, done: dict[str, Any]) -> bool:
        rows = (done.get("result") or {}).get("rows") or []
        if not rows:
            return False
        try:
            return all(
                self._deps.store.get(uuid.UUID(m), scope=scope).status == "active" for m in rows
            )
        except MemoryEngineError:
            return False

    def _reinforce_id(self, scope: Scope, memory_id: str, write_id: str, actor: str) -> None:
        mem = self._deps.store.get(uuid.UUID(memory_id), scope=scope)
        reinforce(self._parts(), scope, mem, write_id, actor)

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
        write_id = self._journal(self._accept(scope, request, mode, actor))  # no PII in it
        self.start_write_worker()
        return write_id

    def process_pending_writes(self, *, max_items: int | None = None) -> int:
        """Process queued writes in this thread, oldest first; returns how many were run."""
        n = 0
        while max_items is None or n < max_items:
            row = self._deps.journal.claim()
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
            self._deps.journal.finish(
                row["id"], "failed", error={"error": "invalid_row", "message": str(exc)}
            )
            return
        try:  # accepted when it was queued; cleaned again as it comes back from disk
            text = clean_text(req.text, max_chars=self._deps.settings.write.max_input_chars)
        except MemoryEngineError as exc:
            self._fail(row["id"], exc)
            return
        mode: WriteMode = "raw" if row["mode"] == "raw" else "extract"
        self._process(row["id"], AcceptedWrite(scope, req, text, mode, row["actor"]))

    def start_write_worker(self, *, poll_seconds: float = 0.2) -> None:
        """Start the background thread that drains the queue (idempotent)."""
        self._worker.start(poll_seconds=poll_seconds)

    def stop_write_worker(self, timeout: float = 10.0) -> None:
        """Stop the background worker after its current write."""
        self._worker.stop(timeout)

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
            rows = [self._deps.journal.get(w, scope) for w in write_ids]
            if all(r["status"] not in ("pending", "running") for r in rows):
                return rows
            if time.monotonic() > deadline:
                return rows
            pause(0.05)

    # ------------------------------------------------------------------ reading the journal
    def write_status(self, scope: Scope, write_id: str) -> dict[str, Any]:
        """One write's journal row (status, result, error, trail). Raises MemoryNotFoundError."""
        return self._deps.journal.get(write_id, check_scope(scope))

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
        return self._deps.journal.list(
            check_scope(scope), limit=self._deps.page_limit(limit), cursor=cursor, status=status
        )

    def write_usage(self, scope: Scope, *, days: int = 30) -> list[dict[str, Any]]:
        """LLM tokens and cost of the scope's writes per UTC day, newest first (see
        ``WriteJournal.usage_by_day``; ``cost`` needs ``MEMORY_LLM_PRICE_*_PER_MTOK``)."""
        return self._deps.journal.usage_by_day(check_scope(scope), days=days)

    def retry_write(self, scope: Scope, write_id: str) -> None:
        """Queue a failed write again (its raw input was kept)."""
        self._deps.journal.retry(write_id, check_scope(scope))
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
            page_size=self._deps.settings.limits.list_max_limit,
            actor=actor,
            dry_run=dry_run,
        )
