"""Typed outputs of the write-decision LLM (both providers) and the record of one call.

Every item the model returns is validated one by one with these models: an invalid item is
skipped with a warning, the valid ones are kept (docs/architecture.md#f4-malformed-output).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from memory_engine.models import MemoryType

#: Longest accepted fact content, in characters (one short sentence).
FACT_MAX_CHARS = 200

Relation = Literal["contradicts", "supplements", "duplicate", "unrelated"]


class Fact(BaseModel):
    """One fact to remember: third person, same language as the input, one short sentence.

    ``valid_from``/``valid_until`` are when the fact holds in the world (ISO 8601; a date
    without a time means midnight UTC). ``key`` is optional structure the rules provider adds
    (subject, polarity, value, temporary) so its judge can compare facts.
    """

    model_config = ConfigDict(extra="ignore", frozen=True)

    content: str = Field(min_length=1, max_length=FACT_MAX_CHARS)
    memory_type: MemoryType = MemoryType.SEMANTIC
    importance: float = Field(0.5, ge=0.0, le=1.0)
    confidence: float = Field(0.8, ge=0.0, le=1.0)
    entities: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    valid_from: datetime | None = None
    valid_until: datetime | None = None
    key: dict[str, Any] = Field(default_factory=dict)

    @field_validator("content")
    @classmethod
    def _strip(cls, value: str) -> str:
        value = value.strip()
        if not value:
            raise ValueError("content is empty")
        return value

    @field_validator("entities", "tags", mode="before")
    @classmethod
    def _strings(cls, value: Any) -> Any:
        if value is None:
            return ()
        if isinstance(value, str):
            return (value,)
        return tuple(str(v).strip() for v in value if str(v).strip())


class Extraction(BaseModel):
    """Evaluate + extract in one answer: remember or not, why, and the facts."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    should_remember: bool
    reason: str = ""
    facts: tuple[Fact, ...] = ()


class JudgeDecision(BaseModel):
    """The judge's relation between the new fact and one candidate it was shown (by index)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    candidate: int = Field(ge=0)
    relation: Relation
    reason: str = ""


class Judgement(BaseModel):
    """All decisions of one judge call (only valid, shown candidates survive parsing)."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    decisions: tuple[JudgeDecision, ...] = ()


class MergedFact(BaseModel):
    """The one fact a cluster of near-duplicate memories is merged into."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    content: str = Field(min_length=1, max_length=FACT_MAX_CHARS)


class LLMCall(BaseModel):
    """Audit record of one LLM call (docs/architecture.md#data-model, write decisions).

    ``latency_ms`` is wall time of all attempts; tokens are the endpoint's ``usage`` counts
    (0 for the rules provider); ``response_format`` is the mode that produced the output.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["extract", "judge", "merge"]
    provider: str
    model: str
    prompt: list[dict[str, str]] = Field(default_factory=list)
    raw_output: str = ""
    parsed: dict[str, Any] | None = None
    latency_ms: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    attempts: int = 1
    response_format: str = ""
    warnings: list[str] = Field(default_factory=list)


def extraction_json_schema() -> dict[str, Any]:
    """JSON schema of an ``Extraction`` for structured outputs (strict-mode compatible)."""
    fact = {
        "type": "object",
        "additionalProperties": False,
        "required": [
            "content",
            "memory_type",
            "importance",
            "confidence",
            "entities",
            "tags",
            "valid_from",
            "valid_until",
        ],
        "properties": {
            "content": {"type": "string"},
            "memory_type": {"type": "string", "enum": [t.value for t in MemoryType]},
            "importance": {"type": "number"},
            "confidence": {"type": "number"},
            "entities": {"type": "array", "items": {"type": "string"}},
            "tags": {"type": "array", "items": {"type": "string"}},
            "valid_from": {"type": ["string", "null"]},
            "valid_until": {"type": ["string", "null"]},
        },
    }
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["should_remember", "reason", "facts"],
        "properties": {
            "should_remember": {"type": "boolean"},
            "reason": {"type": "string"},
            "facts": {"type": "array", "items": fact},
        },
    }


def judgement_json_schema() -> dict[str, Any]:
    """JSON schema of a ``Judgement`` for structured outputs."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["decisions"],
        "properties": {
            "decisions": {
                "type": "array",
                "items": {
                    "type": "object",
                    "additionalProperties": False,
                    "required": ["candidate", "relation", "reason"],
                    "properties": {
                        "candidate": {"type": "integer"},
                        "relation": {
                            "type": "string",
                            "enum": ["contradicts", "supplements", "duplicate", "unrelated"],
                        },
                        "reason": {"type": "string"},
                    },
                },
            }
        },
    }


def merge_json_schema() -> dict[str, Any]:
    """JSON schema of a ``MergedFact``."""
    return {
        "type": "object",
        "additionalProperties": False,
        "required": ["content"],
        "properties": {"content": {"type": "string"}},
    }
