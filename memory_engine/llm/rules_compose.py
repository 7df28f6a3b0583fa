"""A clause's ``Match`` made into a ``Fact`` for the ``rules`` extractor: relative dates
resolved, temporary states given a ``valid_until``, memory type and importance by content, and
the fact key ``rules_judge`` compares; and two clauses of one sentence joined into one fact
(a form of address and the one it replaces, a fact and its continuation).
"""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules_acts import INSTRUCTION_RE, TEMPORARY_RE
from memory_engine.llm.rules_clauses import CORRECTION_RE, Holder, distil
from memory_engine.llm.rules_content import address_pair, content_of, entities_of
from memory_engine.llm.rules_judge import SINGLE_VALUED
from memory_engine.llm.rules_patterns import Match
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.llm.rules_schedule import RECURRING_RE
from memory_engine.llm.schemas import Fact
from memory_engine.llm.timeresolve import resolve_relative, until_date
from memory_engine.models import MemoryType

__all__ = ["TEMPORARY_DAYS", "build_fact", "extend", "merge_pair", "merges"]

#: How long a temporary state ("最近", "these days") is assumed to hold, in days.
TEMPORARY_DAYS = 14

_HEALTH_RE = re.compile(
    r"过敏|药|病|糖尿病|哮喘|高血压|心脏|怀孕|孕|癫痫|急救|手术|疫苗|"
    r"allerg|medication|medicine|diabetes|asthma|epipen|pregnan|blood pressure|seizure|"
    r"surgery|heart condition|emergency",
    re.I,
)
_REMEMBER_RE = re.compile(
    r"记住|记一下|记得|别忘了|不要忘|一定要|\b(?:remember|don't forget|do not forget|make a note|"
    r"note that|keep in mind)\b",
    re.I,
)
_HOWTO_RE = re.compile(
    r"步骤|首先.+然后|先.{1,20}再|的方法是|怎么做是|\bhow to\b|\bstep \d|\bfirst\b.+\bthen\b|"
    r"\bto \w+[^,]{0,30}, (?:run|use|open|click|press|type)\b",
    re.I,
)
_MOVED_RE = re.compile(
    r"改到|改成|改为|推迟|提前|延期|延长|挪到|调到|取消|\b(?:moved|changed|postponed|rescheduled|pushed|extended|"
    r"brought forward|delayed|cancell?ed|now on|instead)\b",
    re.I,
)
_ASSISTANT_RE = re.compile(
    r"回复|回答|答复|输出|格式|语气|称呼|用中文|用英文|总结时|写代码|\b(?:reply|replies|respond|answer|"
    r"format|tone|emails?|messages?|summar|bullet|markdown|code|language)\b",
    re.I,
)


#: A sentence that names the value it replaces ("These days my editor is Emacs, not Vim",
#: "不是X，是Y"): a correction of a single-valued fact, never a temporary state.
_REPLACED_VALUE_RE = re.compile(r",\s*not (?:the )?\w+|不是[^，,。]{1,12}(?:[，,。]|而是|$)", re.I)

#: A clause that is a stopgap ("这两天嗓子疼，先不喝冰的"): temporary when its sentence is.
_STOPGAP_RE = re.compile(r"^(?:我)?(?:就|只好|只能)?先")


