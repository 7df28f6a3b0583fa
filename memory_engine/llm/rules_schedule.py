"""Schedules and changed plans of one clause, for the ``rules`` extractor: "以后周四汇报",
"项目汇报改成周五上午九点半", "the sync is now on Friday", "moved the standup to 9:30",
"The team dinner is on Thursday at 7pm", and bare corrections naming only the new time
("make it 3pm instead", "那就改成三点吧").

Each is a ``schedule`` ``Match``: subject the activity (empty for a bare correction), value the
new time (lower case).
"""

from __future__ import annotations

import re

from memory_engine.llm.rules_acts import CHANGE_RE, INSTRUCTION_RE, WEEKDAY_RE
from memory_engine.llm.rules_names import EN_NOT_SUBJECT
from memory_engine.llm.rules_patterns import Match, has_time, normalise_subject
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.models import MemoryType

__all__ = ["EN_MOVE_RE", "RECURRING_RE", "ZH_MOVE_RE", "schedule"]

#: Words of a routine rather than a one-off plan ("每周", "every Monday", "from now on").
RECURRING_RE = re.compile(
    r"以后|今后|每|通常|一般|\b(?:every|from now on|always|usually)\b",
    re.I,
)
#: A plan that names a regular meeting ("周会在3号会议室开", "the weekly sync is in room 301"):
#: where or when it is held, not a one-off.
_REGULAR_RE = re.compile(r"周会|例会|\b(?:weekly|daily|monthly)\b", re.I)
_ZH_NUM = r"[\d一二三四五六七八九十两]+"
_ZH_TIME = (
    rf"(?:(?:周|星期|礼拜)[一二三四五六日天])?(?:上午|下午|晚上|早上|中午|傍晚)?"
    rf"(?:{_ZH_NUM}(?:点|:|：)(?:半|{_ZH_NUM}分?|\d\d)?)?"
)
_EN_TIME = (
    r"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?)?"
    r"(?:\s*(?:at\s+)?\d{1,2}(?::\d\d)?\s*(?:am|pm)?)?(?:\s+(?:morning|afternoon|evening))?"
)


EN_MOVE_RE = re.compile(
    r"\b(?:move|moved|change|changed|reschedule|rescheduled|push|pushed|shift|shifted|"
    r"bring|brought|postpone|postponed) (?:the |my |our |this week's |today's )?"
    r"(?P<act>[\w\s'/:-]{1,30}?) (?:to|until|till) (?P<value>[\w\s:.-]{1,40})|"
    r"^(?:the |my |our )?(?P<act2>[\w\s'-]{2,30}?) (?:has |have )?(?:been |was |got |is )?(?:slipped|"
    r"moved(?: up| back| forward)?|pushed(?: back| out)?|pulled (?:in|forward)|postponed|delayed|"
    r"rescheduled|brought forward|shifted)(?: from [\w\s:.-]{1,20}?)? (?:to|until|till) "
    r"(?P<value2>[\w\s:.-]{1,40})",
    re.I,
)
ZH_MOVE_RE = re.compile(
    r"(?:把|将)?(?P<act>[\u4e00-\u9fffA-Za-z0-9]{1,12}?)(?:从[^，,。改换调挪推提]{1,10})?"
    r"(?:改成|改到|改为|换到|调整到|挪到|推迟到|提前到)"
    r"(?P<value>[^，,。.!！;；]{1,20})"
)
_CLOCK_RE = re.compile(
    r"\d{1,2}(?::\d\d|点|\s*(?:am|pm))|[一二三四五六七八九十两]+点|号|日|月|周|星期|"
    r"\b(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|noon)\b|"
    r"\b(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}\b|"
    r"\b\d{1,2}(?:st|nd|rd|th)\b",
    re.I,
)


