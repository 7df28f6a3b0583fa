"""``rules``: the offline, deterministic write-decision LLM for common Chinese and English input.

``extract`` splits the input into sentences, drops greetings, thanks, acknowledgements,
questions and one-off requests, and turns each sentence that matches a pattern (preferences,
standing instructions, schedules, allergies, names, places, occupations, possessions,
"my X is Y" attributes, amounts, deadlines and dated events) into a third-person fact in the
input's language, relative dates resolved (``timeresolve``). Each fact carries a ``key``
(kind, subject, polarity, value, temporary) that ``judge`` compares:

* same kind and subject: same polarity/value -> duplicate, otherwise -> contradicts;
* a temporary fact ("最近吃不了辣", "these days") -> supplements (never supersedes);
* anything else -> unrelated.

Measured on ``bench/data/extract_cases.jsonl`` by ``bench/extract_eval.py``.
"""

from __future__ import annotations

import re
import time
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.rules_patterns import (
    CHANGE_RE,
    CHITCHAT_RE,
    INSTRUCTION_RE,
    QUESTION_RE,
    REQUEST_RE,
    SENTENCE_RE,
    TEMPORARY_RE,
    WEEKDAY_RE,
    Match,
    match_patterns,
    normalise_subject,
    third_person,
)
from memory_engine.llm.schemas import (
    Extraction,
    Fact,
    JudgeDecision,
    Judgement,
    LLMCall,
    MergedFact,
)
from memory_engine.llm.timeresolve import resolve_relative
from memory_engine.models import MemoryType

#: How long a temporary state ("最近", "these days") is assumed to hold.
TEMPORARY_DAYS = 14

