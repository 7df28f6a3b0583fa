"""Tolerant parsing of model output (docs/architecture.md#f4-malformed-output).

Handles: reasoning blocks (``<think>...</think>``, also unclosed), markdown fences, prose before
or after the JSON, and items that fail validation (skipped with a warning). Raises
``OutputParseError`` for output with no usable JSON (empty, truncated, wrong top-level shape),
which the caller retries a bounded number of times.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import ValidationError

from memory_engine.llm.schemas import Extraction, Fact, JudgeDecision, Judgement, MergedFact

_THINK_RE = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.S | re.I)
_OPEN_THINK_RE = re.compile(r"<(think|thinking|reasoning)>.*", re.S | re.I)
_CLOSE_THINK_RE = re.compile(r"</(think|thinking|reasoning)>", re.I)
_FENCE_RE = re.compile(r"```(?:json|JSON)?\s*\n?(.*?)```", re.S)


class OutputParseError(ValueError):
    """The model output holds no JSON object of the expected shape."""


def strip_reasoning(text: str) -> str:
    """``text`` without reasoning blocks.

    Closed blocks are removed; text before a lone closing tag (models that omit the opening
    tag) is dropped; an unclosed block runs to the end and is dropped.
    """
    text = _THINK_RE.sub("", text)
    closing = _CLOSE_THINK_RE.search(text)
    while closing:
        text = text[closing.end() :]
        closing = _CLOSE_THINK_RE.search(text)
    return _OPEN_THINK_RE.sub("", text)


def load_json_object(text: str) -> dict[str, Any]:
    """The first JSON object in ``text`` (fences, reasoning and trailing prose ignored).

    Raises:
        OutputParseError: empty output, no object, or a truncated object.
    """
    cleaned = strip_reasoning(text or "").strip()
    if not cleaned:
        raise OutputParseError("empty output")
    bodies = [m.group(1) for m in _FENCE_RE.finditer(cleaned)] + [cleaned]
    decoder = json.JSONDecoder()
    last_error = "no JSON object found"
    for body in bodies:
        start = body.find("{")
        while start != -1:
            try:
                value, _ = decoder.raw_decode(body, start)
            except json.JSONDecodeError as exc:
                last_error = f"invalid JSON: {exc.msg} at {exc.pos}"
            else:
                if isinstance(value, dict):
                    return value
            start = body.find("{", start + 1)
    raise OutputParseError(last_error)


def _items(data: dict[str, Any], key: str) -> list[Any]:
    items = data.get(key, [])
    if items is None:
        return []
    if not isinstance(items, list):
        raise OutputParseError(f"{key!r} is not a list")
    return items


def parse_extraction(text: str) -> tuple[Extraction, list[str]]:
    """Parse an evaluate+extract answer; returns it with warnings of skipped facts.

    Raises:
        OutputParseError: no JSON object, or ``should_remember`` missing / not a boolean.
    """
    data = load_json_object(text)
    flag = data.get("should_remember")
    if not isinstance(flag, bool):
        raise OutputParseError("'should_remember' is missing or not a boolean")
    warnings: list[str] = []
    facts: list[Fact] = []
    for i, item in enumerate(_items(data, "facts")):
        try:
            facts.append(Fact.model_validate(item))
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first.get("loc", ()))
            warnings.append(f"fact {i} skipped: {where or 'item'}: {first.get('msg')}")
    if flag and not facts and _items(data, "facts"):
        raise OutputParseError("every fact was invalid: " + "; ".join(warnings))
    return (
        Extraction(should_remember=flag, reason=str(data.get("reason") or ""), facts=tuple(facts)),
        warnings,
    )


def parse_judgement(text: str, shown: int) -> tuple[Judgement, list[str]]:
    """Parse a judge answer; decisions naming a candidate not shown (index >= ``shown``),
    with an unknown relation, or repeated, are dropped with a warning.

    Raises:
        OutputParseError: no JSON object, or ``decisions`` is not a list.
    """
    data = load_json_object(text)
    warnings: list[str] = []
    out: list[JudgeDecision] = []
    seen: set[int] = set()
    for i, item in enumerate(_items(data, "decisions")):
        try:
            decision = JudgeDecision.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            warnings.append(f"decision {i} dropped: {first.get('msg')}")
            continue
        if decision.candidate >= shown:
            warnings.append(
                f"decision {i} dropped: candidate {decision.candidate} was not shown "
                f"(shown 0-{shown - 1})"
            )
            continue
        if decision.candidate in seen:
            warnings.append(f"decision {i} dropped: candidate {decision.candidate} repeated")
            continue
        seen.add(decision.candidate)
        out.append(decision)
    return Judgement(decisions=tuple(out)), warnings


def parse_merge(text: str) -> tuple[MergedFact, list[str]]:
    """Parse a merge answer ``{"content": str}``.

    Raises:
        OutputParseError: no JSON object, or no valid ``content``.
    """
    data = load_json_object(text)
    try:
        return MergedFact.model_validate(data), []
    except ValidationError as exc:
        raise OutputParseError(f"invalid merge: {exc.errors()[0].get('msg')}") from exc
