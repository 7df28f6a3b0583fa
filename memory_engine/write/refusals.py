"""Writes refused by the tenant's PII policy (``block``): recorded, never silently dropped.

A refused write leaves two traces, neither holding a sensitive value:

* an audit event (``decision``, no memory id) whose ``details["pii"]`` names the kinds and
  count and whose reason says why (the Audit page shows it);
* in extract mode and for queued writes, a ``refused`` row in the write journal whose request
  text is the *redacted* input (the Write Inspector shows it).

The raised ``SensitiveDataError`` gets ``write_id`` (when journalled) in its details.
"""

from __future__ import annotations

import logging
from typing import Any

from memory_engine import text as textmod
from memory_engine.config import Settings
from memory_engine.errors import MemoryEngineError, SensitiveDataError
from memory_engine.models import Event, EventAction, Scope
from memory_engine.security.pii import PiiPolicy
from memory_engine.security.policy import redact_stored
from memory_engine.stores.base import MemoryStore
from memory_engine.text import clean_text
from memory_engine.write.journal import WriteJournal
from memory_engine.write.raw import WriteRequest
from memory_engine.write.request_checks import SCREENED_FIELDS, screen_request

log = logging.getLogger(__name__)


def refusal_pii(error: SensitiveDataError) -> dict[str, Any]:
    """``{"policy": "block", "kinds": [...], "count": n}`` of a refusal (the metadata shape)."""
    kinds = [k for k in str(error.details.get("kinds", "")).split(",") if k]
    return {
        "policy": PiiPolicy.BLOCK.value,
        "kinds": sorted(kinds),
        "count": int(error.details.get("count", len(kinds))),
    }


def record_refusal_event(
    store: MemoryStore,
    scope: Scope,
    error: SensitiveDataError,
    *,
    actor: str,
    request_id: str | None = None,
) -> None:
    """Append the audit event of a refused write. A store failure is logged, not raised: the
    caller still raises the refusal itself, so nothing is lost either way."""
    pii = refusal_pii(error)
    event = Event(
        tenant_id=scope.tenant_id,
        action=EventAction.DECISION,
        actor=actor,
        reason=f"write refused: sensitive data ({', '.join(pii['kinds'])}); PII policy block",
        request_id=request_id,
        details={"refused": True, "pii": pii},
    )
    try:
        store.append_event(event, scope=scope)
    except MemoryEngineError:
        log.warning("could not record the refusal event of tenant %s", scope.tenant_id)


def screen_or_refuse(
    request: WriteRequest,
    scope: Scope,
    *,
    settings: Settings,
    journal: WriteJournal,
    store: MemoryStore,
    mode: str,
    actor: str,
) -> tuple[WriteRequest, str]:
    """``screen_request`` (the screened request and its cleaned text), recording a refusal in
    the journal and the audit log first.

    Raises:
        SensitiveDataError: the tenant's policy is ``block`` and listed PII was found (its
            details gain ``write_id``, the journal row of the refusal).
        EmptyContentError, ContentTooLargeError, InvalidInputError: the text itself is bad.
    """
    try:
        return screen_request(request, scope, settings)
    except SensitiveDataError as exc:
        cleaned = clean_text(request.text, max_chars=settings.write.max_input_chars)
        fields = {name: getattr(request, name) for name in SCREENED_FIELDS}
        safe_fields = redact_stored(
            {**fields, "text": cleaned}, tenant_id=scope.tenant_id, settings=settings
        )
        safe = safe_fields["text"]
        safe_fields["metadata"] = {**safe_fields["metadata"], "pii": refusal_pii(exc)}
        safe_request = request.model_copy(update=safe_fields)
        write_id = journal.refuse(
            scope,
            mode,
            safe_request.model_dump(mode="json"),
            actor,
            textmod.content_hash(safe),
            exc.to_dict(),
        )
        exc.details["write_id"] = write_id
        record_refusal_event(store, scope, exc, actor=actor, request_id=write_id)
        raise