_BARE_CHANGE_RE = re.compile(
    r"^(?:ok,? |okay,? |then |so )?(?:let's )?(?:make it|change it to|move it to|switch it to)"
    r" (?P<value>[\w\s:.-]{1,30}?)(?: instead)?$|"
    r"^(?:那就|那|还是)?(?:改成|改到|改为|换成|挪到)(?P<zh>[^，,。.!！;；]{1,12}?)(?:吧|好了|就行)?$|"
    # "I meant Thursday, not Tuesday, for the dentist", "Sorry, I meant Friday"
    r"^(?:sorry,? |oops,? )?(?P<meant>I meant |I mean )?(?P<said>[A-Za-z0-9 :.-]{1,30}?)"
    r"(?P<not>,? not (?:on |at )?[\w\s:.-]{1,20}?)?(?:,? for (?:the |my )?(?P<act>[\w\s'-]{2,30}?))?$|"
    # "（记错了，）是5月8号", "不对，是周四下午"
    r"^(?:不对|记错了|说错了|口误)?[，,]?(?:应该)?是(?P<zsaid>[^，,。.!！;；]{1,12}?)(?:才对|吧)?$",
    re.I,
)
_ZH_DAY = r"(?:\d{1,2}月)?\d{1,2}[号日]"
_EN_DATE = (
    r"(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.? \d{1,2}(?:st|nd|rd|th)?|"
    r"(?:the )?\d{1,2}(?:st|nd|rd|th)"
)


def _bare_change(clause: str) -> Match | None:
    """A correction naming only the new value ("make it 3pm instead", "那就改成三点吧"): it
    supersedes the latest plan of the user (``rules_judge``)."""
    m = _BARE_CHANGE_RE.match(clause.strip())
    if m and m.group("said") and not (m.group("meant") or m.group("not")):
        return None  # a bare time alone ("Friday") corrects nothing
    zh = bool(m and (m.group("zh") or m.group("zsaid")))
    value = (
        (m.group("value") or m.group("zh") or m.group("said") or m.group("zsaid") or "").strip()
        if m
        else ""
    )
    if not m or not _CLOCK_RE.search(value):
        return None
    if not (
        re.fullmatch(_ZH_TIME if zh else _EN_TIME, value, re.I)
        or (zh and re.fullmatch(_ZH_DAY + _ZH_TIME, value))
        or (
            not zh
            and re.fullmatch(
                rf"(?:{_EN_DATE})(?:\s*at\s*\d{{1,2}}(?::\d\d)?\s*(?:am|pm)?)?", value, re.I
            )
        )
    ):
        return None  # "改成周五汇报" names the activity too: a schedule, not a bare correction
    return Match(
        kind="schedule",
        subject=normalise_subject(m.group("act") or ""),
        value=value.lower(),
        importance=0.7,
        tags=("schedule", "plan", "correction"),
    )


_EN_PLANNED_RE = re.compile(
    r"^(?:the |our |my |this week's |the team's )?(?P<act>[\w\s'-]{2,30}?) (?:is|are|was) "
    r"(?:on|at|in|scheduled for|set for|planned for|booked for) (?P<value>.{2,40})$",
    re.I,
)
#: A meeting place as the value of a plan ("room 301", "3号会议室", "the 5th floor").
_PLACE_RE = re.compile(
    r"\b(?:room|conference room|meeting room|floor|building)\s*[\w-]+|\b\d+(?:st|nd|rd|th) floor\b|"
    r"[\dA-Za-z一二三四五六七八九十]+号?(?:会议室|教室|楼|层|室)|会议室",
    re.I,
)
_ZH_PLANNED_RE = re.compile(
    r"^(?P<act>[\u4e00-\u9fffA-Za-z0-9]{2,10}?)(?:定在|安排在|约在|改在|在)(?P<value>[^，,。]{2,20}?)"
    r"(?:举行|开|进行)?$"
)


def _plan_value(value: str) -> bool:
    """True when ``value`` names when or where a plan happens (a date, clock time or room)."""
    return has_time(value) or bool(_CLOCK_RE.search(value) or _PLACE_RE.search(value))


