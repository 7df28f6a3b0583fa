"""The ``outputSchema`` of each MCP memory tool: JSON schemas of their ``structuredContent``.

The SDK client validates every successful result against the schema its tool declared (error
results, ``isError: true``, carry the canonical error shape instead and are not validated).
Objects allow further keys, so a tool may add a field before its schema names it; every key the
tools return today is named, typed and required where always present.
"""

from __future__ import annotations

from typing import Any

_STR: dict[str, Any] = {"type": "string"}
_UUID: dict[str, Any] = {"type": "string", "format": "uuid"}
_TIME: dict[str, Any] = {"type": "string", "format": "date-time"}
_OPT_STR: dict[str, Any] = {"type": ["string", "null"]}
_OPT_TIME: dict[str, Any] = {"type": ["string", "null"], "format": "date-time"}


def _object(properties: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties) if required is None else required,
    }


MEMORY_VIEW = _object(
    {
        "id": _UUID,
        "content": _STR,
        "memory_type": {"type": "string", "enum": ["episodic", "semantic", "procedural"]},
        "source": _STR,
        "status": {"type": "string", "enum": ["active", "archived", "superseded", "deleted"]},
        "importance": {"type": "number", "minimum": 0, "maximum": 1},
        "tags": {"type": "array", "items": _STR},
        "observed_at": _OPT_TIME,
        "created_at": _TIME,
        "version": {"type": "integer", "minimum": 1},
    }
)

SEARCH_HIT = {
    **MEMORY_VIEW,
    "properties": {
        **MEMORY_VIEW["properties"],
        "rank": {"type": ["integer", "null"], "minimum": 1},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
    },
    "required": [*MEMORY_VIEW["required"], "scores"],
}

WRITE = _object(
    {
        "stored": {
            "type": "array",
            "items": _object({"memory_id": _UUID, "status": _STR}),
        },
        "created": {"type": "integer", "minimum": 0},
    }
)

SEARCH = _object(
    {
        "memories": {"type": "array", "items": SEARCH_HIT},
        "count": {"type": "integer", "minimum": 0},
        "block": _STR,
        "trace_id": _UUID,
    }
)

UPDATE = _object({"memory": MEMORY_VIEW})

DELETE = _object({"memory_id": _UUID, "status": _STR, "version": {"type": "integer", "minimum": 1}})

HISTORY = _object(
    {
        "memory_id": _STR,
        "events": {
            "type": "array",
            "items": _object(
                {
                    "action": _STR,
                    "actor": _STR,
                    "at": _TIME,
                    "reason": _OPT_STR,
                    "content_before": _OPT_STR,
                    "content_after": _OPT_STR,
                }
            ),
        },
        "truncated": {"type": "boolean"},
    }
)
