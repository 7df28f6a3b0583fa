"""Planned trips in Chinese and English (a part of the offline ``rules`` extractor).

A trip is the ``plan`` kind: its subject is the time it is planned for ("五一", "in may"; empty
when unsaid) and its value the destination. ``plan`` is single-valued (``rules_judge``): another
destination for the same time, or a correction naming only a destination, replaces it.
"""

from __future__ import annotations

import re

from memory_engine.llm.rules_patterns import Match, normalise_subject
from memory_engine.llm.rules_polarity import is_chinese, polarity
from memory_engine.models import MemoryType

__all__ = ["trip"]


_ZH_TRIP_RE = re.compile(
    r"^(?:我|用户)(?:们)?(?P<w1>[^，,。去]{0,6}?)(?:也)?(?:打算|计划|准备|想|要|会)?(?P<w2>[^，,。去]{0,6}?)"
    r"(?:不|没|不再)?(?:打算|计划|准备|想|要|会)?(?P<change>改)?去(?!过)(?P<where>[\u4e00-\u9fffA-Za-z]{2,10}?)"
    r"(?P<trip>玩|旅游|旅行|度假|出差|看看|逛逛|过年|过节)?(?:了|吧)?$"
)
_ZH_TRIP_TIME_RE = re.compile(r"[一二三四五六七八九十\d]|节|月|号|周|天|年|假|明|下|这|今")
_EN_TRIP_RE = re.compile(
    r"^(?:I|the user)(?: am|'m| is| will|'ll)? (?:not |no longer |never )?"
    r"(?:planning to |plan to |going to |intend to |want to |hoping to )?"
    r"(?:go|going|visit|visiting|travel|travelling|traveling|fly|flying|head|heading)"
    r"(?: to)? (?P<where>[A-Z][\w-]*(?: [A-Z][\w-]*)*)(?: (?P<when>(?:in|on|for|over|during|this|"
    r"next) [^,;]{2,30}?))?(?: instead)?$"
)


#: Frequency words of a routine ("周末经常去爬山", "平时去健身房").
_ROUTINE_RE = re.compile(r"经常|平时|通常|一般|总是|常常|偶尔|习惯")


def trip(clause: str) -> Match | None:
    """A planned trip: "我打算五一去厦门玩", "五一不去厦门了，改去青岛", "I'm going to Lisbon in
    May". Single-valued per time (``plan``): another destination for the same time replaces it."""
    text = clause.strip()
    if is_chinese(text):
        m = _ZH_TRIP_RE.match(text)
        if not m or re.search(r"跳槽|入职|转岗|调岗|调去|调到|外派|派驻", text):
            return None  # "跳槽去了字节跳动": a new employer, not a trip
        when = re.sub(
            r"打算|计划|准备|想|要|会|不|没|改|也",
            "",
            (m.group("w1") or "") + (m.group("w2") or ""),
        )
        where = m.group("where")
        if when.startswith("每") or "每" in (m.group("w1") or "") or _ROUTINE_RE.search(text):
            return None  # "我每周一去健身房", "周末经常去爬山": a routine (a habit), not a trip
        when = when if _ZH_TRIP_TIME_RE.search(when) else ""
        planned = re.search(r"打算|计划|准备", text) or m.group("trip") or m.group("change")
        if not (when or planned):
            return None  # "我想去洗手间": a one-off, not a plan
    else:
        m = _EN_TRIP_RE.match(text)
        if not m:
            return None
        when, where = (m.group("when") or ""), m.group("where")
    return Match(
        kind="plan",
        subject=normalise_subject(when),
        value=normalise_subject(where),
        memory_type=MemoryType.EPISODIC if when else MemoryType.SEMANTIC,
        importance=0.6,
        polarity=polarity(text),
        tags=("plan", "travel"),
    )
