"""What one clause states, for the ``rules`` provider: its ``Match`` (pattern table, then
schedules and changed plans, standing instructions, habits, temporary states, dated events and
third-party events), the distilled content, the entities, and the facts of tool conclusions.
"""

from __future__ import annotations

import re

from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules_clauses import Holder, distil
from memory_engine.llm.rules_names import chinese_names
from memory_engine.llm.rules_patterns import (
    CHANGE_RE,
    INSTRUCTION_RE,
    QUESTION_RE,
    REQUEST_RE,
    TEMPORARY_RE,
    WEEKDAY_RE,
    Match,
    has_date,
    has_time,
    match_patterns,
    normalise_subject,
)
from memory_engine.llm.rules_plans import trip
from memory_engine.llm.rules_polarity import is_chinese, polarity
from memory_engine.llm.schemas import Fact
from memory_engine.llm.toolsummary import Conclusion
from memory_engine.models import MemoryType

_ZH_NUM = r"[\d一二三四五六七八九十两]+"
_ZH_TIME = (
    rf"(?:(?:周|星期|礼拜)[一二三四五六日天])?(?:上午|下午|晚上|早上|中午|傍晚)?"
    rf"(?:{_ZH_NUM}(?:点|:|：)(?:半|{_ZH_NUM}分?|\d\d)?)?"
)
_EN_TIME = (
    r"(?:(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday)s?)?"
    r"(?:\s*(?:at\s+)?\d{1,2}(?::\d\d)?\s*(?:am|pm)?)?(?:\s+(?:morning|afternoon|evening))?"
)
_ZH_HABIT_RE = re.compile(r"每天|每周|每晚|每个月|每年|每逢|通常|经常|总是|平时|一般|习惯")
_EN_HABIT_RE = re.compile(
    r"\b(?:usually|always|often|normally|typically|every (?:day|morning|night|evening|week|"
    r"weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on weekends|"
    r"(?:once|twice) a (?:day|week|month))\b",
    re.I,
)
_FIRST_PERSON_RE = re.compile(
    r"^[^，,。]{0,8}?(?:我|用户)(?!们)|^(?:\w+ ){0,3}(?:I|I'm|I've|I'd|the user|The user|my|My)\b"
)
_ZH_EVENT_VERB_RE = re.compile(r"了|过|完|要去|要|会|将|得")
_EN_EVENT_VERB_RE = re.compile(
    r"\b(?:\w+ed|went|met|got|bought|sold|made|took|gave|saw|ran|won|lost|left|came|sent|"
    r"paid|spent|wrote|fixed|built|began|flew|drove|ate|found|had|will|am going to|have to|"
    r"need to|plan to|'ll)\b",
    re.I,
)
_EN_SUBJECTLESS_RE = re.compile(
    r"^(?:Met|Fixed|Finished|Bought|Sent|Called|Visited|Went|Had|Signed|Submitted|Booked|"
    r"Ordered|Paid|Started|Moved|Picked up|Dropped off|Talked|Spoke|Got)\b"
)
_EN_THIRD_EVENT_RE = re.compile(
    r"^(?P<subj>[A-Za-z][\w&.\-]*(?: [A-Z][\w&.\-]*)*) (?:has |have |just |finally )?"
    r"(?P<verb>\w+ed|sent|signed|paid|won|lost|made|gave|took|got|bought|sold|left|wrote|"
    r"agreed|approved|rejected|hired|fired|launched|released|shipped)\b"
)
_EN_NOT_SUBJECT = {
    "it",
    "this",
    "that",
    "there",
    "i",
    "you",
    "we",
    "they",
    "he",
    "she",
    "which",
    "what",
    "who",
    "let",
    "please",
    "so",
    "and",
    "but",
    "the",
    "a",
    "an",
    "everyone",
    "nothing",
}
_EN_COMMON = _EN_NOT_SUBJECT | {
    "my",
    "our",
    "met",
    "today",
    "yesterday",
    "tomorrow",
    "from",
    "always",
    "never",
    "call",
    "don't",
    "actually",
    "make",
}
_ZH_THIRD_EVENT_RE = re.compile(
    r"^(?P<subj>[A-Za-z][\w&.\-]{1,30}|(?:客户|公司|老板|团队|甲方|乙方)[\u4e00-\u9fff]{0,4}?)"
    r"(?:已经|刚刚|刚|终于)?(?P<verb>[\u4e00-\u9fff]{1,6}?)了"
)