def build_fact(
    clause: str,
    found: Match,
    item: ExtractInput,
    tz: ZoneInfo,
    holder: Holder | None,
    sentence: str,
    *,
    passing_when: bool = False,
) -> Fact:
    recurring = re.search(r"每周|每天|每个?月|每次|\bevery\b", clause, re.I)
    resolved, refs = (clause, []) if recurring else resolve_relative(clause, item.observed_at, tz)
    content = content_of(resolved, found, holder)
    temporary = (
        bool(TEMPORARY_RE.search(clause))
        or passing_when
        or bool(_STOPGAP_RE.match(clause) and TEMPORARY_RE.search(sentence))
    ) and not (found.kind in SINGLE_VALUED and _REPLACED_VALUE_RE.search(sentence))
    valid_from = refs[0].start_utc(tz) if refs else None
    valid_until = None
    if temporary:
        weeks = [r for r in refs if (r.end - r.start).days >= 6]
        valid_until = until_date(resolved, refs, item.observed_at, tz) or (
            weeks[0].end_utc(tz) if weeks else item.observed_at + timedelta(days=TEMPORARY_DAYS)
        )
    elif found.kind == "deadline" and refs:
        valid_until = refs[-1].end_utc(tz)
    memory_type = found.memory_type
    if found.kind == "event" or (refs and found.kind == "deadline"):
        memory_type = MemoryType.EPISODIC
    elif found.kind == "instruction":
        memory_type = (
            MemoryType.PROCEDURAL
            if _ASSISTANT_RE.search(clause) or INSTRUCTION_RE.search(clause)
            else MemoryType.SEMANTIC
        )
    if (
        found.kind == "schedule"
        and (
            refs
            or "correction" in found.tags
            or re.search(r"\d|点|号|\b(?:am|pm|noon)\b", str(found.value or ""), re.I)
        )
        and not RECURRING_RE.search(clause)
    ):
        memory_type = MemoryType.EPISODIC  # a one-off plan, not a routine
    if found.kind == "schedule" and re.search(r"[帮给替]我|提醒我|\bremind me\b", clause, re.I):
        memory_type = MemoryType.PROCEDURAL  # a standing task for the assistant
    if _HOWTO_RE.search(clause):
        memory_type = MemoryType.PROCEDURAL
    importance = found.importance
    if _HEALTH_RE.search(clause):  # a denied allergy or condition matters less
        negated = found.polarity < 0 and found.kind in ("allergy", "health")
        importance = 0.6 if negated else 0.9
    if _REMEMBER_RE.search(sentence):
        importance = max(0.85, min(1.0, importance + 0.15))
    correction = bool(CORRECTION_RE.search(sentence)) or "correction" in found.tags
    moved = bool(_MOVED_RE.search(sentence))
    key: dict[str, Any] = {
        "kind": found.kind,
        "holder": holder.phrase.lower() if holder else "user",
        "subject": found.subject,
        "polarity": found.polarity,
        "value": found.value,
        "temporary": temporary,
        "correction": correction,
        "moved": moved,
        "content": content,
    }
    return Fact(
        content=content,
        memory_type=memory_type,
        importance=importance,
        confidence=0.85 if correction else 0.8 if found.kind != "instruction" else 0.7,
        entities=entities_of(found, holder, clause),
        tags=found.tags + (("temporary",) if temporary else ()),
        valid_from=valid_from,
        valid_until=valid_until,
        key=key,
    )


def merges(prev: Fact, new: Fact) -> bool:
    """Two clauses of one sentence that make one fact: a form of address or a single-valued
    attribute and the value it replaces ("别叫我老王，叫我王工", "I left Acme, I'm now at
    Umbrella"), or a fact and the instruction that follows from it."""
    a, b = prev.key.get("kind"), new.key.get("kind")
    if _denied_then_replaced(prev, new):
        return True
    if a == b and (a == "address" or a in SINGLE_VALUED):
        # "I left Acme, I'm now at Umbrella": the denied value and the one that replaces it
        return prev.key.get("polarity") != new.key.get("polarity")
    return b == "instruction" and a not in ("instruction", None) and len(new.content) <= 30


def _denied_then_replaced(prev: Fact, new: Fact) -> bool:
    """A denied statement followed by the single-valued fact that replaces it: "我已经不住海淀
    了，搬去通州了" (the residence is 通州; the denial says what it replaces), or the tool now
    used: "我不用VS Code了，现在用Cursor"."""
    return (
        prev.key.get("kind") == "statement"
        and int(prev.key.get("polarity", 1)) < 0
        and (new.key.get("kind") in SINGLE_VALUED or new.key.get("kind") == "uses")
        and int(new.key.get("polarity", 1)) > 0
    )


def merge_pair(prev: Fact, new: Fact, clause: str, holder: Holder | None) -> Fact:
    if prev.key.get("kind") == new.key.get("kind") or _denied_then_replaced(prev, new):
        pos, neg = (new, prev) if new.key.get("polarity", 1) > 0 else (prev, new)
        if prev.key.get("kind") == "address":
            content = address_pair(pos, neg)
            return pos.model_copy(update={"content": content, "key": pos.key})
        key = {**pos.key, "correction": True}
        if not key.get("subject") and neg.key.get("subject"):
            key["subject"] = neg.key["subject"]  # "五一不去厦门了，改去青岛": still 五一
        joined = extend(neg, pos.content, None).content
        content = joined if joined != neg.content else pos.content
        return pos.model_copy(update={"content": content, "key": key})
    return extend(prev, clause, holder, tags=new.tags)


def extend(prev: Fact, clause: str, holder: Holder | None, tags: tuple[str, ...] = ()) -> Fact:
    extra = distil(clause, holder)
    extra = re.sub(r"^(?:用户|The user\b)\s*", "", extra) if extra else extra
    if not extra:
        return prev
    sep = "，" if is_chinese(prev.content) else ", "
    limit = 50 if is_chinese(prev.content) else 120
    joined = prev.content + sep + (extra if is_chinese(extra) else extra[:1].lower() + extra[1:])
    if len(joined) > limit:
        return prev
    return prev.model_copy(
        update={"content": joined, "tags": tuple(dict.fromkeys(prev.tags + tags))}
    )
