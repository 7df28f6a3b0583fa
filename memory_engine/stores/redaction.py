"""Backend-neutral redaction of a purged memory's content from history and traces.

A purge is an erasure: after it, no stored copy of the memory's text may remain. Copies live
in (1) the ``before``/``after`` snapshots of the memory's audit events and (2) stored search
traces (candidate entries of every leg and the rendered memory block). Both stores call these
functions, so they redact exactly the same fields:

* snapshots: ``content`` -> :data:`REDACTED`, ``entities``/``tags`` -> ``[]``,
  ``metadata`` -> ``{}``, ``source_ref`` -> None, ``content_hash`` -> ``""``; ids, type, status,
  times, version, importance and confidence stay (the skeleton the audit trail needs);
* traces: the same for every candidate entry with the memory's id, and each block line that
  holds the escaped content is replaced by ``N. [purged]``; a trace whose query (or searched
  query, or recent turn) quotes the memory's text (:func:`quotes`: one holds the other, or
  they share a run of :data:`QUOTE_MIN_CHARS` characters) has that text replaced by
  :data:`REDACTED` and its query terms emptied;
* reasons: every event of the memory except its ``purge`` and ``purge_proof`` events has its
  ``reason`` replaced by :data:`REDACTED` (an update or delete reason may quote the text); the
  purge event's own reason keeps only what does not quote the text (:func:`erase_quotes`).
"""

from __future__ import annotations

import uuid
from difflib import SequenceMatcher
from typing import Any

from memory_engine.errors import TenantScopeError
from memory_engine.escaping import escaped_forms
from memory_engine.models import Event, Scope

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


#: Events whose reason survives a purge (written by the purge itself).
PURGE_ACTIONS = frozenset({"purge", "purge_proof"})

#: A text shares this many consecutive characters with the memory's content: it quotes it.
QUOTE_MIN_CHARS = 24


def quotes(text: str | None, content: str | None) -> bool:
    """True when ``text`` quotes ``content``: either holds the other (the shorter of at least
    8 characters), or they share a run of ``QUOTE_MIN_CHARS`` characters (case-folded)."""
    if not text or not content or content == REDACTED:
        return False
    a, b = text.casefold(), content.casefold()
    shorter = min(len(a), len(b))
    if shorter >= 8 and (a in b or b in a):
        return True
    if shorter < QUOTE_MIN_CHARS:
        return False
    match = SequenceMatcher(None, a, b, autojunk=False).find_longest_match(0, len(a), 0, len(b))
    return match.size >= QUOTE_MIN_CHARS


def erase_quotes(reason: str | None, content: str | None) -> str | None:
    """``reason`` with the memory's content replaced by :data:`REDACTED`; the whole reason
    when it quotes the content otherwise (see :func:`quotes`)."""
    if not reason or not content:
        return reason
    if content in reason:
        reason = reason.replace(content, REDACTED)
    return REDACTED if quotes(reason.replace(REDACTED, ""), content) else reason


def reason_kept(action: str | None, reason: str | None) -> bool:
    """True when an event's reason still holds text after a purge should have erased it."""
    return action not in PURGE_ACTIONS and reason is not None and reason != REDACTED


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


def _query_texts(trace: dict[str, Any]) -> list[str]:
    """The caller's texts of a trace: query, searched queries, the configuration's turns."""
    config = trace.get("config") or {}
    texts = [trace.get("query"), *(trace.get("searched_queries") or [])]
    texts.extend(config.get("recent_turns") or [] if isinstance(config, dict) else [])
    return [str(t) for t in texts if t]


def trace_quotes(trace: dict[str, Any], content: str | None) -> bool:
    """True when a query text of the trace quotes ``content`` (see :func:`quotes`)."""
    return any(quotes(t, content) for t in _query_texts(trace))


def _erase_query_texts(trace: dict[str, Any], contents: set[str]) -> dict[str, Any]:
    def fix(text: Any) -> Any:
        return REDACTED if any(quotes(str(text), c) for c in contents) else text

    out = dict(trace)
    out["query"] = fix(trace.get("query") or "")
    out["searched_queries"] = [fix(q) for q in trace.get("searched_queries") or []]
    config = trace.get("config")
    if isinstance(config, dict) and config.get("recent_turns"):
        out["config"] = {**config, "recent_turns": [fix(q) for q in config["recent_turns"]]}
    out["query_terms"] = []
    return out


def redact_trace(
    trace: dict[str, Any], memory_id: uuid.UUID, content: str | None = None
) -> tuple[dict[str, Any], bool]:
    """``(redacted trace, changed)`` for a trace as JSON (``Trace.model_dump(mode="json")``).

    ``content`` is the purged memory's text when known (the purge knows it; a later
    re-run finds it in the candidate entries only): query texts quoting it are erased too.
    """
    mid = str(memory_id)
    contents: set[str] = {content} if content and content != REDACTED else set()

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
    quoted = any(quotes(t, c) for t in _query_texts(trace) for c in contents)
    if quoted:
        out = _erase_query_texts(out, contents)
    elif not trace_has_content(trace, memory_id):
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
