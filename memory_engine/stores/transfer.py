"""Copy memories between two stores (PostgreSQL <-> Qdrant) and verify the copy.

What is copied, per tenant: every memory record (:class:`~memory_engine.stores.base.MemoryRecord`):
the memory with its original id, version, status, timestamps and all other fields, its vector,
its keyword terms (re-tokenized with :func:`memory_engine.text.tokenize` when the source kept
none), its vector of every extra dense leg (``dense_ml``) and its committed events (actor, time, before/after snapshots, reason, request id) in
their original order; purged memories keep their event history. Event ids are store-local and
numbered anew by the target, in event-time order within a batch. Traces are not copied.

Dense legs: every extra leg the source records is recorded in the target with the same model
and dimension before anything is written (on a new target before its primary embedding, so the
leg is ``ready`` there at once; a Qdrant collection made without the leg is rebuilt with
it), and the leg vectors travel with their records: the target
needs no ``memory-engine reembed``. A source leg still ``filling`` leaves the target's
``filling``; a target leg recorded ``filling`` becomes ``ready`` once every memory of the
target has its vector. The reembed staging leg is never copied.

Re-runs are idempotent: a record the target already holds *identically* is skipped
(``unchanged``); a missing one is written; a record the target holds *differently* (same id,
other fields, vector, terms or events) stops the copy with :class:`TransferConflictError`
before the batch holding it is written: nothing is ever overwritten. Batches before it stay
copied (each equal to the source), so after fixing the conflict a re-run continues where it
stopped. A record the target holds without some leg vectors (a copy killed between a batch's
records and its leg vectors, or a target written by a copy that did not carry legs) gets them.

The verification pass re-reads every record of both stores and compares them field by field
(:func:`memory_engine.stores.record_compare.record_differences`), plus the record, status and event
counts, and lists records that only the target holds.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pydantic import SecretStr, ValidationError

from memory_engine.config import Settings
from memory_engine.entities import memory_terms
from memory_engine.errors import (
    ConfigError,
    EmbeddingMismatchError,
    InvalidInputError,
    LegUnavailableError,
    TransferConflictError,
)
from memory_engine.models import Scope
from memory_engine.stores.base import EXTRA_LEGS, LegRecord, MemoryRecord, MemoryStore, VectorLegs
from memory_engine.stores.record_compare import record_differences

#: ``progress(tenant, phase, done, total)``: phase is ``"copy"`` or ``"verify"``; counts are
#: memory records of the tenant.
ProgressFn = Callable[[str, str, int, int], None]

#: Default records per batch (one read of each store and one write per batch).
DEFAULT_BATCH = 200
#: Most mismatching records listed per tenant in a verification report.
MAX_LISTED = 20


def store_settings(
    base: Settings, kind: str, *, url: str | None = None, path: str | None = None
) -> Settings:
    """``base`` with ``store=kind`` and the location overridden by ``url``/``path``.

    Raises:
        ConfigError: both url and path given, a Qdrant store without any location, or an
            invalid combination (validated like the environment settings).
    """
    if url and path:
        raise ConfigError(f"{kind}: give a URL or a path, not both")
    update: dict[str, Any] = {"store": kind}
    if kind == "postgres":
        if url:
            update["database_url"] = SecretStr(url)
        elif path:
            update["database_url"], update["data_dir"] = None, Path(path)
    else:
        if url:
            update["qdrant_url"], update["qdrant_path"] = url, None
        elif path:
            update["qdrant_url"], update["qdrant_path"] = None, path
    try:
        return Settings.model_validate({**base.model_dump(), **update})
    except ValidationError as exc:
        raise ConfigError(f"{kind}: invalid settings: {exc.errors()[0]['msg']}") from exc


def _no_progress(tenant: str, phase: str, done: int, total: int) -> None:
    """Default progress callback: does nothing."""


def _pages(store: MemoryStore, scope: Scope, batch: int) -> Any:
    """Yield (ids, total) pages of ``store.record_ids`` until the last page."""
    cursor = None
    while True:
        page = store.record_ids(scope=scope, limit=batch, cursor=cursor)
        yield list(page.items), int(page.total or 0)
        cursor = page.next_cursor
        if not cursor:
            return


def _with_terms(record: MemoryRecord) -> MemoryRecord:
    if record.memory is None or record.terms is not None:
        return record
    memory = record.memory
    return record.model_copy(update={"terms": tuple(memory_terms(memory.content, memory.entities))})


def _legs_part(store: MemoryStore) -> VectorLegs | None:
    return getattr(store, "legs", None)  # the store's VectorLegs part


def source_legs(source: MemoryStore) -> dict[str, LegRecord]:
    """The extra dense legs the source records (the staging leg excluded), by name."""
    part = _legs_part(source)
    if part is None:
        return {}
    return {leg: r for leg, r in part.leg_records().items() if leg in EXTRA_LEGS}


def prepare_legs(source: MemoryStore, target: MemoryStore) -> dict[str, LegRecord]:
    """Record in ``target`` every extra leg of ``source`` (same model and dimension); call it
    before the target's primary embedding is recorded, so a new target takes them ``ready``.

    Returns:
        The source's leg records (what the copy carries), by leg name.

    Raises:
        EmbeddingMismatchError: the target records a leg with another model or dimension.
        InvalidInputError: the target store has no dense legs part.
    """
    legs = source_legs(source)
    if not legs:
        return {}
    part = _legs_part(target)
    if part is None:
        raise InvalidInputError(f"the target store ({target.name}) cannot hold dense legs")
    known = part.leg_records()
    for leg, rec in legs.items():
        try:
            have = known.get(leg) or part.ensure_leg(leg, rec.model, rec.dim)
        except LegUnavailableError:  # a Qdrant collection made without the leg: rebuilt
            have = part.replace_leg(leg, rec.model, rec.dim)
        if (have.model, have.dim) != (rec.model, rec.dim):
            raise EmbeddingMismatchError(
                f"the target records its {leg} leg as {have.model} ({have.dim}-d), the source "
                f"as {rec.model} ({rec.dim}-d): run `memory-engine reembed --leg {leg}` on one "
                "of them first",
                leg=leg,
                stored_model=have.model,
                source_model=rec.model,
            )
    return legs


def _read(
    store: MemoryStore, ids: Sequence[uuid.UUID], scope: Scope, legs: Sequence[str]
) -> list[MemoryRecord]:
    """``store.read_records`` with each record's vectors of ``legs``."""
    records = store.read_records(ids, scope=scope)
    part = _legs_part(store)
    if not legs or part is None:
        return records
    stored = [r.memory_id for r in records if r.memory is not None]
    vectors = {leg: part.leg_vectors(leg, stored, scope=scope) for leg in legs}
    return [
        r.model_copy(
            update={"legs": {leg: v[r.memory_id] for leg, v in vectors.items() if r.memory_id in v}}
        )
        for r in records
    ]