_LEAD_RE = re.compile(
    r"^(?:其实|实际上|说实话|对了|顺便说一下|另外|还有|帮我记一下|你记一下|记一下|记住|请记住|"
    r"actually|by the way|btw|oh|also|fyi|just so you know|remember that|please remember that|"
    r"remember|note that),?\s*",
    re.I,
)


_EN_MOVE_RE = re.compile(
    r"\b(?:move|moved|change|changed|reschedule|rescheduled|push|pushed|shift|shifted|"
    r"bring|brought|postpone|postponed) (?:the |my |our |this week's |today's )?"
    r"(?P<act>[\w\s'/:-]{1,30}?) (?:to|until|till) (?P<value>[\w\s:.-]{1,40})|"
    r"^(?:the |my |our )?(?P<act2>[\w\s'-]{2,30}?) (?:has |have )?(?:been |was |got |is )?(?:slipped|"
    r"moved|pushed(?: back)?|postponed|delayed|rescheduled|brought forward|shifted) (?:to|until|till) "
    r"(?P<value2>[\w\s:.-]{1,40})",
    re.I,
)
_ZH_MOVE_RE = re.compile(
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
    r"^(?:那就|那|还是)?(?:改成|改到|改为|换成|挪到)(?P<zh>[^，,。.!！;；]{1,12}?)(?:吧|好了|就行)?$",
    re.I,
)


def _bare_change(clause: str) -> Match | None:
    """A correction naming only the new value ("make it 3pm instead", "那就改成三点吧"): it
    supersedes the latest plan of the user (``rules_judge``)."""
    m = _BARE_CHANGE_RE.match(clause.strip())
    value = (m.group("value") or m.group("zh") or "").strip() if m else ""
    if not m or not _CLOCK_RE.search(value):
        return None
    if not re.fullmatch(_ZH_TIME if m.group("zh") else _EN_TIME, value, re.I):
        return None  # "改成周五汇报" names the activity too: a schedule, not a bare correction
    return Match(
        kind="schedule",
        subject="",
        value=(m.group("value") or m.group("zh")).strip().lower(),
        importance=0.7,
        tags=("schedule", "plan"),
    )


_EN_PLANNED_RE = re.compile(
    r"^(?:the |our |my |this week's |the team's )?(?P<act>[\w\s'-]{2,30}?) (?:is|are|was) "
    r"(?:on|at|scheduled for|set for|planned for|booked for) (?P<value>.{2,40})$",
    re.I,
)
_ZH_PLANNED_RE = re.compile(
    r"^(?P<act>[\u4e00-\u9fffA-Za-z0-9]{2,10}?)(?:定在|安排在|约在|改在|在)(?P<value>[^，,。]{2,20}?)"
    r"(?:举行|开|进行)?$"
)


def _planned(clause: str) -> Match | None:
    """A dated plan: "The team dinner is on Thursday at 7pm", "周会定在周三下午"."""
    m = (_ZH_PLANNED_RE if is_chinese(clause) else _EN_PLANNED_RE).match(clause.strip())
    if not m or not (has_time(m.group("value")) or _CLOCK_RE.search(m.group("value"))):
        return None
    if m.group("act").lower() in _EN_NOT_SUBJECT or re.match(
        r"^(?:我|用户|I|it)\b", m.group("act")
    ):
        return None
    return Match(
        kind="schedule",
        subject=normalise_subject(m.group("act")),
        value=m.group("value").strip().lower(),
        memory_type=MemoryType.EPISODIC,
        importance=0.6,
        tags=("schedule", "plan"),
    )


