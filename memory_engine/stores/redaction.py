"""Backend-neutral redaction of a purged memory's content from history and traces.

A purge is an erasure: after it, no stored copy of the memory's text may remain. Copies live
in (1) the ``before``/``after`` snapshots of the memory's audit events and (2) stored search
traces (candidate entries of every leg and the rendered memory block). Both stores call these
functions, so they redact exactly the same fields:

* snapshots: ``content`` -> :data:`REDACTED`, ``entities``/``tags`` -> ``[]``,
  ``metadata`` -> ``{}``, ``source_ref`` -> None, ``content_hash`` -> ``""``; ids, type, status,
  times, version, importance and confidence stay (the skeleton the audit trail needs);
* traces: the same for every candidate entry with the memory's id, and each block line that
  holds the escaped content is replaced by ``N. [purged]``.

The trace's own ``query`` text is the caller's input, not the memory, and is kept.
"""

from __future__ import annotations

import uuid
from typing import Any

from memory_engine.errors import TenantScopeError
from memory_engine.models import Event, Scope
from memory_engine.text import escaped_forms

#: What redacted content reads.
REDACTED = "[purged]"

#: Snapshot fields replaced by a redaction, with their redacted values.
REDACTED_FIELDS: dict[str, Any] = {
    "content": REDACTED,
    "entities": [],
    "tags": [],
    "metadata": {},
    "source_ref": None,
    "content_hash": "",
}


def redact_snapshot(snapshot: dict[str, Any] | None) -> dict[str, Any] | None:
    """The snapshot with :data:`REDACTED_FIELDS` applied (None stays None)."""
    if not isinstance(snapshot, dict):
        return snapshot
    return {**snapshot, **{k: v for k, v in REDACTED_FIELDS.items() if k in snapshot}}


def snapshot_has_content(snapshot: dict[str, Any] | None) -> bool:
    """True when the snapshot still holds non-redacted content."""
    return isinstance(snapshot, dict) and snapshot.get("content", REDACTED) != REDACTED


def _entries(trace: dict[str, Any]) -> list[dict[str, Any]]:
    out = [c for c in trace.get("candidates") or [] if isinstance(c, dict)]
    for leg in (trace.get("legs") or {}).values():
        out.extend(c for c in leg or [] if isinstance(c, dict))
    return out


def trace_has_content(trace: dict[str, Any], memory_id: uuid.UUID) -> bool:
    """True when a candidate entry of ``memory_id`` in the trace (JSON dict) holds content."""
    mid = str(memory_id)
    return any(
        str(c.get("memory_id")) == mid and c.get("content") != REDACTED for c in _entries(trace)
    )


def redact_trace(trace: dict[str, Any], memory_id: uuid.UUID) -> tuple[dict[str, Any], bool]:
    """``(redacted trace, changed)`` for a trace as JSON (``Trace.model_dump(mode="json")``)."""
    mid = str(memory_id)
    contents: set[str] = set()

    def fix(c: Any) -> Any:
        if isinstance(c, dict) and str(c.get("memory_id")) == mid:
            if c.get("content") and c.get("content") != REDACTED:
                contents.add(str(c["content"]))
            return {**c, "content": REDACTED}
        return c

    out = dict(trace)
    out["candidates"] = [fix(c) for c in trace.get("candidates") or []]
    out["legs"] = {
        name: [fix(c) for c in leg or []] for name, leg in (trace.get("legs") or {}).items()
    }
    if not contents:
        return trace, False
    block = str(trace.get("block") or "")
    if block:
        escaped = [form for c in contents for form in escaped_forms(c)]
        lines = []
        for line in block.split("\n"):
            if any(e and e in line for e in escaped):
                number = line.split(".", 1)[0]
                line = f"{number}. {REDACTED}" if number.isdigit() else REDACTED
            lines.append(line)
        out["block"] = "\n".join(lines)
    return out, True


def check_event_scope(event: Event, scope: Scope) -> None:
    """Raises TenantScopeError when ``event`` belongs to another tenant than ``scope``."""
    if event.tenant_id != scope.tenant_id:
        raise TenantScopeError(
            "the event belongs to another tenant than the scope",
            event_tenant=event.tenant_id,
            tenant_id=scope.tenant_id,
        )