#: Kinds with one value per subject: a different value contradicts.
_SINGLE_VALUED = {"name", "residence", "workplace", "origin", "occupation", "attr", "amount"}


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (。！？!?；;. and newlines end one; commas do not)."""
    return [s.strip() for s in SENTENCE_RE.split(text) if s and s.strip()]


def is_chitchat(text: str) -> bool:
    """True when every clause is a greeting, thanks, acknowledgement or emoji."""
    clauses = [c.strip() for c in re.split(r"[，,。.!！?？~～\s]+", text) if c.strip()]
    return all(CHITCHAT_RE.fullmatch(c) or not re.search(r"\w", c) for c in clauses)


def _schedule(sentence: str) -> Match | None:
    """ "以后周四汇报" / "改成周五汇报" / "from now on the sync is on Friday"."""
    wd = WEEKDAY_RE.search(sentence)
    if not wd or not (INSTRUCTION_RE.search(sentence) or CHANGE_RE.search(sentence)):
        return None
    after = re.split(r"[，,。.;；!！]", sentence[wd.end() :], maxsplit=1)[0].strip()
    after = re.sub(r"^(?:下午|上午|晚上|早上|中午|morning|afternoon|evening)", "", after).strip()
    activity = normalise_subject(after) or "schedule"
    if CHANGE_RE.search(sentence) and not re.search(r"[\u4e00-\u9fff]", activity):
        before = CHANGE_RE.split(sentence)[0]
        activity = normalise_subject(re.sub(r"\b(the|my|our)\b", "", before)) or activity
    return Match(
        kind="schedule",
        subject=activity,
        value=wd.group("day").lower(),
        memory_type=MemoryType.PROCEDURAL,
        importance=0.7,
        tags=("schedule", "preference"),
    )


class RulesLLM:
    """Deterministic ``WriteLLM`` (no network, no model; tokens always 0)."""

    name = "rules"
    model = "rules-v1"

    # ------------------------------------------------------------------ extract

    def analyse(self, sentence: str) -> Match | None:
        """The pattern match of one sentence, or None (not worth remembering)."""
        if QUESTION_RE.search(sentence):
            return None
        if REQUEST_RE.search(sentence) and not INSTRUCTION_RE.search(sentence):
            return None
        found = _schedule(sentence) or match_patterns(sentence)
        if found is None and INSTRUCTION_RE.search(sentence):
            found = Match(
                kind="instruction",
                subject=normalise_subject(sentence),
                memory_type=MemoryType.PROCEDURAL,
                importance=0.7,
                tags=("preference", "instruction"),
            )
        return found

    def extract(self, item: ExtractInput) -> tuple[Extraction, LLMCall]:
        """Evaluate + extract deterministically (see module docstring)."""
        started = time.perf_counter()
        tz = ZoneInfo(item.timezone)
        facts: list[Fact] = []
        skipped: list[str] = []
        if is_chitchat(item.text):
            result = Extraction(should_remember=False, reason="greeting, thanks or small talk")
            return result, self._call("extract", item.text, result, started)
        for sentence in split_sentences(item.text):
            if is_chitchat(sentence):
                continue
            found = self.analyse(sentence)
            if found is None:
                skipped.append(sentence[:40])
                continue
            facts.append(self._fact(sentence, found, item, tz))
        facts = list({f.content: f for f in facts}.values())
        if facts:
            kinds = sorted({str(f.key.get("kind")) for f in facts})
            result = Extraction(
                should_remember=True, reason="matched: " + ", ".join(kinds), facts=tuple(facts)
            )
        else:
            result = Extraction(
                should_remember=False, reason="no preference, instruction or personal fact"
            )
        return result, self._call("extract", item.text, result, started)

    def _fact(self, sentence: str, found: Match, item: ExtractInput, tz: ZoneInfo) -> Fact:
        resolved, refs = resolve_relative(sentence, item.observed_at, tz)
        content = third_person(resolved)
        zh = bool(re.search(r"[\u4e00-\u9fff]", content))
        if zh and found.kind == "schedule" and CHANGE_RE.search(sentence) and found.subject:
            content = f"用户的{found.subject}改为{found.value}"
        elif zh and "用户" not in content:
            content = "用户" + content
        temporary = bool(TEMPORARY_RE.search(sentence))
        valid_from = refs[0].start_utc(tz) if refs else None
        valid_until = None
        memory_type = found.memory_type
        if temporary:
            valid_until = item.observed_at + timedelta(days=TEMPORARY_DAYS)
        elif found.kind == "deadline" and refs:
            valid_until = refs[-1].end_utc(tz)
        if refs and found.kind in ("event", "deadline"):
            memory_type = MemoryType.EPISODIC
        key: dict[str, Any] = {
            "kind": found.kind,
            "subject": found.subject,
            "polarity": found.polarity,
            "value": found.value,
            "temporary": temporary,
        }
        return Fact(
            content=content[:200],
            memory_type=memory_type,
            importance=found.importance,
            confidence=0.8 if found.kind != "instruction" else 0.7,
            entities=(found.subject,) if found.subject else (),
            tags=found.tags + (("temporary",) if temporary else ()),
            valid_from=valid_from,
            valid_until=valid_until,
            key=key,
        )

    # ------------------------------------------------------------------ judge

    def key_of(self, content: str, stored: dict[str, Any] | None) -> dict[str, Any] | None:
        """A stored memory's fact key: its recorded one, else re-derived from content."""
        if stored and stored.get("kind"):
            return stored
        found = self.analyse(content)
        if found is None:
            return None
        return {
            "kind": found.kind,
            "subject": found.subject,
            "polarity": found.polarity,
            "value": found.value,
            "temporary": bool(TEMPORARY_RE.search(content)),
        }

    def relation(self, new: dict[str, Any], old: dict[str, Any] | None) -> tuple[str, str]:
        """(relation, reason) of a new fact key to a stored one."""
        if old is None:
            return "unrelated", "stored memory has no recognised fact"
        if new.get("temporary"):
            return "supplements", "temporary state next to a lasting fact"
        same_kind = new.get("kind") == old.get("kind") or {new.get("kind"), old.get("kind")} <= {
            "preference",
            "instruction",
        }
        a, b = str(new.get("subject") or ""), str(old.get("subject") or "")
        same_subject = bool(a and b and (a == b or a in b or b in a))
        if not (same_kind and same_subject):
            return "unrelated", "different subject"
        kind = new.get("kind")
        if kind == "schedule" or kind in _SINGLE_VALUED:
            if (new.get("value") or "") == (old.get("value") or ""):
                return "duplicate", "same value"
            return "contradicts", f"{kind} changed"
        if new.get("polarity") == old.get("polarity"):
            return "duplicate", "same subject and polarity"
        if old.get("temporary"):
            return "supplements", "stored state was temporary"
        return "contradicts", "opposite preference on the same subject"

    def judge(
        self, fact: Fact, candidates: list[JudgeCandidate], item: ExtractInput
    ) -> tuple[Judgement, LLMCall]:
        """Relate ``fact`` to each candidate by fact key (see module docstring)."""
        started = time.perf_counter()
        new_key = fact.key or self.key_of(fact.content, None) or {}
        decisions = []
        for c in candidates:
            relation, reason = self.relation(new_key, self.key_of(c.content, dict(c.key)))
            if relation != "unrelated":
                decisions.append(JudgeDecision(candidate=c.index, relation=relation, reason=reason))
        result = Judgement(decisions=tuple(decisions))
        prompt = fact.content + " | " + " | ".join(f"{c.index}: {c.content}" for c in candidates)
        return result, self._call("judge", prompt, result, started)

    def merge(self, contents: list[str]) -> tuple[str, LLMCall]:
        """Rules merge: the latest memory wins (it is the most current statement)."""
        started = time.perf_counter()
        merged = MergedFact(content=contents[-1])
        return merged.content, self._call("merge", " | ".join(contents), merged, started)

    def _call(self, kind: str, prompt: str, result: Any, started: float) -> LLMCall:
        return LLMCall(
            kind=kind,
            provider=self.name,
            model=self.model,
            prompt=[{"role": "user", "content": prompt}],
            raw_output="",
            parsed=result.model_dump(mode="json"),
            latency_ms=(time.perf_counter() - started) * 1000.0,
            response_format="rules",
        )
