"""How a clause's fact is worded and what it names, for the ``rules`` extractor: the stored
third-person content in the clause's language (``content_of``, ``address_pair``), its entity
names (``entities_of``) and the fact of a tool-output conclusion (``tool_fact``).
"""

from __future__ import annotations

import re

from memory_engine.llm.base import ExtractInput
from memory_engine.llm.rules_acts import CHANGE_RE, WEEKDAY_RE
from memory_engine.llm.rules_clauses import Holder, distil
from memory_engine.llm.rules_facts import EN_SUBJECTLESS_RE, FIRST_PERSON_RE
from memory_engine.llm.rules_names import EN_COMMON, EN_NOT_NAMES, EN_NOT_SUBJECT, chinese_names
from memory_engine.llm.rules_patterns import Match
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.llm.rules_schedule import EN_MOVE_RE, ZH_MOVE_RE
from memory_engine.llm.schemas import Fact
from memory_engine.llm.toolsummary import Conclusion
from memory_engine.models import MemoryType

__all__ = ["address_pair", "content_of", "entities_of", "tool_fact"]


def content_of(resolved: str, found: Match, holder: Holder | None) -> str:
    """The stored wording of a clause's fact (time-resolved clause, third person)."""
    if EN_SUBJECTLESS_RE.match(resolved):
        resolved = "I " + resolved[:1].lower() + resolved[1:]
    zh = is_chinese(resolved)
    moved = found.kind == "schedule" and (
        CHANGE_RE.search(resolved) or EN_MOVE_RE.search(resolved) or ZH_MOVE_RE.search(resolved)
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
    if found.kind == "schedule" and found.subject and "correction" in found.tags:
        # "I meant Thursday, not Tuesday, for the dentist": the plan and its new time
        if zh:
            return f"{holder.phrase if holder else '用户'}的{found.subject}改为{found.value}"
        who = holder.phrase if holder else "The user"
        prep = "on " if WEEKDAY_RE.match(found.value or "") else ""
        return f"{who}'s {found.subject} is now {prep}{found.value}"[:120]
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
        if holder is not None and text.startswith(holder.phrase):
            pass  # "张伟现在住在北京": the holder already leads
        elif found.kind != "event" or FIRST_PERSON_RE.match(resolved) or not found.value:
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


#: A lower-case Latin word of 4+ letters in Chinese text ("deepseek", "notion"): a name.
_LATIN_IN_CHINESE_RE = re.compile(r"(?<![A-Za-z0-9_])[a-z][a-z0-9]{3,}(?![A-Za-z0-9_])")
#: Latin words in Chinese text that name no entity.
_LATIN_NOT_NAMES = frozenset(
    "http https html json yaml token email bug bugs debug test tests demo code java8 bash "
    "shell linux python java golang rust".split()
)


def entities_of(found: Match, holder: Holder | None, clause: str) -> tuple[str, ...]:
    """Clean entity names of a fact: the third party, proper names, places and objects."""
    out: list[str] = []
    if holder is not None and holder.entity:
        out.append(holder.entity)
    if found.kind == "event" and found.value:
        out.append(found.value)
    # a Latin name may touch Chinese text ("用DeepSeek的模型"): only a Latin letter or digit before
    # it joins it to another word
    for m in re.finditer(
        r"(?<![A-Za-z0-9_'])([A-Z][A-Za-z0-9&.\-]+(?: [A-Z][A-Za-z0-9&.\-]+)*)", clause
    ):
        name = m.group(1)
        first = name.split(" ")[0]
        if m.start() == 0 and (first.lower() in EN_COMMON or first.isalpha() and first.istitle()):
            name = name[len(first) :].strip()
        if (
            name
            and name.lower() not in EN_NOT_SUBJECT
            and name not in ("I", "I'm")
            and name not in EN_NOT_NAMES  # weekdays, months, languages
        ):
            out.append(name)
    if is_chinese(clause):  # "deepseek 的 API": a product or company written in Latin letters
        out.extend(
            m.group(0)
            for m in _LATIN_IN_CHINESE_RE.finditer(clause)
            if m.group(0).lower() not in _LATIN_NOT_NAMES
        )
    if found.kind == "uses" and found.value:
        out.append(found.value)  # the tool used: "飞书", "vs code"
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
    first_written: dict[str, str] = {}  # one name per spelling ("Notion" / "notion")
    for e in clean:
        if e:
            first_written.setdefault(e.casefold(), e)
    return tuple(first_written.values())


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
