"""The Memories page's edits of several memories at once, and their undo.

Every change goes through the engine's public edit methods (``archive``, ``restore``,
``delete``, ``update``), one memory at a time with its own version check, so each change is
one audit event carrying the reason and the actor. A memory that cannot take the change (a
stale version, already in that status, deleted) is reported and the others still change.

An archive or a delete returns an :class:`UndoRecord`: what each memory was before, and the
version the change produced. :func:`undo` puts each memory back (restore; then archive again
when it was archived before a delete), with its own audited reason, and only when nobody
changed the memory since (its version is still the one the change produced).

No Streamlit import: usable (and tested) outside a script run.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from memory_engine import Memory, MemoryEngine, MemoryStatus, Scope
from memory_engine.errors import InvalidInputError, MemoryEngineError, VersionConflictError
from memory_engine.models import Event

#: The bulk actions of the Memories page.
BULK_ACTIONS: Final = ("archive", "restore", "delete", "retag")
#: Actions an :class:`UndoRecord` can take back.
UNDOABLE: Final = ("archive", "delete")


@dataclass(frozen=True)
class UndoStep:
    """One memory of an undoable change.

    Attributes:
        memory_id: the memory.
        before: its status before the change (``active`` or ``archived``).
        version: the version the change produced (undo refuses any other).
    """

    memory_id: uuid.UUID
    before: MemoryStatus
    version: int


@dataclass(frozen=True)
class UndoRecord:
    """How to take back one archive or delete (of one memory or a bulk selection).

    Attributes:
        action: ``archive`` or ``delete``.
        reason: the reason of the change (quoted by the undo's own reason).
        steps: one per memory changed.
    """

    action: str
    reason: str
    steps: tuple[UndoStep, ...]


@dataclass
class BulkOutcome:
    """What a bulk action (or an undo) did.

    Attributes:
        changed: the memories as they are after the change.
        failed: ``(memory id, error)`` of each memory left unchanged.
        undo: how to take the change back (archive and delete only; None when nothing changed).
    """

    changed: list[Memory] = field(default_factory=list)
    failed: list[tuple[uuid.UUID, MemoryEngineError]] = field(default_factory=list)
    undo: UndoRecord | None = None


def _required(reason: str) -> str:
    text = (reason or "").strip()
    if not text:
        raise InvalidInputError("a reason is required for every change")
    return text


def change_status(
    engine: MemoryEngine,
    scope: Scope,
    memories: Sequence[Memory],
    action: str,
    *,
    reason: str,
    actor: str,
) -> BulkOutcome:
    """Archive, restore or delete ``memories`` (each at the version given) with one reason.

    Args:
        memories: the memories as the user saw them (their ``version`` is the expected one).
        action: ``archive``, ``restore`` or ``delete``.
        reason: required, recorded on every event.

    Raises:
        InvalidInputError: blank reason or an unknown action (nothing changes).
    """
    text = _required(reason)
    methods = {"archive": engine.archive, "restore": engine.restore, "delete": engine.delete}
    if action not in methods:
        raise InvalidInputError(f"unknown action {action!r}", field="action")
    outcome = BulkOutcome()
    steps: list[UndoStep] = []
    for memory in memories:
        try:
            after = methods[action](
                scope, memory.id, expected_version=memory.version, reason=text, actor=actor
            )
        except MemoryEngineError as exc:
            outcome.failed.append((memory.id, exc))
            continue
        outcome.changed.append(after)
        steps.append(UndoStep(memory.id, memory.status, after.version))
    if action in UNDOABLE and steps:
        outcome.undo = UndoRecord(action, text, tuple(steps))
    return outcome


def retag(
    engine: MemoryEngine,
    scope: Scope,
    memories: Sequence[Memory],
    *,
    add: Iterable[str] = (),
    remove: Iterable[str] = (),
    reason: str,
    actor: str,
) -> BulkOutcome:
    """Add and remove tags on ``memories`` with one reason (memories whose tags would not
    change are left alone and not reported).

    Raises:
        InvalidInputError: blank reason, or no tag to add or remove.
    """
    text = _required(reason)
    plus = [t for t in dict.fromkeys(add) if t]
    minus = {t for t in remove if t}
    if not plus and not minus:
        raise InvalidInputError("name a tag to add or to remove", field="tags")
    outcome = BulkOutcome()
    for memory in memories:
        tags = [t for t in memory.tags if t not in minus]
        tags += [t for t in plus if t not in tags]
        if tags == list(memory.tags):
            continue
        try:
            after = engine.update(
                scope,
                memory.id,
                expected_version=memory.version,
                reason=text,
                actor=actor,
                tags=tags,
            )
        except MemoryEngineError as exc:
            outcome.failed.append((memory.id, exc))
            continue
        outcome.changed.append(after)
    return outcome


def undo(
    engine: MemoryEngine, scope: Scope, record: UndoRecord, *, reason: str, actor: str
) -> BulkOutcome:
    """Take back ``record``: each memory returns to its status before the change.

    A memory changed since (another version) is not touched and is reported as a
    VersionConflictError; so is one that no longer exists (MemoryNotFoundError).

    Args:
        reason: the undo's reason (recorded on the restore, and on the archive that follows
            when the memory was archived before a delete).
    """
    text = _required(reason)
    outcome = BulkOutcome()
    for step in record.steps:
        try:
            current = engine.get(scope, step.memory_id)
            if current.version != step.version:
                raise VersionConflictError(
                    f"memory {step.memory_id} changed since (version {current.version})",
                    memory_id=str(step.memory_id),
                    expected=step.version,
                    actual=current.version,
                )
            after = engine.restore(
                scope, step.memory_id, expected_version=step.version, reason=text, actor=actor
            )
            if step.before is MemoryStatus.ARCHIVED:
                after = engine.archive(
                    scope, step.memory_id, expected_version=after.version, reason=text, actor=actor
                )
        except MemoryEngineError as exc:
            outcome.failed.append((step.memory_id, exc))
            continue
        outcome.changed.append(after)
    return outcome


def undo_from_history(memory: Memory, last: Event | None) -> UndoRecord | None:
    """The undo of a memory's newest event when it is an archive or a delete (the Undo of the
    history panel, once the flash message is gone).

    Args:
        memory: the memory as it is now.
        last: its newest event (None: no history).

    Returns:
        None unless ``last`` is an archive or a delete that the memory's status still shows;
        the status to return to is the one of the event's ``before`` snapshot.
    """
    if last is None:
        return None
    action = last.action.value
    wanted = {"archive": MemoryStatus.ARCHIVED, "delete": MemoryStatus.DELETED}.get(action)
    if wanted is None or memory.status is not wanted:
        return None
    before = before_status(last.before)
    if before is wanted:
        return None
    step = UndoStep(memory.id, before, memory.version)
    return UndoRecord(action, last.reason or "", (step,))


def before_status(snapshot: Mapping[str, Any] | None) -> MemoryStatus:
    """The status in an event's ``before`` snapshot (``active`` when missing or unknown)."""
    raw = (snapshot or {}).get("status")
    try:
        return MemoryStatus(str(raw))
    except ValueError:
        return MemoryStatus.ACTIVE
