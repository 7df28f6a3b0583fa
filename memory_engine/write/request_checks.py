"""Checks and screening of a write request before anything is stored, for raw and extract
mode alike: metadata shape and size, the tenant's PII policy over the text and every stored
field, and what raw mode refuses to store whole (memory tool calls, oversized tool outputs).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from memory_engine.config import Settings
from memory_engine.errors import ContentTooLargeError, InvalidInputError
from memory_engine.models import MemorySource, Scope, check_turn_metadata
from memory_engine.security.policy import (
    WriteScreen,
    findings_in,
    redact_stored,
    refuse_blocked,
    screen_write,
)
from memory_engine.text import clean_text
from memory_engine.write.guard import is_memory_tool_call

if TYPE_CHECKING:
    from memory_engine.write.raw import WriteRequest


#: Deepest nesting of objects and lists a memory's metadata may have.
MAX_METADATA_DEPTH = 32


def _metadata_depth(value: Any, limit: int) -> int:
    """Nesting depth of ``value`` (a scalar is 0), counted without recursion and stopping
    once past ``limit``."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict):
            children: Any = item.values()
        elif isinstance(item, (list, tuple)):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > limit:
            return deepest
        stack.extend((child, depth + 1) for child in children)
    return deepest


def check_metadata(metadata: dict[str, Any], *, max_bytes: int = 16_384) -> None:
    """Refuse metadata that is not a JSON object of at most ``max_bytes`` (UTF-8) nested at
    most ``MAX_METADATA_DEPTH`` levels, or whose reserved turn index (``models.TURN_KEY``) is
    not an int in 0..``MAX_TURN_INDEX``.

    Raises:
        InvalidInputError: not JSON-serialisable, nested too deeply, too large, or a
            malformed turn index.
    """
    if _metadata_depth(metadata, MAX_METADATA_DEPTH) > MAX_METADATA_DEPTH:
        raise InvalidInputError(
            f"metadata is nested deeper than {MAX_METADATA_DEPTH} levels",
            field="metadata",
        )
    check_turn_metadata(metadata)
    try:
        encoded = json.dumps(metadata, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise InvalidInputError(f"metadata must be JSON-serialisable: {exc}") from exc
    if len(encoded.encode("utf-8")) > max_bytes:
        raise InvalidInputError(
            f"metadata is larger than {max_bytes} bytes", size=len(encoded.encode("utf-8"))
        )


#: The fields of a ``WriteRequest`` besides ``text`` that are stored (and so screened).
SCREENED_FIELDS = ("tags", "entities", "metadata", "source_ref")


def screen_request_fields(
    req: WriteRequest, scope: Scope, settings: Settings
) -> tuple[WriteRequest, str, WriteScreen]:
    """``req`` through the write screen: its text by ``screen_write`` (the tenant's PII
    policy, then injection), its other stored fields (``SCREENED_FIELDS``) by the same PII
    policy (``security.policy.redact_stored``), the findings of all of them in
    ``metadata["pii"]``.

    Returns:
        (the screened request, its text cleaned by ``clean_text``, the text's screen).

    Raises:
        SensitiveDataError: the tenant's PII policy is ``block`` and the text or a field holds
            listed PII.
        EmptyContentError, ContentTooLargeError, InvalidInputError: the text itself is bad.
    """
    cleaned = clean_text(req.text, max_chars=settings.write.max_input_chars)
    fields = {name: getattr(req, name) for name in SCREENED_FIELDS}
    in_fields = findings_in(fields, settings)
    refuse_blocked(in_fields, tenant_id=scope.tenant_id, settings=settings)
    screened = screen_write(
        cleaned, source=req.source, tenant_id=scope.tenant_id, settings=settings
    )
    if not screened.pii and not in_fields:
        return req, cleaned, screened
    update = redact_stored(fields, tenant_id=scope.tenant_id, settings=settings)
    pii = [*screened.pii, *in_fields]
    update["metadata"] = {
        **update["metadata"],
        "pii": {
            "policy": screened.policy.value,
            "kinds": sorted({f.kind.value for f in pii}),
            "count": len(pii),
        },
    }
    update["text"] = screened.text
    redacted = req.model_copy(update=update)
    return redacted, clean_text(screened.text, max_chars=settings.write.max_input_chars), screened


def screen_request(req: WriteRequest, scope: Scope, settings: Settings) -> tuple[WriteRequest, str]:
    """``req`` with its text and stored fields through the tenant's PII policy (see
    ``screen_request_fields``; the same object when nothing was found), and the returned
    request's text cleaned (``clean_text``).

    Raises:
        SensitiveDataError: the tenant's PII policy is ``block`` and listed PII was found.
        EmptyContentError, ContentTooLargeError, InvalidInputError: the text itself is bad.
    """
    screened, text, _ = screen_request_fields(req, scope, settings)
    return screened, text


def check_raw_untrusted(req: WriteRequest, text: str, settings: Settings) -> None:
    """Raw mode stores text as is, so it refuses what must never be stored whole.

    Raises:
        InvalidInputError: a call of the memory tools themselves (never stored).
        ContentTooLargeError: a tool output over ``MEMORY_TOOL_OUTPUT_MAX_CHARS`` (use extract
            mode, which reduces it to facts).
    """
    if is_memory_tool_call(text, req.metadata):
        raise InvalidInputError("calls of the memory tools are never stored as memories")
    if req.source == MemorySource.TOOL_OUTPUT and len(text) > settings.write.tool_output_max_chars:
        raise ContentTooLargeError(
            f"tool output has {len(text):,} characters; raw mode stores at most "
            f"{settings.write.tool_output_max_chars:,} (MEMORY_TOOL_OUTPUT_MAX_CHARS); "
            "use extract mode to keep its conclusions",
            length=len(text),
            limit=settings.write.tool_output_max_chars,
        )
