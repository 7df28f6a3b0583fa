"""``ConflictReview`` of ``MemoryEngine``: the supersessions and supplements the write judge
decided, with accept / reject, each decision recorded as a memory event and in the journal.

Every judgement goes to the queue (the judges give no calibrated confidence yet); a reviewed
one says how. Rejecting a supersession restores the old memory to ``active`` (both memories
stay: never zero); accepting it records the review on the old memory. Both are version-checked.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from memory_engine.deps import EngineDeps, as_uuid, check_scope
from memory_engine.errors import InvalidInputError, MemoryEngineError
from memory_engine.models import MemoryStatus, Scope, utcnow
from memory_engine.security.policy import redact_stored

#: Journal rows scanned per ``list_conflicts`` call, per conflict asked for.
SCAN_FACTOR = 4


class ConflictReview:
    """Review queue of write-judge decisions (read from the write journal).

    Args:
        deps: the bundle (settings, store, journal).
    """

    def __init__(self, deps: EngineDeps) -> None:
        self._deps = deps

    def list_conflicts(self, scope: Scope, *, limit: int = 50) -> dict[str, Any]:
        """Recent judge decisions (supersede, supplement) of the scope, newest first.

        Returns:
            ``{"items": [{write_id, at, action, new_id, new_content, old_id, old_content,
            old_status, reason, review}], "truncated": bool}``; ``review`` is None until
            reviewed. Memories purged since are left out.
        """
        scope = check_scope(scope)
        limit = self._deps.page_limit(limit)
        page = self._deps.journal.list(scope, limit=limit * SCAN_FACTOR, status="done")
        items: list[dict[str, Any]] = []
        for row in page.items:
            result = row.get("result") or {}
            reviews = result.get("reviews") or {}
            for a in result.get("actions") or []:
                if a.get("action") not in ("supersede", "supplement") or not a.get("target_id"):
                    continue
                try:
                    new = self._deps.store.get(uuid.UUID(a["memory_id"]), scope=scope)
                    old = self._deps.store.get(uuid.UUID(a["target_id"]), scope=scope)
                except MemoryEngineError:
                    continue
                items.append(
                    {
                        "write_id": row["id"],
                        "at": row["updated_at"],
                        "action": a["action"],
                        "new_id": str(new.id),
                        "new_content": new.content,
                        "old_id": str(old.id),
                        "old_content": old.content,
                        "old_status": old.status.value,
                        "reason": a.get("reason", ""),
                        "review": reviews.get(str(old.id)),
                    }
                )
        return {"items": items[:limit], "truncated": len(items) > limit or page.truncated}

    def review_conflict(
        self,
        scope: Scope,
        write_id: str,
        old_id: uuid.UUID | str,
        *,
        decision: Literal["accept", "reject"],
        reason: str,
        actor: str = "reviewer",
    ) -> dict[str, Any]:
        """Accept or reject one judge decision of write ``write_id`` about memory ``old_id``.

        Raises:
            InvalidInputError: unknown decision, empty reason, or no such decision in the write.
            MemoryNotFoundError: write or memory not in the scope. VersionConflictError.
        """
        scope = check_scope(scope)
        if decision not in ("accept", "reject"):
            raise InvalidInputError("decision must be accept or reject", decision=decision)
        if not reason or not reason.strip():
            raise InvalidInputError("a reason is required for every review")
        row = self._deps.journal.get(write_id, scope)
        old_uuid = as_uuid(old_id)
        actions = (row.get("result") or {}).get("actions") or []
        if not any(a.get("target_id") == str(old_uuid) for a in actions):
            raise InvalidInputError(f"write {write_id} made no decision about {old_uuid}")
        old = self._deps.store.get(old_uuid, scope=scope)
        # stored in the event and the journal: the PII redaction pass of every stored text
        reason = redact_stored(
            reason.strip(), tenant_id=scope.tenant_id, settings=self._deps.settings
        )
        note = f"conflict review ({decision}): {reason}"[:500]
        if decision == "reject" and old.status == MemoryStatus.SUPERSEDED:
            self._deps.store.update(
                old.id,
                scope=scope,
                expected_version=old.version,
                changes={"status": MemoryStatus.ACTIVE, "superseded_by": None, "valid_until": None},
                actor=actor,
                reason=note,
                action="restore",
                request_id=write_id,
            )
        else:
            meta = {**old.metadata, "review": decision}
            self._deps.store.update(
                old.id,
                scope=scope,
                expected_version=old.version,
                changes={"metadata": meta},
                actor=actor,
                reason=note,
                request_id=write_id,
            )
        review = {
            "decision": decision,
            "reason": reason,
            "actor": actor,
            "at": utcnow().isoformat(),
        }
        self._deps.journal.add_review(write_id, str(old_uuid), review)
        return review


__all__ = ["ConflictReview"]
