"""``EditService``, the edit side of ``MemoryEngine``: preview, update, archive, restore, delete, purge.

Every change is one store call that writes the row and its audit event together, with an
optimistic version check (VersionConflictError on a stale ``expected_version``).
"""

from __future__ import annotations

import difflib
import uuid
from collections.abc import Sequence
from typing import Any

from memory_engine import text as textmod
from memory_engine.deps import EngineDeps, as_uuid, check_scope
from memory_engine.entities import memory_terms
from memory_engine.errors import InvalidInputError, MemoryAlreadyActiveError, MemoryDeletedError
from memory_engine.models import (
    EventAction,
    Memory,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
)
from memory_engine.security.policy import (
    findings_in,
    redact_stored,
    refuse_blocked,
    screen_write,
)
from memory_engine.text import clean_text
from memory_engine.write.legs import fill_legs

#: Fields ``update`` accepts.
EDITABLE_FIELDS = ("content", "importance", "memory_type", "tags", "entities", "confidence")

#: The event action of each status change made by archive(), restore() and delete().
_STATUS_ACTIONS = {
    MemoryStatus.ARCHIVED: EventAction.ARCHIVE,
    MemoryStatus.ACTIVE: EventAction.RESTORE,
    MemoryStatus.DELETED: EventAction.DELETE,
}


