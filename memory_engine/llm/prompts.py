"""Prompts of the write-decision LLM: evaluate+extract and judge, with few-shot examples.

The examples carry ``CANARY``: a made-up token that never occurs in real input. A fact that
contains it was copied from the examples, not extracted from the input, and the pipeline drops
it (tests check it never reaches a stored memory).
"""

from __future__ import annotations

import json
from typing import Any

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.schemas import Fact

#: Token planted in every few-shot example; must never appear in a stored memory.
CANARY = "Zqv7Canary"

_SYSTEM_EXTRACT = f"""You decide what an AI assistant should remember about its user.
Reply with ONE JSON object and nothing else:
{{"should_remember": bool, "reason": str, "facts": [{{"content": str, "memory_type":
"episodic"|"semantic"|"procedural", "importance": 0..1, "confidence": 0..1, "entities": [str],
"tags": [str], "valid_from": ISO-8601|null, "valid_until": ISO-8601|null}}]}}
Rules:
- Remember stable preferences, instructions, personal facts, plans, dates, deadlines, amounts.
- Do NOT remember greetings, thanks, small talk, questions, or raw tool output.
- Each fact: third person ("The user ..." / "用户..."), one short sentence (<= 50 characters
  when possible), in the SAME language as the input.
- Resolve relative dates ("yesterday", "last week", "下周五") against the observation time and
  time zone given below; write absolute dates (YYYY-MM-DD) in content and valid_from.
- A temporary state ("these days", "最近") gets valid_until.
- The examples below are illustrations only; never copy their content (they contain the marker
  {CANARY}, which must never appear in your answer).

Examples:
Input: "我对{CANARY}芒果过敏，以后点餐注意"
Output: {{"should_remember": true, "reason": "allergy", "facts": [{{"content": "用户对{CANARY}芒果过敏",
"memory_type": "semantic", "importance": 0.9, "confidence": 0.95, "entities": ["{CANARY}芒果"],
"tags": ["allergy"], "valid_from": null, "valid_until": null}}]}}
Input: "Please always send reports to {CANARY} in PDF"
Output: {{"should_remember": true, "reason": "standing instruction", "facts": [{{"content":
"The user wants reports sent to {CANARY} as PDF", "memory_type": "procedural", "importance": 0.7,
"confidence": 0.9, "entities": ["{CANARY}"], "tags": ["preference"], "valid_from": null,
"valid_until": null}}]}}
Input: "谢谢，{CANARY}！"
Output: {{"should_remember": false, "reason": "thanks only", "facts": []}}
Input: "hi {CANARY}, what's the weather like?"
Output: {{"should_remember": false, "reason": "greeting and question", "facts": []}}
"""

_SYSTEM_JUDGE = """You compare ONE new fact with stored memories, each shown with an index.
For each stored memory that relates to the new fact, give its relation:
- "contradicts": the new fact replaces it (the old one is no longer true);
- "supplements": both hold (e.g. a temporary state next to a lasting preference);
- "duplicate": it says the same thing;
- "unrelated": no relation.
A memory marked "recent" came from the user's previous message. When the new fact continues
it (a pronoun or a left-out subject), it is about the same thing; otherwise judge it like any
other memory.
Name ONLY the indexes shown. Reply with ONE JSON object and nothing else:
{"decisions": [{"candidate": int, "relation": str, "reason": str}]}
"""


def extract_messages(item: ExtractInput) -> list[dict[str, str]]:
    """Chat messages of one evaluate+extract call."""
    user = (
        f"Observed at: {item.observed_at.isoformat()} (user time zone {item.timezone})\n"
        f"Source: {item.source.value}"
        + (f", speaker: {item.speaker}" if item.speaker else "")
        + (
            "\nRemembered from the user's previous message (context for pronouns and "
            "left-out subjects only; do not extract these again): "
            + json.dumps(list(item.context), ensure_ascii=False)
            if item.context
            else ""
        )
        + f"\nInput:\n{item.text}"
    )
    return [{"role": "system", "content": _SYSTEM_EXTRACT}, {"role": "user", "content": user}]


def _candidate_line(c: JudgeCandidate) -> dict[str, Any]:
    out: dict[str, Any] = {"index": c.index, "content": c.content, "type": c.memory_type}
    if c.observed_at:
        out["observed_at"] = c.observed_at.isoformat()
    if c.valid_until:
        out["valid_until"] = c.valid_until.isoformat()
    if c.recent:
        out["recent"] = True
    return out


def judge_messages(
    fact: Fact, candidates: list[JudgeCandidate], item: ExtractInput
) -> list[dict[str, str]]:
    """Chat messages of one judge call (candidates by index only, never by stored id)."""
    shown = "\n".join(json.dumps(_candidate_line(c), ensure_ascii=False) for c in candidates)
    user = (
        f"Observed at: {item.observed_at.isoformat()}\n"
        f"New fact: {json.dumps(fact.content, ensure_ascii=False)}\n"
        f"Stored memories (indexes 0-{len(candidates) - 1}):\n{shown}"
    )
    return [{"role": "system", "content": _SYSTEM_JUDGE}, {"role": "user", "content": user}]


_SYSTEM_MERGE = """You merge near-duplicate memories about one user into ONE fact.
Keep every detail that is still true; when they disagree, the LATER one wins. One short
sentence, third person, same language as the memories. Reply with ONE JSON object:
{"content": str}
"""


def merge_messages(contents: list[str]) -> list[dict[str, str]]:
    """Chat messages of one merge call (memories oldest first)."""
    shown = "\n".join(f"{i}. {c}" for i, c in enumerate(contents))
    return [
        {"role": "system", "content": _SYSTEM_MERGE},
        {"role": "user", "content": f"Memories, oldest first:\n{shown}"},
    ]