def _moved(clause: str) -> Match | None:
    """A changed plan without a weekday: "moved the standup to 9:30", "会议推迟到3点"."""
    m = (_ZH_MOVE_RE if is_chinese(clause) else _EN_MOVE_RE).search(clause)
    groups = m.groupdict() if m else {}
    value = groups.get("value") or groups.get("value2") or ""
    if not m or not _CLOCK_RE.search(value):
        return None
    act = groups.get("act") or groups.get("act2") or ""
    act = re.sub(r"^(?:我们?的?|用户的?|以后|今后|计划有变)+", "", act)
    return Match(
        kind="schedule",
        subject=normalise_subject(act) or "schedule",
        value=value.strip().lower(),
        importance=0.7,
        tags=("schedule", "plan"),
    )


def _schedule(clause: str) -> Match | None:
    """ "以后周四汇报" / "项目汇报改成周五上午九点半" / "the sync is now on Friday"."""
    wd = WEEKDAY_RE.search(clause)
    bare = _bare_change(clause) or (_moved(clause) if wd and _EN_MOVE_RE.search(clause) else None)
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


#: Giving a habit up ("戒烟", "quit smoking", "stopped eating sugar"): the habit, denied.
_QUIT_RE = re.compile(
    r"\b(?:quit|quitting|stopped|gave up|given up) (?P<obj>[a-z]+ing"
    r"(?: (?!last|this|next|in|on|at|since|for|ago|a|an|the|years?|months?|weeks?)[a-z]+)?)\b|"
    r"戒(?:掉)?了?(?P<zobj>[\u4e00-\u9fff]{1,4}?)(?:了|啦)?$",
    re.I,
)


def _fallback(clause: str) -> Match | None:
    """Habits, temporary states, dated events and third-party events of a clause no pattern
    matched (first person, or a named third party with an action verb)."""
    zh = is_chinese(clause)
    first = bool(_FIRST_PERSON_RE.match(clause)) or bool(
        zh
        and re.match(
            r"^(?:最近|这几天|这阵子|这段时间|这周|今天|昨天|前天|刚才|刚刚|上周.?|早上|下午|晚上)",
            clause,
        )
        and not re.search(r"[你他她它]", clause[:6])
    )
    bare = re.sub(r"^(?:我|用户|I'm|I am|I|the user is|the user|The user)\s*", "", clause)
    quit = _QUIT_RE.search(clause) if first else None
    if quit:  # "我戒烟了", "I quit smoking": the habit, denied
        return Match(
            "statement",
            normalise_subject(quit.group("obj") or quit.group("zobj"))[:40],
            importance=0.6,
            tags=("personal",),
            polarity=-1,
        )
    if first and (_ZH_HABIT_RE.search(clause) if zh else _EN_HABIT_RE.search(clause)):
        return Match(
            "habit",
            normalise_subject(bare)[:40],
            importance=0.6,
            tags=("habit",),
            polarity=polarity(clause),
        )
    if first and TEMPORARY_RE.search(clause):
        subject = normalise_subject(TEMPORARY_RE.sub("", bare))[:40]
        return Match("state", subject, importance=0.5, tags=("state",), polarity=polarity(clause))
    if (
        first
        and has_date(clause)
        and (_ZH_EVENT_VERB_RE.search(clause) if zh else _EN_EVENT_VERB_RE.search(clause))
    ):
        return Match(
            "event",
            normalise_subject(bare)[:40],
            memory_type=MemoryType.EPISODIC,
            importance=0.6,
            tags=("event",),
        )
    m = _ZH_THIRD_EVENT_RE.match(clause) if zh else _EN_THIRD_EVENT_RE.match(clause)
    if m and m.group("subj").lower() not in _EN_NOT_SUBJECT:
        return Match(
            "event",
            normalise_subject(clause)[:40],
            memory_type=MemoryType.EPISODIC,
            importance=0.5,
            tags=("event",),
            value=m.group("subj"),
        )
    org = _ZH_ORG_EVENT_RE.match(clause) if zh else None
    if org and has_date(clause) and len(clause) > org.end() + 2:
        return Match(
            "event",
            normalise_subject(clause[org.end() :])[:40],
            memory_type=MemoryType.EPISODIC,
            importance=0.5,
            tags=("event",),
            value=org.group("subj"),
        )
    if _HOWTO_FACT_RE.search(clause):
        return Match(
            "howto",
            normalise_subject(clause)[:40],
            memory_type=MemoryType.PROCEDURAL,
            importance=0.6,
            tags=("howto",),
        )
    if _STATEMENT_RE.search(clause) and not _NON_FACT_RE.search(clause):
        memory_type = MemoryType.EPISODIC if _PAST_EN_RE.search(clause) else MemoryType.SEMANTIC
        return Match(
            "statement",
            statement_subject(clause),
            memory_type=memory_type,
            importance=0.6,
            tags=("personal",),
            polarity=polarity(clause),
        )
    return None


