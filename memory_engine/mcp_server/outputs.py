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

_OPT_NUM: dict[str, Any] = {"type": ["number", "null"]}
_OPT_RANK: dict[str, Any] = {"type": ["integer", "null"], "minimum": 1}

#: One stage of a memory's score waterfall (``retrieval.waterfall.WaterfallStep``), in
#: pipeline order: leg (one per leg), fuse, session, rerank, type_weight, retention,
#: threshold, final.
WATERFALL_STEP = _object(
    {
        "stage": {
            "type": "string",
            "enum": [
                "leg",
                "fuse",
                "session",
                "rerank",
                "type_weight",
                "retention",
                "threshold",
                "final",
            ],
        },
        "name": _STR,
        "score": _OPT_STR,
        "value": _OPT_NUM,
        "normalised": _OPT_NUM,
        "weight": _OPT_NUM,
        "contribution": _OPT_NUM,
        "rank": _OPT_RANK,
        "limit": _OPT_NUM,
        "passed": {"type": ["boolean", "null"]},
        "reason": _OPT_STR,
        "source": {"type": ["string", "null"], "format": "uuid"},
    },
    required=["stage", "name", "value", "rank"],
)

SEARCH_HIT = {
    **MEMORY_VIEW,
    "properties": {
        **MEMORY_VIEW["properties"],
        "rank": {"type": ["integer", "null"], "minimum": 1},
        "scores": {"type": "object", "additionalProperties": {"type": "number"}},
        "waterfall": {"type": "array", "items": WATERFALL_STEP},
    },
    "required": [*MEMORY_VIEW["required"], "scores"],
}

#: ``explain`` of memory_search with ``explain=true`` (``retrieval.accounting``).
SEARCH_EXPLAIN = _object(
    {
        "fusion": {"type": "string", "enum": ["rrf", "zscore", "minmax"]},
        "deciding_score": _STR,
        "used_tokens": {"type": "integer", "minimum": 0},
        "near_misses": {
            "type": "array",
            "items": _object(
                {
                    "memory_id": _UUID,
                    "content": _STR,
                    "rule": {
                        "type": "string",
                        "enum": ["k", "token_budget", "threshold", "dedupe", "status", "other"],
                    },
                    "reason": _STR,
                    "final_score": _OPT_NUM,
                    "weighted_rank": _OPT_RANK,
                    "tokens": {"type": "integer", "minimum": 0},
                    "needs": {"type": "object", "additionalProperties": {"type": "number"}},
                }
            ),
        },
        "stages": {
            "type": "array",
            "items": _object(
                {
                    "stage": _STR,
                    "candidates": {"type": "integer", "minimum": 0},
                    "tokens": {"type": "integer", "minimum": 0},
                    "ms": _OPT_NUM,
                }
            ),
        },
        "stale_facts": {
            "type": "array",
            "items": _object(
                {
                    "kind": {"type": "string", "enum": ["superseded", "same_entity"]},
                    "entity": _OPT_STR,
                    "older_id": _UUID,
                    "older_content": _STR,
                    "older_score": _OPT_NUM,
                    "older_rank": {"type": "integer", "minimum": 1},
                    "current_id": _UUID,
                    "current_content": _STR,
                    "current_score": _OPT_NUM,
                    "current_rank": _OPT_RANK,
                    "current_dropped": _OPT_STR,
                }
            ),
        },
    }
)

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
        "explain": SEARCH_EXPLAIN,
    },
    required=["memories", "count", "block", "trace_id"],
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