class EditService:
    """Edits; each records who (``actor``) and why (``reason``) in the audit trail.

    Args:
        deps: the bundle (settings, store, embedder).
    """

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def preview_update(
        self, scope: Scope, memory_id: uuid.UUID | str, **changes: Any
    ) -> dict[str, Any]:
        """What ``update`` would change: ``{field: (before, after)}`` plus ``content_diff``.

        Unchanged fields are omitted; ``content_diff`` is a unified diff (may be empty).
        """
        scope = check_scope(scope)
        mem = self._deps.store.get(as_uuid(memory_id), scope=scope)
        normalised, _ = self._screened_changes(scope, changes)
        diff: dict[str, Any] = {}
        for key, value in normalised.items():
            before = getattr(mem, key)
            if before != value:
                diff[key] = (before, value)
        content_diff = ""
        if "content" in diff:
            content_diff = "\n".join(
                difflib.unified_diff(
                    mem.content.splitlines(),
                    diff["content"][1].splitlines(),
                    "before",
                    "after",
                    lineterm="",
                )
            )
        return {"fields": diff, "content_diff": content_diff, "version": mem.version}

    def _reason(self, scope: Scope, reason: str | None) -> str | None:
        """An edit's reason through the PII redaction pass (``security.policy.redact_stored``)."""
        return redact_stored(reason, tenant_id=scope.tenant_id, settings=self._deps.settings)

    def _screened_changes(
        self, scope: Scope, changes: dict[str, Any]
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """``_normalise_changes``, then the write screen: new tags and entities through the
        tenant's PII policy (redacted, or SensitiveDataError under ``block``), new content
        through ``screen_write`` (PII policy, then injection, as for a manual write). Returns
        (changes, metadata entries recording the screen)."""
        out = self._normalise_changes(changes)
        settings = self._deps.settings
        lists: dict[str, Any] = {k: out[k] for k in ("tags", "entities") if k in out}
        if lists:
            refuse_blocked(
                findings_in(lists, settings), tenant_id=scope.tenant_id, settings=settings
            )
            out.update(redact_stored(lists, tenant_id=scope.tenant_id, settings=settings))
        if "content" not in out:
            return out, {}
        screened = screen_write(
            out["content"],
            source=MemorySource.MANUAL,
            tenant_id=scope.tenant_id,
            settings=self._deps.settings,
            escalate_manual=False,
        )
        out["content"] = screened.text
        return out, screened.metadata()

    def _normalise_changes(self, changes: dict[str, Any]) -> dict[str, Any]:
        """Validate edited values; raises InvalidInputError naming the field for any bad one."""
        out: dict[str, Any] = {}
        for key, value in changes.items():
            if value is None:
                continue
            if key not in EDITABLE_FIELDS:
                raise InvalidInputError(f"field {key!r} cannot be edited", field=key)
            out[key] = self._normalise_value(key, value)
        return out

    def _normalise_value(self, key: str, value: Any) -> Any:
        if key == "content":
            return clean_text(
                value, max_chars=self._deps.settings.write.max_input_chars, field="content"
            )
        if key in ("importance", "confidence"):
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise InvalidInputError(f"{key} must be a number in [0, 1]", field=key)
            number = float(value)
            if not 0.0 <= number <= 1.0:  # also rejects NaN
                raise InvalidInputError(f"{key} must be in [0, 1]", field=key, value=str(value))
            return number
        if key == "memory_type":
            try:
                return MemoryType(value)
            except ValueError as exc:
                allowed = ", ".join(t.value for t in MemoryType)
                raise InvalidInputError(
                    f"memory_type must be one of {allowed}", field=key, value=repr(value)[:80]
                ) from exc
        # tags, entities: a list of strings
        if isinstance(value, (str, bytes)) or not isinstance(value, (list, tuple, set)):
            raise InvalidInputError(f"{key} must be a list of strings", field=key)
        if not all(isinstance(t, str) for t in value):
            raise InvalidInputError(f"{key} must be a list of strings", field=key)
        return tuple(
            dict.fromkeys(clean_text(t, max_chars=200, field=key) for t in value if t.strip())
        )

    def update(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str,
        actor: str = "api",
        content: str | None = None,
        importance: float | None = None,
        memory_type: MemoryType | str | None = None,
        tags: Sequence[str] | None = None,
        entities: Sequence[str] | None = None,
        confidence: float | None = None,
    ) -> Memory:
        """Edit a memory; re-embeds when the content changes. ``reason`` is required. New
        content passes the write screen (``security.policy.screen_write``) like any write.

        Raises:
            InvalidInputError (no reason, bad value), MemoryNotFoundError, VersionConflictError,
            SensitiveDataError (the tenant's PII policy is ``block``), MemoryDeletedError (the
            memory is deleted: restore it first).
        """
        scope = check_scope(scope)
        if not reason or not str(reason).strip():
            raise InvalidInputError("a reason is required for every edit")
        changes, screen = self._screened_changes(
            scope,
            {
                "content": content,
                "importance": importance,
                "memory_type": memory_type,
                "tags": tags,
                "entities": entities,
                "confidence": confidence,
            },
        )
        if not changes:
            raise InvalidInputError("nothing to change")
        current = self._live(scope, memory_id, "update")
        embedding = terms = None
        if screen:  # what the screen found joins the memory's metadata (earlier findings kept)
            changes["metadata"] = {**current.metadata, **screen}
        if "content" in changes or "entities" in changes:
            # the keyword terms hold the content's and the entity names' terms
            terms = memory_terms(
                changes.get("content", current.content),
                changes.get("entities", current.entities),
            )
        if "content" in changes:
            changes["content_hash"] = textmod.content_hash(changes["content"])
            embedding = self._deps.embedder.embed([changes["content"]])[0]
        updated = self._deps.store.update(
            as_uuid(memory_id),
            scope=scope,
            expected_version=expected_version,
            changes=changes,
            embedding=embedding,
            terms=terms,
            actor=actor,
            reason=self._reason(scope, reason),
        )
        if embedding is not None:  # the store cleared the extra legs' vectors of the old text
            fill_legs(
                self._deps.store,
                self._deps.dense_legs(searching=False),
                [(updated.id, updated.content)],
                scope=scope,
            )
        return updated

    def _live(self, scope: Scope, memory_id: uuid.UUID | str, what: str) -> Memory:
        """The memory, unless it is deleted. The store's version check on the change that
        follows refuses a memory deleted in between (VersionConflictError).

        Raises:
            MemoryNotFoundError, MemoryDeletedError.
        """
        current = self._deps.store.get(as_uuid(memory_id), scope=scope)
        if current.status is MemoryStatus.DELETED:
            raise MemoryDeletedError(
                f"memory {current.id} is deleted; restore it before you {what} it",
                memory_id=str(current.id),
                version=current.version,
            )
        return current

    def _set_status(
        self,
        status: MemoryStatus,
        scope: Scope,
        memory_id: uuid.UUID | str,
        expected_version: int,
        reason: str | None,
        actor: str,
    ) -> Memory:
        """Change the status with its event action (archive, restore or delete). Only restore
        may leave ``deleted``; archive or delete of a deleted memory is MemoryDeletedError."""
        scope = check_scope(scope)
        if status is not MemoryStatus.ACTIVE:
            self._live(scope, memory_id, _STATUS_ACTIONS[status].value)
        else:
            current = self._deps.store.get(as_uuid(memory_id), scope=scope)
            if current.status is MemoryStatus.ACTIVE:
                raise MemoryAlreadyActiveError(
                    f"memory {current.id} is already active; nothing to restore",
                    memory_id=str(current.id),
                    version=current.version,
                )
        return self._deps.store.update(
            as_uuid(memory_id),
            scope=scope,
            expected_version=expected_version,
            changes={"status": status},
            actor=actor,
            reason=self._reason(scope, reason),
            action=_STATUS_ACTIONS[status].value,
        )

    def archive(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str | None = None,
        actor: str = "api",
    ) -> Memory:
        """Hide a memory from default search (kept, restorable)."""
        return self._set_status(
            MemoryStatus.ARCHIVED, scope, memory_id, expected_version, reason, actor
        )

    def restore(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str | None = None,
        actor: str = "api",
    ) -> Memory:
        """Make an archived or deleted memory active again.

        Raises:
            MemoryAlreadyActiveError: already active (nothing changes: no new version, no event).
            MemoryNotFoundError, VersionConflictError.
        """
        return self._set_status(
            MemoryStatus.ACTIVE, scope, memory_id, expected_version, reason, actor
        )

    def delete(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        expected_version: int,
        reason: str | None = None,
        actor: str = "api",
    ) -> Memory:
        """Soft delete: status ``deleted`` (hidden everywhere by default; purge removes it).

        Raises:
            MemoryDeletedError: already deleted (nothing changes: no new version, no event).
            MemoryNotFoundError, VersionConflictError.
        """
        return self._set_status(
            MemoryStatus.DELETED, scope, memory_id, expected_version, reason, actor
        )

    def purge(
        self,
        scope: Scope,
        memory_id: uuid.UUID | str,
        *,
        reason: str | None = None,
        actor: str = "api",
    ) -> None:
        """Hard delete (erasure): row, vector and keyword terms removed, the content redacted
        from every audit snapshot and stored trace; a ``purge`` event remains.

        The write journal keeps no input of a write that produced or quotes the memory
        (``WriteJournal.erase_memory``). ``purge_verified`` (``lifecycle.service``) does the
        same and then proves it with a ``purge_proof`` event.
        """
        scope = check_scope(scope)
        mid = as_uuid(memory_id)
        content = self._deps.store.get(mid, scope=scope).content
        self._deps.store.purge(mid, scope=scope, actor=actor, reason=self._reason(scope, reason))
        self._deps.journal.erase_memory(scope.tenant_id, mid, content)