def _planned(clause: str) -> Match | None:
    """A dated plan: "The team dinner is on Thursday at 7pm", "周会定在周三下午"."""
    m = (_ZH_PLANNED_RE if is_chinese(clause) else _EN_PLANNED_RE).match(clause.strip())
    if not m or not _plan_value(m.group("value")):
        return None
    if m.group("act").lower() in EN_NOT_SUBJECT or re.match(r"^(?:我|用户|I|it)\b", m.group("act")):
        return None
    return Match(
        kind="schedule",
        subject=normalise_subject(m.group("act")),
        value=m.group("value").strip().lower(),
        memory_type=(
            MemoryType.SEMANTIC
            if RECURRING_RE.search(clause) or _REGULAR_RE.search(clause)
            else MemoryType.EPISODIC
        ),
        importance=0.6,
        tags=("schedule", "plan"),
    )


#: A Chinese new time followed by the routine it is for ("6点半起床", "晚上十点睡觉").
_ZH_TIMED_ACT_RE = re.compile(
    rf"^(?P<time>(?:早上|上午|中午|下午|晚上|凌晨)?{_ZH_NUM}(?:点|:|：)(?:半|{_ZH_NUM}分?|\d\d)?)"
    r"(?P<act>[\u4e00-\u9fff]{2,6}?)(?:了|啦)?$"
)


def _moved(clause: str) -> Match | None:
    """A changed plan without a weekday: "moved the standup to 9:30", "会议推迟到3点"."""
    m = (ZH_MOVE_RE if is_chinese(clause) else EN_MOVE_RE).search(clause)
    groups = m.groupdict() if m else {}
    value = groups.get("value") or groups.get("value2") or ""
    if not m or not _plan_value(value):
        return None
    act = groups.get("act") or groups.get("act2") or ""
    if act.strip().lower() in (
        "we",
        "i",
        "us",
        "the user",
        "my family",
        "the family",
        "everything",
        "it all",
        "all of it",
    ):
        return None  # "we moved to Manchester in January": a move, not a plan
    act = re.sub(r"^(?:我们?的?|用户的?|以后|今后|计划有变|现在|目前|已经)+", "", act)
    value = value.strip()
    timed = _ZH_TIMED_ACT_RE.match(value)
    if timed and not act:  # "我现在改成6点半起床了": the time, then the routine it moves
        value, act = timed.group("time"), timed.group("act")
    return Match(
        kind="schedule",
        subject=normalise_subject(act) or "schedule",
        value=value.lower(),
        importance=0.7,
        tags=("schedule", "plan"),
    )


def schedule(clause: str) -> Match | None:
    """ "以后周四汇报" / "项目汇报改成周五上午九点半" / "the sync is now on Friday"."""
    wd = WEEKDAY_RE.search(clause)
    bare = _bare_change(clause) or (_moved(clause) if wd and EN_MOVE_RE.search(clause) else None)
    if bare is not None:
        return bare
    if not wd:
        return _moved(clause) or _planned(clause)
    change = CHANGE_RE.search(clause)
    if change:  # "例会从周二改到周三": the new time is the one after the change word
        wd = WEEKDAY_RE.search(clause, change.end()) or wd
    if not (INSTRUCTION_RE.search(clause) or change or re.search(r"以后|今后", clause)):
        return _planned(clause)
    zh = is_chinese(clause)
    tm = re.compile(_ZH_TIME if zh else _EN_TIME, re.I).match(clause, wd.start())
    value = (tm.group(0) if tm and tm.group(0) else wd.group(0)).strip().lower()
    after = clause[tm.end() if tm else wd.end() :]
    after = re.split(r"[，,。.;；!！]", after, maxsplit=1)[0].strip()
    if change and change.start() < wd.start():
        before = re.sub(r"从.*$|\s+from\b.*$", "", clause[: change.start()], flags=re.I)
        before = re.sub(r"^(?:我们?的?|用户的?|把|将|以后|今后)+|^(?:let's |please )?", "", before)
        before = re.sub(r"\b(?:the|my|our|is|are|was|has been|been)\b", " ", before, flags=re.I)
        activity = normalise_subject(before) or normalise_subject(after)
    else:
        activity = normalise_subject(re.sub(r"^(?:都|也|要|去|来|开|做)", "", after))
    activity = re.sub(r"^(?:以后|今后|每周|每个)", "", activity) or "schedule"
    return Match(
        kind="schedule",
        subject=activity,
        value=value,
        memory_type=MemoryType.SEMANTIC,
        importance=0.7,
        tags=("schedule", "preference"),
    )