#: An English clause told in the past tense ("I had a long call", "we signed the lease").
_PAST_EN_RE = re.compile(
    r"^(?:[\w,']+ ){0,4}?(?:I|we|We) (?:just |finally |already |also )?(?:had|went|met|got|made|took|"
    r"gave|saw|ran|won|lost|left|came|sent|paid|spent|wrote|built|began|flew|drove|ate|found|"
    r"bought|sold|told|did|\w+ed)\b"
)
_ZH_ORG_EVENT_RE = re.compile(
    r"^(?P<subj>[\u4e00-\u9fffA-Za-z0-9]{1,8}?(?:科技|公司|集团|云|银行|大学|医院|团队)|[A-Za-z][\w&.-]+)"
    r"\s*(?:那边|方面)?"
)


_HOWTO_FACT_RE = re.compile(
    r"^(?:to|for) [\w\s-]{3,40}, (?:run|use|open|click|type|call|set)\b|"
    r"^(?:要|想)?[\u4e00-\u9fff]{2,12}(?:的话|时)[，,]?(?:先|执行|运行|用)",
    re.I,
)
_STATEMENT_RE = re.compile(
    r"^[^，,。？?]{0,10}?我(?!觉得|认为)|"
    r"^(?:[\w,']+ ){0,5}(?:I|I'm|I've|We|we|We've|My|my)\b(?! think| guess)"
)
_NON_FACT_RE = re.compile(
    r"我(?:觉得|认为|想想|再想想|猜|看看|试试|明白|知道了|同意|不知道|不确定|想问|想知道|在想|随便)|"
    r"\b(?:I think|I guess|I see|I agree|I understand|I mean|I wonder|I hope|I suppose|"
    r"I don't know|I'm not sure|let me|I'd like you to|I want you to|I need you to|I'll think|"
    r"I'm fine|I'm good|I'm ok|I'm okay|I'm back|I'm here|(?:we|I) (?:just )?(?:talked|chatted|"
    r"discussed|spoke|were talking|was talking) about)\b|我们?(?:刚才|刚刚)?(?:聊了|聊过|讨论了|谈了|说了)",
    re.I,
)
_STMT_STRIP_ZH = re.compile(
    r"^.*?我(?:们)?(?:再也不|不再|从不|没有|没|不|已经|还|也|都|平时|通常|一直|经常|总是|一般|现在|"
    r"目前|正在|在(?=[学练做读写]))*|[了过]$"
)
_STMT_STRIP_EN = re.compile(
    r"^(?:[\w,']+ ){0,3}?(?:I|I'm|I've|we|We|We've)\s+|\b(?:don't|do not|doesn't|no longer|never|"
    r"not|am|usually|also|still|really|just|now|currently|always|often|any ?more|at all|no more)\b",
    re.I,
)


def statement_subject(clause: str) -> str:
    """The comparable core of a first-person statement: its predicate and object without the
    subject, negators and frequency adverbs ("I no longer play tennis" -> "play tennis")."""
    if is_chinese(clause):
        core = _STMT_STRIP_ZH.sub("", clause)
    else:
        core = _STMT_STRIP_EN.sub(" ", clause)
    return normalise_subject(core)[:40]