def _only_missing_legs(diffs: Sequence[str]) -> bool:
    return bool(diffs) and all(d.startswith("legs.") and d.endswith(" missing") for d in diffs)


def _write_legs(
    target: MemoryStore, records: Sequence[MemoryRecord], legs: Sequence[str], scope: Scope
) -> int:
    """Set the leg vectors of ``records`` in the target; returns vectors written."""
    part = _legs_part(target)
    done = 0
    for leg in legs:
        vectors = {r.memory_id: r.legs[leg] for r in records if leg in r.legs}
        if vectors and part is not None:
            done += part.set_leg_vectors(leg, vectors, scope=scope)
    return done


def settle_leg_states(
    target: MemoryStore,
    legs: dict[str, LegRecord],
    *,
    tenants: Sequence[str] = (),
    actor: str = "memory-engine copy",
) -> dict[str, str]:
    """After a copy, the state of every extra leg the target records.

    A target leg is ``filling`` when the source's was, or when a copied tenant (``tenants``)
    now holds a memory without the leg's vector (the source does not record the leg, or lacks
    some of its vectors): such a leg is not searched until ``memory-engine reembed --leg``
    fills it, instead of missing the copied memories silently. A target leg recorded
    ``filling`` becomes ``ready`` once every memory of every target tenant has its vector (an
    audited read of the target's tenants, only when a leg is ``filling`` there).

    Args:
        target: the store copied into.
        legs: the source's extra leg records (:func:`source_legs`).
        tenants: the tenants just copied.
        actor: the audit actor of the tenant listing.

    Returns:
        The target's leg states by leg name (``{}`` without a legs part or a recorded leg).
    """
    part = _legs_part(target)
    if part is None:
        return {}
    states: dict[str, str] = {
        leg: r.state for leg, r in part.leg_records().items() if leg in EXTRA_LEGS
    }
    for leg, state in states.items():
        if state != "ready":
            continue
        source = legs.get(leg)
        gaps = source is not None and source.state == "filling"
        if not gaps:  # only the copied tenants can have new gaps
            gaps = any(
                filled < total
                for filled, total in (part.leg_counts(leg, scope=Scope.of(t)) for t in tenants)
            )
        if gaps:
            part.set_leg_state(leg, "filling")
            states[leg] = "filling"
    pending = [
        leg
        for leg, st in states.items()
        if st == "filling" and leg in legs and legs[leg].state == "ready"
    ]
    if pending:
        every = target.admin_tenant_ids(actor=actor, reason="check the copied dense legs")
        for leg in pending:
            counts = (part.leg_counts(leg, scope=Scope.of(t)) for t in every)
            if all(filled == total for filled, total in counts):
                part.set_leg_state(leg, "ready")
                states[leg] = "ready"
    return states


