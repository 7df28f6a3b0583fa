"""What one clause states, for the ``rules`` provider: its ``Match`` (pattern table, then
schedules and changed plans (``rules_schedule``), trips, standing instructions, habits, temporary
states, dated events and third-party events). Its wording and entities are ``rules_content``.
"""

from __future__ import annotations

import re

from memory_engine.llm.rules_acts import INSTRUCTION_RE, QUESTION_RE, REQUEST_RE, TEMPORARY_RE
from memory_engine.llm.rules_names import EN_NOT_SUBJECT
from memory_engine.llm.rules_patterns import Match, has_date, match_patterns, normalise_subject
from memory_engine.llm.rules_plans import trip
from memory_engine.llm.rules_polarity import is_chinese, polarity
from memory_engine.llm.rules_roles import role
from memory_engine.llm.rules_schedule import schedule
from memory_engine.llm.rules_usage import usage
from memory_engine.llm.rules_values import attribute_value
from memory_engine.models import MemoryType

_ZH_HABIT_RE = re.compile(r"每天|每周|每晚|每个月|每年|每逢|通常|经常|总是|平时|一般|习惯")
_EN_HABIT_RE = re.compile(
    r"\b(?:usually|always|often|normally|typically|every (?:day|morning|night|evening|week|"
    r"weekend|monday|tuesday|wednesday|thursday|friday|saturday|sunday)|on weekends|"
    r"(?:once|twice) a (?:day|week|month))\b",
    re.I,
)
FIRST_PERSON_RE = re.compile(
    r"^[^，,。]{0,8}?(?:我|用户)(?!们)|^(?:\w+ ){0,3}(?:I|I'm|I've|I'd|the user|The user|my|My)\b"
)
_ZH_EVENT_VERB_RE = re.compile(r"了|过|完|要去|要|会|将|得")
_EN_EVENT_VERB_RE = re.compile(
    r"\b(?:\w+ed|went|met|got|bought|sold|made|took|gave|saw|ran|won|lost|left|came|sent|"
    r"paid|spent|wrote|fixed|built|began|flew|drove|ate|found|had|will|am going to|have to|"
    r"need to|plan to|'ll)\b",
    re.I,
)
EN_SUBJECTLESS_RE = re.compile(
    r"^(?:Met|Fixed|Finished|Bought|Sent|Called|Visited|Went|Had|Signed|Submitted|Booked|"
    r"Ordered|Paid|Started|Moved|Picked up|Dropped off|Talked|Spoke|Got)\b"
)
_EN_THIRD_EVENT_RE = re.compile(
    r"^(?P<subj>[A-Za-z][\w&.\-]*(?: [A-Z][\w&.\-]*)*) (?:has |have |just |finally )?"
    r"(?P<verb>\w+ed|sent|signed|paid|won|lost|made|gave|took|got|bought|sold|left|wrote|"
    r"agreed|approved|rejected|hired|fired|launched|released|shipped)\b"
)
_ZH_THIRD_EVENT_RE = re.compile(
    r"^(?P<subj>[A-Za-z][\w&.\-]{1,30}|(?:客户|公司|老板|团队|甲方|乙方)[\u4e00-\u9fff]{0,4}?)"
    r"(?:已经|刚刚|刚|终于)?(?P<verb>[\u4e00-\u9fff]{1,6}?)了"
)


_LEAD_RE = re.compile(
    r"^(?:其实|实际上|说实话|对了|话说|说起来|顺带一提|顺便说一下|另外|还有|帮我记一下|你记一下|记一下|记住|请记住|"
    r"更正一下|更正|纠正一下|补充一下|补充下|计划有变|"
    r"actually|by the way|btw|oh and|oh|also|fyi|just so you know|remember that|please remember that|"
    r"remember|note that|heads up|quick update|update|change of plans?|correction|scratch that),?[:：]?\s*",
    re.I,
)