def analyse(clause: str) -> Match | None:
    """The ``Match`` of one clause, or None (not worth remembering)."""
    if QUESTION_RE.search(clause) and not INSTRUCTION_RE.search(clause):
        return None
    if REQUEST_RE.search(clause) and not INSTRUCTION_RE.search(clause):
        return None
    lead = _LEAD_RE.match(clause.strip())
    clause = _LEAD_RE.sub("", clause.strip()).lstrip("，,：: ")
    if lead and re.search(r"记", lead.group(0)) and is_chinese(clause) and "我" not in clause:
        clause = "我" + clause  # "帮我记一下，周六要交房租": the user's own note
    if _EN_SUBJECTLESS_RE.match(clause):
        clause = "I " + clause[:1].lower() + clause[1:]
    found = _schedule(clause) or trip(clause) or match_patterns(clause)
    if found is None and INSTRUCTION_RE.search(clause):
        found = Match(
            kind="instruction",
            subject=normalise_subject(re.sub(r"^(?:以后|今后|从现在起|请|please)\s*", "", clause)),
            memory_type=MemoryType.PROCEDURAL,
            importance=0.7,
            polarity=polarity(clause),
            tags=("preference", "instruction"),
        )
    return found or _fallback(clause)


def about(clause: str) -> Match | None:
    """A statement about a named third party no pattern matched ("我女儿今年上小学三年级")."""
    if QUESTION_RE.search(clause) or REQUEST_RE.search(clause):
        return None
    bare = re.sub(r"^(?:我|I|I'm|my)\s*", "", clause)
    return Match(
        "about",
        normalise_subject(bare)[:40],
        importance=0.6,
        tags=("family",),
        polarity=polarity(clause),
    )


def content_of(resolved: str, found: Match, holder: Holder | None) -> str:
    """The stored wording of a clause's fact (time-resolved clause, third person)."""
    if _EN_SUBJECTLESS_RE.match(resolved):
        resolved = "I " + resolved[:1].lower() + resolved[1:]
    zh = is_chinese(resolved)
    moved = found.kind == "schedule" and (
        CHANGE_RE.search(resolved) or _EN_MOVE_RE.search(resolved) or _ZH_MOVE_RE.search(resolved)
    )
    if (
        moved
        and not zh
        and not re.match(
            r"^(?:I|we|let's|please|move|change|reschedule|push|shift|postpone)\b", resolved, re.I
        )
    ):
        moved = False  # someone else moved it ("dr ruiz moved the appointment"): as said
    if moved and found.subject and found.subject != "schedule":
        who = holder.phrase if holder else "用户"
        if zh:
            return f"{who}的{found.subject}改为{found.value}"
        who = holder.phrase if holder else "The user"
        value = found.value or ""
        prep = (
            ""
            if re.match(r"(?:on|at|to|in)\b", value)
            else "on "
            if WEEKDAY_RE.match(value)
            else "at "
        )
        return f"{who}'s {found.subject} is now {prep}{value}"[:120]
    if found.kind == "schedule" and not found.subject:
        if zh:
            return f"{holder.phrase if holder else '用户'}把安排改为{found.value}"
        return f"{holder.phrase if holder else 'The user'} changed the plan to {found.value}"
    if found.kind == "address" and found.value:
        said = address_pair(None, None, value=found.value, polarity=found.polarity, zh=zh)
        verb = re.search(r"(?:别|不要|不许|不用)?(?:再)?(?:叫|称呼|喊)(?:我|用户)", resolved)
        if zh and verb and verb.start() > 0:  # "开会的时候别叫我老王" -> "开会时…"
            ctx = re.sub(r"的时候$", "时", resolved[: verb.start()].strip(" ，,"))
            said = ctx + said if len(ctx) <= 12 else said
        return said
    text = distil(resolved, holder)
    if (
        zh
        and "用户" not in text
        and not re.match(r"^[A-Za-z]", text)
        and found.kind not in ("amount", "deadline", "instruction")
        and not (
            found.kind == "about"
            and holder is None
            and any(resolved.startswith(n) for n in chinese_names(resolved))
        )
    ):
        if found.kind != "event" or _FIRST_PERSON_RE.match(resolved) or not found.value:
            text = (holder.phrase if holder else "用户") + text
    return text