def tenant_counts(store: MemoryStore, scope: Scope) -> dict[str, Any]:
    """Counts compared by the verification: records, memories per status, committed events."""
    return {
        "records": int(store.record_ids(scope=scope, limit=1).total or 0),
        "by_status": dict(sorted(store.facet_counts(scope=scope)["status"].items())),
        "events": int(store.events(scope=scope, limit=1).total or 0),
    }


def copy_tenant(
    source: MemoryStore,
    target: MemoryStore,
    tenant: str,
    *,
    batch: int = DEFAULT_BATCH,
    progress: ProgressFn = _no_progress,
) -> dict[str, Any]:
    """Copy one tenant's memory records from ``source`` to ``target`` (see module doc).

    Returns:
        ``{"records", "copied", "unchanged", "events_copied", "leg_vectors_copied",
        "seconds"}`` (seconds: wall time, float; ``unchanged`` counts records already in the
        target, also those that only lacked leg vectors and got them).

    Raises:
        TransferConflictError: the target holds different data for a record's id.
        EmbeddingMismatchError: the target holds vectors of another model or dimension (the
            primary or an extra leg).
        InvalidInputError: ``batch`` outside 1..``list_max_limit`` of either store.
    """
    if batch < 1:
        raise InvalidInputError("batch must be >= 1", batch=batch)
    scope = Scope.of(tenant)
    started = time.perf_counter()
    recorded = source.embedding_info()
    if recorded is not None and target.embedding_info() is not None:
        target.ensure_embedding(*recorded)  # another primary is refused before a leg is touched
    legs = list(prepare_legs(source, target))  # before the primary: a new target takes them
    if recorded is not None:
        target.ensure_embedding(*recorded)
    copied = unchanged = events = done = total = leg_vectors = 0
    for ids, total in _pages(source, scope, batch):
        theirs = _read(target, ids, scope, legs)
        ours = _read(source, ids, scope, legs)
        todo: list[MemoryRecord] = []
        fill: list[MemoryRecord] = []
        conflicts: list[tuple[uuid.UUID, list[str]]] = []
        for src, tgt in zip(ours, theirs, strict=True):
            if tgt.empty:
                todo.append(_with_terms(src))
                continue
            diffs = record_differences(src, tgt)
            if _only_missing_legs(diffs):
                fill.append(src)
            elif diffs:
                conflicts.append((src.memory_id, diffs))
            else:
                unchanged += 1
        if conflicts:
            first_id, first_diffs = conflicts[0]
            raise TransferConflictError(
                f"tenant {tenant}: the target already holds {len(conflicts)} record(s) of this "
                f"batch with different data (first: {first_id}, differs in "
                f"{', '.join(first_diffs[:5])}); nothing of this batch was written",
                tenant_id=tenant,
                memory_ids=",".join(str(i) for i, _ in conflicts[:MAX_LISTED]),
            )
        if todo:
            target.write_records(todo, scope=scope)
        leg_vectors += _write_legs(target, [*todo, *fill], legs, scope)
        unchanged += len(fill)
        copied += len(todo)
        events += sum(len(r.events) for r in todo)
        done += len(ids)
        progress(tenant, "copy", done, max(total, done))
    return {
        "records": done,
        "copied": copied,
        "unchanged": unchanged,
        "events_copied": events,
        "leg_vectors_copied": leg_vectors,
        "seconds": round(time.perf_counter() - started, 3),
    }