#: Giving a habit up ("戒烟", "quit smoking", "stopped eating sugar"): the habit, denied.
_QUIT_RE = re.compile(
    r"\b(?:quit|quitting|stopped|gave up|given up) (?P<obj>[a-z]+ing"
    r"(?: (?!last|this|next|in|on|at|since|for|ago|a|an|the|years?|months?|weeks?|days?|one|two|three|four|five|six|seven|eight|nine|ten|few|several|couple|yesterday|today|recently|\d)[a-z]+)?)\b|"
    r"戒(?:掉)?了?(?P<zobj>[\u4e00-\u9fff]{1,4}?)(?:了|啦)?$",
    re.I,
)


def _fallback(clause: str) -> Match | None:
    """Habits, temporary states, dated events and third-party events of a clause no pattern
    matched (first person, or a named third party with an action verb)."""
    zh = is_chinese(clause)
    first = bool(FIRST_PERSON_RE.match(clause)) or bool(
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
    if m and m.group("subj").lower() not in EN_NOT_SUBJECT:
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
        if _PRONOUN_ONLY_RE.match(statement_subject(clause)):
            return None  # "I've cut it out": says nothing without the clause before it
        memory_type = MemoryType.EPISODIC if _told_as_past(clause) else MemoryType.SEMANTIC
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
    r"I don't know|I didn't know|I did not know|I had no idea|I'm not sure|let me|I'd like you to|I want you to|I need you to|I'll think|"
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
    r"not|am|usually|also|still|really|just|now|currently|always|often|any ?more|at all|no more)\b|"
    # when it happened is no part of what it is: "quit smoking two months ago"
    r"\b(?:\d+|a|an|one|two|three|four|five|six|seven|eight|nine|ten|a few|a couple of|several)"
    r" (?:days?|weeks?|months?|years?) ago\b|\b(?:last|this|next) (?:week|month|year|summer|"
    r"winter|spring|fall|autumn)\b|\b(?:yesterday|today|tonight|recently|lately)\b",
    re.I,
)


#: A statement's core that is a verb and a pronoun only ("cut it out", "love that").
_PRONOUN_ONLY_RE = re.compile(
    r"^(?:has |have |had |'ve )?\w+ (?:it|that|this|them|those|these)(?: out| up| off| down| back)?$",
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
    if EN_SUBJECTLESS_RE.match(clause):
        clause = "I " + clause[:1].lower() + clause[1:]
    found = (
        schedule(clause)
        or trip(clause)
        or role(clause)
        or usage(clause)
        or attribute_value(clause)
        or match_patterns(clause)
    )
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


def _told_as_past(clause: str) -> bool:
    """True when a clause tells what happened ("I had a long call", "阿里的HR今天给我打电话了")."""
    if is_chinese(clause):
        return bool(_ZH_DAY_RE.search(clause)) or (
            has_date(clause) and bool(re.search(r"了|过", clause))
        )
    return bool(_PAST_EN_RE.search(clause))


#: A day said in a Chinese clause: a dated event, past or planned ("今天", "下周", "3月5号").
_ZH_DAY_RE = re.compile(
    r"今天|昨天|前天|明天|后天|今晚|昨晚|明晚|(?:上|下|这|本)(?:个)?(?:周|星期|礼拜)|"
    r"\d{1,2}月\d{1,2}[号日]|\d{4}-\d{2}-\d{2}"
)


def about(clause: str) -> Match | None:
    """A statement about a named third party no pattern matched ("我女儿今年上小学三年级")."""
    if QUESTION_RE.search(clause) or REQUEST_RE.search(clause):
        return None
    bare = re.sub(r"^(?:我|I|I'm|my)\s*", "", clause)
    return Match(
        "about",
        normalise_subject(bare)[:40],
        memory_type=MemoryType.EPISODIC if _told_as_past(clause) else MemoryType.SEMANTIC,
        importance=0.6,
        tags=("family",),
        polarity=polarity(clause),
    )