def address_pair(
    pos: Fact | None,
    neg: Fact | None,
    *,
    value: str | None = None,
    polarity: int = 1,
    zh: bool | None = None,
) -> str:
    """The fact of a form of address: "称呼用户为王工，不要叫老王" / "The user wants to be
    called Sam, not Sammy"; one fact for a pair (positive ``pos``, negative ``neg``)."""
    if pos is not None and neg is not None:
        p, n = str(pos.key.get("value") or ""), str(neg.key.get("value") or "")
        if is_chinese(pos.content):
            ctx = pos.content.split("称呼用户为")[0] or neg.content.split("不要称呼用户为")[0]
            ctx = ctx.removesuffix("不要")
            return f"{ctx}称呼用户为{p}，不要叫{n}"
        return f"The user wants to be called {p.title()}, not {n.title()}"
    v = value or ""
    if zh or is_chinese(v):
        return f"称呼用户为{v}" if polarity > 0 else f"不要称呼用户为{v}"
    return (
        f"The user wants to be called {v.title()}"
        if polarity > 0
        else f"The user does not want to be called {v.title()}"
    )


_NAMED_THING_RE = re.compile(
    r"(?:公司|团队|学校|项目|产品|店|餐厅|医院|品牌|小区|狗|猫|宠物|孩子|儿子|女儿)(?:的名字)?"
    r"(?:叫做?|名叫|名字是)([\u4e00-\u9fffA-Za-z0-9·]{2,12})$"
)


_COUNTERPART_RE = re.compile(
    r"(?:和|跟|与|同|给)([\u4e00-\u9fffA-Za-z0-9]{2,8}?)(?:的人|那边|方面|团队|的同事|的客户)"
)


def entities_of(found: Match, holder: Holder | None, clause: str) -> tuple[str, ...]:
    """Clean entity names of a fact: the third party, proper names, places and objects."""
    out: list[str] = []
    if holder is not None and holder.entity:
        out.append(holder.entity)
    if found.kind == "event" and found.value:
        out.append(found.value)
    for m in re.finditer(r"(?<![\w'])([A-Z][A-Za-z0-9&.\-]+(?: [A-Z][A-Za-z0-9&.\-]+)*)", clause):
        name = m.group(1)
        first = name.split(" ")[0]
        if m.start() == 0 and (first.lower() in _EN_COMMON or first.isalpha() and first.istitle()):
            name = name[len(first) :].strip()
        if name and name.lower() not in _EN_NOT_SUBJECT and name not in ("I", "I'm"):
            out.append(name)
    named = _NAMED_THING_RE.search(clause)
    if named:  # "我们公司叫星河科技": the name of a company, school, pet ...
        out.append(named.group(1))
    out.extend(m.group(1) for m in _COUNTERPART_RE.finditer(clause))  # "和华为云的人开会"
    out.extend(chinese_names(clause))  # 老张, 李医生, 小米公司, 腾讯那边
    if found.kind in ("residence", "workplace", "origin", "name", "address") and found.value:
        out.append(found.value if is_chinese(found.value) else found.value.title())
    elif (
        found.kind in ("allergy", "preference", "has")
        and found.subject
        and len(found.subject) <= 20
    ):
        out.append(found.subject)
    clean = [re.sub(r"\s+", " ", e).strip(" ,.，。") for e in out]
    return tuple(dict.fromkeys(e for e in clean if e))


def tool_fact(conclusion: Conclusion, item: ExtractInput) -> Fact:
    """The fact of one tool-output conclusion (episodic: what the tool reported, when)."""
    return Fact(
        content=conclusion.text,
        memory_type=MemoryType.EPISODIC,
        importance=0.6 if conclusion.status in ("failed", "error") else 0.5,
        confidence=0.9,
        entities=conclusion.entities,
        tags=("tool_output",),
        valid_from=item.observed_at,
        key={
            "kind": "tool",
            "holder": "tool",
            "subject": conclusion.subject,
            "value": conclusion.status,
            "polarity": 1,
            "temporary": False,
            "correction": False,
        },
    )