def verify_tenant(
    source: MemoryStore,
    target: MemoryStore,
    tenant: str,
    *,
    batch: int = DEFAULT_BATCH,
    progress: ProgressFn = _no_progress,
) -> dict[str, Any]:
    """Compare one tenant in both stores: counts, then every record field by field.

    Returns:
        ``{"ok", "source", "target", "checked", "mismatches", "extra_in_target",
        "truncated", "seconds"}``: ``source``/``target`` are :func:`tenant_counts`;
        ``mismatches`` lists up to :data:`MAX_LISTED` ``{"memory_id", "differences"}`` (a
        record missing in the target differs in ``memory missing`` / ``events (n vs 0)``);
        ``extra_in_target`` up to MAX_LISTED ids only the target holds; ``truncated`` is True
        when either list was cut.
    """
    scope = Scope.of(tenant)
    started = time.perf_counter()
    mismatches: list[dict[str, Any]] = []
    n_mismatch = checked = 0
    seen: set[uuid.UUID] = set()
    legs = list(source_legs(source))
    for ids, total in _pages(source, scope, batch):
        seen.update(ids)
        pairs = zip(_read(source, ids, scope, legs), _read(target, ids, scope, legs), strict=True)
        for src, tgt in pairs:
            diffs = record_differences(src, tgt)
            if diffs:
                n_mismatch += 1
                if len(mismatches) < MAX_LISTED:
                    mismatches.append({"memory_id": str(src.memory_id), "differences": diffs})
        checked += len(ids)
        progress(tenant, "verify", checked, max(total, checked))
    extra: list[str] = []
    n_extra = 0
    for ids, _ in _pages(target, scope, batch):
        for mid in ids:
            if mid not in seen:
                n_extra += 1
                if len(extra) < MAX_LISTED:
                    extra.append(str(mid))
    src_counts, tgt_counts = tenant_counts(source, scope), tenant_counts(target, scope)
    return {
        "ok": n_mismatch == 0 and n_extra == 0 and src_counts == tgt_counts,
        "source": src_counts,
        "target": tgt_counts,
        "checked": checked,
        "mismatched": n_mismatch,
        "mismatches": mismatches,
        "extra_in_target": extra,
        "extra": n_extra,
        "truncated": n_mismatch > len(mismatches) or n_extra > len(extra),
        "seconds": round(time.perf_counter() - started, 3),
    }


def copy_stores(
    source: MemoryStore,
    target: MemoryStore,
    *,
    tenants: Sequence[str] | None = None,
    batch: int = DEFAULT_BATCH,
    verify: bool = True,
    progress: ProgressFn = _no_progress,
    actor: str = "memory-engine copy",
) -> dict[str, Any]:
    """Copy ``tenants`` (None = every tenant of the source, an audited admin read) and verify.

    Returns:
        JSON-ready report ``{"source", "target", "tenants": {tenant: {"copy", "verify"}},
        "legs": {leg: target state}, "totals": {"tenants", "records", "copied", "unchanged",
        "events_copied", "leg_vectors_copied", "seconds", "records_per_s"}, "ok"}``; ``ok`` is False when a verification found a difference
        (``verify=False``: True after the copy).

    Raises:
        TransferConflictError, EmbeddingMismatchError: see :func:`copy_tenant`; tenants
            copied before the failing one stay copied.
        InvalidInputError: source and target are the same store object, or a tenant named in
            ``tenants`` has no memory record (memory or purge history) in the source; checked
            before anything is copied, so a mistyped tenant id copies nothing.
    """
    if source is target:
        raise InvalidInputError("source and target are the same store")
    if tenants is not None:
        names = list(dict.fromkeys(tenants))
        missing = [t for t in names if source.record_ids(scope=Scope.of(t), limit=1).total == 0]
        if missing:
            raise InvalidInputError(
                f"tenant(s) {', '.join(missing)} have no memories in the source store "
                f"({source.name}); nothing was copied",
                tenant_ids=",".join(missing),
            )
    else:
        names = source.admin_tenant_ids(actor=actor, reason="copy every tenant to another store")
    started = time.perf_counter()
    report: dict[str, Any] = {"source": source.name, "target": target.name, "tenants": {}}
    ok = True
    for tenant in names:
        entry: dict[str, Any] = {
            "copy": copy_tenant(source, target, tenant, batch=batch, progress=progress)
        }
        if verify:
            entry["verify"] = verify_tenant(source, target, tenant, batch=batch, progress=progress)
            ok = ok and bool(entry["verify"]["ok"])
        report["tenants"][tenant] = entry
    report["legs"] = settle_leg_states(target, source_legs(source), tenants=names, actor=actor)
    seconds = time.perf_counter() - started
    copies = [e["copy"] for e in report["tenants"].values()]
    copied = sum(c["copied"] for c in copies)
    copy_seconds = sum(c["seconds"] for c in copies)
    report["totals"] = {
        "tenants": len(names),
        "records": sum(c["records"] for c in copies),
        "copied": copied,
        "unchanged": sum(c["unchanged"] for c in copies),
        "events_copied": sum(c["events_copied"] for c in copies),
        "leg_vectors_copied": sum(c["leg_vectors_copied"] for c in copies),
        "seconds": round(seconds, 3),
        "records_per_s": round(copied / copy_seconds, 1) if copy_seconds > 0 else None,
    }
    report["ok"] = ok
    return report
