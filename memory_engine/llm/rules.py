"""``rules``: the offline, deterministic write-decision LLM for common Chinese and English input.

``extract``:

* a structured tool output (JSON, test-runner, HTTP or ``key: value`` summaries;
  ``toolsummary``) becomes its few conclusions, never the payload;
* otherwise greetings, thanks, questions and one-off requests are dropped, each sentence is
  split into propositions (``rules_clauses``), the third party a clause is about is found
  ("用户的儿子", "The user's manager Priya"), and every clause matching a pattern (preferences,
  allergies, names, forms of address, places, occupations, possessions, "my X is Y",
  schedules and changed plans, amounts, deadlines, habits, temporary states, dated events,
  standing instructions) becomes a short third-person fact in the input's language with its
  polarity (``rules_polarity``), relative dates resolved (``timeresolve``).

Each fact carries a ``key`` (kind, holder, subject, value, polarity, temporary, correction)
that ``judge`` compares (``rules_judge``). Every skip has a reason code (``reasons``).
Measured on ``bench/data/extract_cases.jsonl`` by ``bench/extract_eval.py``.
"""

from __future__ import annotations

import re
import time
import unicodedata
from dataclasses import replace
from datetime import timedelta
from typing import Any
from zoneinfo import ZoneInfo

from memory_engine.llm import rules_facts
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.reasons import SkipReason, tagged
from memory_engine.llm.rules_clauses import (
    CORRECTION_RE,
    Holder,
    distil,
    holder_of,
    propositions,
    restate_change,
)
from memory_engine.llm.rules_judge import SINGLE_VALUED
from memory_engine.llm.rules_judge import relation as key_relation
from memory_engine.llm.rules_names import names_in
from memory_engine.llm.rules_patterns import (
    CHITCHAT_RE,
    INSTRUCTION_RE,
    QUESTION_RE,
    REQUEST_RE,
    SENTENCE_RE,
    TEMPORARY_RE,
    Match,
)
from memory_engine.llm.rules_polarity import is_chinese
from memory_engine.llm.rules_similar import similar_relation
from memory_engine.llm.schemas import (
    Extraction,
    Fact,
    JudgeDecision,
    Judgement,
    LLMCall,
    MergedFact,
)
from memory_engine.llm.timeresolve import resolve_relative
from memory_engine.llm.toolsummary import parse_rendered, status_lines, summarise
from memory_engine.models import MemorySource, MemoryType
from memory_engine.text import tokenize

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


_ABBREV_RE = re.compile(r"\b(?:Dr|Mr|Mrs|Ms|Prof|St|Jr|Sr|vs|etc|e\.g|i\.e|No|approx)\.$", re.I)


def split_sentences(text: str) -> list[str]:
    """Sentences of ``text`` (。！？!?；;. and newlines end one; commas and the dot of an
    abbreviation such as "Dr." do not)."""
    out: list[str] = []
    for piece in (s.strip() for s in SENTENCE_RE.split(text) if s and s.strip()):
        if out and _ABBREV_RE.search(out[-1]):
            out[-1] = f"{out[-1]} {piece}"
        else:
            out.append(piece)
    return out


def is_chitchat(text: str) -> bool:
    """True when every clause is a greeting, thanks, acknowledgement or emoji."""
    clauses = [c.strip() for c in re.split(r"[，,。.!！?？~～\s]+", text) if c.strip()]
    return all(CHITCHAT_RE.fullmatch(c) or not re.search(r"\w", c) for c in clauses)


def _subject_dropped(clause: str) -> tuple[str, Match] | None:
    """A Chinese clause without its subject that a first-person pattern recognises when the
    user is put back ("现在住在深圳" -> "我现在住在深圳"), with that match; else None."""
    if not is_chinese(clause) or re.match(r"^(?:我|用户|他|她|它|你)", clause):
        return None
    restored = "我" + clause
    found = rules_facts.analyse(restored)
    if (
        found is not None
        and found.kind == "statement"
        and _TIME_FIRST_RE.match(clause)
        and _TIME_FIRST_RE.sub("", clause).strip("，,。！!～~啊呀吧")[2:]  # 3+ characters of plan
        and not _PASSING_RE.search(clause)
    ):
        # a dated plan said without its subject ("周五晚上和朋友吃火锅"): the user's event
        return restored, replace(found, kind="event", memory_type=MemoryType.EPISODIC)
    if found is not None and found.kind in ("statement", "state") and TEMPORARY_RE.search(clause):
        # a temporary state said without its subject ("这个月在控糖")
        return restored, replace(found, kind="state", tags=("state",))
    if found is None or found.kind in ("statement", "instruction", "event", "state", "about"):
        return None  # only a recognised attribute, preference or plan is put back on the user
    return restored, found


#: A sentence that names the value it replaces ("These days my editor is Emacs, not Vim",
#: "不是X，是Y"): a correction of a single-valued fact, never a temporary state.
_REPLACED_VALUE_RE = re.compile(r",\s*not (?:the )?\w+|不是[^，,。]{1,12}(?:[，,。]|而是|$)", re.I)

#: A clause that is a stopgap ("这两天嗓子疼，先不喝冰的"): temporary when its sentence is.
_STOPGAP_RE = re.compile(r"^(?:我)?(?:就|只好|只能)?先")

#: How one feels or what the weather is right now, a greeting or a joke: small talk, never a
#: fact ("今天好累啊", "我今天有点无聊", "周末愉快", "哈哈笑死我了", "I'm bored", "I'm just curious").
_PASSING_RE = re.compile(
    r"^(?:我|用户|I'm|I am|the user is|that's|this is|it's)?\s*(?:今天|现在|最近|真的|有点|好|很|真|太|"
    r"特别|just|so|really|a bit|a little|kind of|pretty|very|\s)*(?:无聊|累|困|饿|开心|高兴|难过|烦|"
    r"郁闷|愉快|快乐|bored|tired|curious|hungry|sleepy|happy|sad|excited|confused|interesting|"
    r"funny|cool)(?:了|啊|呀|死了|极了)?$|天气(?:真|很|挺|好|不错)|笑死|^(?:明天|周末|下周|今晚)见$|"
    r"怎么样$|^[\u4e00-\u9fff]{0,4}(?:下雨|下雪|刮风|降温|升温|雾霾|台风)(?:了|啦)?$|^(?:that's|that is|it's|this is) (?:so |really |very |pretty )?(?:interesting|funny|cool|"
    r"great|nice|amazing|awesome|fascinating)\b",
    re.I,
)

#: Kinds a passing remark is read as (never a preference, an allergy, a name ...).
_PASSING_KINDS = frozenset({"statement", "state", "event", "about"})

#: A clause that opens with when it happens (周五晚上, 明天, 下周三, 3月5号, 今晚).
_TIME_FIRST_RE = re.compile(
    r"^(?:这|下|上|本)?(?:个)?(?:周|星期|礼拜)[一二三四五六日天末]|^(?:今天|明天|后天|今晚|明晚|明早|"
    r"周末|下周|下个?月|月底|年底)|^\d{1,2}月\d{1,2}[号日]|^\d{1,2}[号日]"
)


#: Key relations the similarity fallback (``rules_similar``) may decide instead: the keys
#: found no common subject, or only a shared word.
_OPEN_RELATIONS = frozenset(
    {
        ("unrelated", "different subject"),
        ("unrelated", "different kind of fact"),
        ("supplements", "about the same thing, both kept"),
        ("supplements", "more specific or more general, both kept"),
    }
)
#: Containment by the keys: the fallback may only find it a duplicate (the longer subject
#: holds no other content word: "got two cats" / "cats", "花生我" / "花生").
_CONTAINMENT = ("supplements", "more specific or more general, both kept")


#: A clause that only announces a change whose new value the next clause gives ("We moved",
#: "My daughter changed schools", "I got rid of the Civic", "Not Berlin anymore").
_ANNOUNCEMENT_RE = re.compile(
    r"^(?:the user(?:'s [\w ]{1,20})?|we|our [\w ]{1,20}|my [\w ]{1,20}|[A-Z][a-z]+)"
    r"(?: has| have| just)? (?:moved|changed [\w ]{1,20}|switched [\w ]{1,20}|got rid of [\w ]{1,30}|"
    r"sold [\w ]{1,30}|left [\w ]{1,30}|(?:has |have )?changed)$|^not [\w ]{1,30}$|"
    r"^(?:用户的?)?[\u4e00-\u9fff]{1,6}(?:搬家|搬|换|改|变|更新)$|"
    r"^(?:用户)?(?:已经)?从[^，,。]{1,10}(?:离职|辞职|毕业|搬走|搬出来|退出|出来)$",
    re.I,
)


def _without_announcements(facts: list[Fact]) -> list[Fact]:
    """The facts of one sentence without those that only announce the change a later fact of
    the sentence states (that fact is marked as a correction)."""
    out: list[Fact] = []
    for i, fact in enumerate(facts):
        later = facts[i + 1 :]
        if later and _ANNOUNCEMENT_RE.match(fact.content.strip()):
            nxt = later[0]
            facts[i + 1] = nxt.model_copy(update={"key": {**nxt.key, "correction": True}})
            continue
        out.append(facts[i])
    return out


def _source_sentences(content: str, text: str) -> str:
    """The sentences of ``text`` a fact came from: those sharing a keyword term with its
    content (all of ``text`` when none does), so a change word of another sentence of the
    same input does not apply to it."""
    terms = set(tokenize(content))
    sentences = split_sentences(text)
    picked = [s for s in sentences if terms & set(tokenize(s))]
    return " ".join(picked) if picked else text


def _names_someone(clause: str) -> bool:
    """True when a clause no pattern read names a person or an organisation and says
    something of them ("老张说周三下雨就改周四", "Priya from Globex called about the invoice")."""
    if is_chinese(clause):
        long_enough = len(clause) >= 6 and not clause.startswith(("不是", "不"))
    else:
        long_enough = len(clause.split()) >= 4 and not re.match(r"(?:not|no)\b", clause, re.I)
    return long_enough and bool(names_in(clause)) and not QUESTION_RE.search(clause)


def _adds_detail(new: str, old: str) -> bool:
    """True when ``new`` is ``old`` followed by another clause ("用户喜欢画画，尤其是水彩画"
    after "用户喜欢画画")."""
    a, b = new.strip().rstrip("。."), old.strip().rstrip("。.")
    rest = a[len(b) :] if a.lower().startswith(b.lower()) else ""
    return bool(re.match(r"^[，,;；]\s*\S{2,}", rest))


class RulesLLM:
    """Deterministic ``WriteLLM`` (no network, no model; tokens always 0)."""

    name = "rules"
    model = "rules-v2"

    # ------------------------------------------------------------------ extract

    def analyse(self, clause: str) -> Match | None:
        """The pattern match of one clause (first person or third), or None."""
        return rules_facts.analyse(clause)

    def extract(self, item: ExtractInput) -> tuple[Extraction, LLMCall]:
        """Evaluate + extract deterministically (see module docstring)."""
        started = time.perf_counter()
        item = item.model_copy(update={"text": unicodedata.normalize("NFKC", item.text)})
        tool = item.source == MemorySource.TOOL_OUTPUT
        conclusions = parse_rendered(item.text) or summarise(item.text, tool_output=tool)
        if conclusions:
            found_facts = tuple(rules_facts.tool_fact(c, item) for c in conclusions)
            result = Extraction(
                should_remember=True,
                reason=f"tool output: {len(found_facts)} conclusion(s)",
                facts=found_facts,
            )
            return result, self._call("extract", item.text, result, started)
        if tool:  # unstructured tool output: its status lines only, never its text as a fact
            found_facts = tuple(rules_facts.tool_fact(c, item) for c in status_lines(item.text))
            if found_facts:
                result = Extraction(
                    should_remember=True,
                    reason=f"tool output: {len(found_facts)} status line(s)",
                    facts=found_facts,
                )
            else:
                result = Extraction(
                    should_remember=False,
                    reason=tagged(
                        SkipReason.TOOL_OUTPUT_UNSTRUCTURED,
                        "tool output with no readable conclusion",
                    ),
                )
            return result, self._call("extract", item.text, result, started)
        if is_chitchat(item.text):
            result = Extraction(
                should_remember=False,
                reason=tagged(SkipReason.SMALL_TALK, "greeting, thanks or small talk"),
            )
            return result, self._call("extract", item.text, result, started)
        tz = ZoneInfo(item.timezone)
        facts: list[Fact] = []
        skips: list[SkipReason] = []
        holder: Holder | None = None
        for sentence in split_sentences(item.text):
            if is_chitchat(sentence):
                continue
            if QUESTION_RE.search(sentence) and not (
                INSTRUCTION_RE.search(sentence) and not re.search(r"[?？]\s*$", sentence)
            ):
                skips.append(SkipReason.QUESTION)
                continue
            if REQUEST_RE.search(sentence) and not INSTRUCTION_RE.search(sentence):
                skips.append(SkipReason.ONE_OFF_REQUEST)
                continue
            start = len(facts)
            passing_when = False  # a skipped remark said when: "这两天下雨，我打车上班"
            restated = restate_change(sentence)
            for clause in [restated] if restated else propositions(sentence):
                rewritten, found_holder = holder_of(clause, holder)
                if found_holder is not None:
                    holder = found_holder
                elif re.match(r"^(?:我|I\b|my\b|My\b)", clause):
                    holder = None
                found = self.analyse(rewritten)
                if (found is None or found.kind in _PASSING_KINDS) and _PASSING_RE.search(
                    rewritten.strip(" ，,。.!！~～")
                ):
                    passing_when = passing_when or bool(TEMPORARY_RE.search(rewritten))
                    continue  # how one feels right now, the weather, a joke: small talk
                if holder is None and (found is None or found.kind == "statement"):
                    # Chinese drops a repeated subject: "我不住在上海了，现在住在深圳"
                    dropped = _subject_dropped(rewritten)
                    if dropped is not None:
                        rewritten, found = dropped
                if found is None and found_holder is not None and len(rewritten) >= 4:
                    found = rules_facts.about(rewritten)  # a fact about a third party
                if found is None and _names_someone(rewritten):
                    found = rules_facts.about(rewritten)  # "老张说周三下雨就改周四"
                if found is None:
                    if len(facts) > start:  # a continuation ("尤其是水煮鱼")
                        facts[-1] = self._extend(facts[-1], rewritten, found_holder)
                    continue
                fact = self._fact(
                    rewritten, found, item, tz, found_holder, sentence, passing_when=passing_when
                )
                if len(facts) > start and self._merges(facts[-1], fact):
                    facts[-1] = self._merge_pair(facts[-1], fact, rewritten, found_holder)
                else:
                    facts.append(fact)
            facts[start:] = _without_announcements(facts[start:])
            if len(facts) == start and not skips:
                skips.append(SkipReason.NO_FACT)
        facts = list({f.content: f for f in facts}.values())
        if facts:
            kinds = sorted({str(f.key.get("kind")) for f in facts})
            result = Extraction(
                should_remember=True, reason="matched: " + ", ".join(kinds), facts=tuple(facts)
            )
        elif tool:
            result = Extraction(
                should_remember=False,
                reason=tagged(
                    SkipReason.TOOL_OUTPUT_UNSTRUCTURED, "tool output with no readable conclusion"
                ),
            )
        else:
            code = skips[0] if skips else SkipReason.NO_FACT
            details = {
                SkipReason.QUESTION: "a question, not a fact",
                SkipReason.ONE_OFF_REQUEST: "a one-off request",
                SkipReason.NO_FACT: "no preference, instruction or personal fact",
            }
            result = Extraction(should_remember=False, reason=tagged(code, details[code]))
        return result, self._call("extract", item.text, result, started)

    def _fact(
        self,
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
        resolved, refs = (
            (clause, []) if recurring else resolve_relative(clause, item.observed_at, tz)
        )
        content = rules_facts.content_of(resolved, found, holder)
        temporary = (
            bool(TEMPORARY_RE.search(clause))
            or passing_when
            or bool(_STOPGAP_RE.match(clause) and TEMPORARY_RE.search(sentence))
        ) and not (found.kind in SINGLE_VALUED and _REPLACED_VALUE_RE.search(sentence))
        valid_from = refs[0].start_utc(tz) if refs else None
        valid_until = None
        if temporary:
            weeks = [r for r in refs if (r.end - r.start).days >= 6]
            valid_until = (
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
            and re.search(r"\d|点|号|\b(?:am|pm|noon)\b", str(found.value or ""), re.I)
            and not re.search(
                r"以后|今后|每|通常|一般|\b(?:every|from now on|always|usually)\b", clause, re.I
            )
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
        correction = bool(CORRECTION_RE.search(sentence))
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
            entities=rules_facts.entities_of(found, holder, clause),
            tags=found.tags + (("temporary",) if temporary else ()),
            valid_from=valid_from,
            valid_until=valid_until,
            key=key,
        )

    @staticmethod
    def _merges(prev: Fact, new: Fact) -> bool:
        """Two clauses of one sentence that make one fact: a form of address or a single-valued
        attribute and the value it replaces ("别叫我老王，叫我王工", "I left Acme, I'm now at
        Umbrella"), or a fact and the instruction that follows from it."""
        a, b = prev.key.get("kind"), new.key.get("kind")
        if a == b and (a == "address" or a in SINGLE_VALUED):
            # "I left Acme, I'm now at Umbrella": the denied value and the one that replaces it
            return prev.key.get("polarity") != new.key.get("polarity")
        return b == "instruction" and a not in ("instruction", None) and len(new.content) <= 30

    def _merge_pair(self, prev: Fact, new: Fact, clause: str, holder: Holder | None) -> Fact:
        if prev.key.get("kind") == new.key.get("kind"):
            pos, neg = (new, prev) if new.key.get("polarity", 1) > 0 else (prev, new)
            if prev.key.get("kind") == "address":
                content = rules_facts.address_pair(pos, neg)
                return pos.model_copy(update={"content": content, "key": pos.key})
            key = {**pos.key, "correction": True}
            if not key.get("subject") and neg.key.get("subject"):
                key["subject"] = neg.key["subject"]  # "五一不去厦门了，改去青岛": still 五一
            joined = self._extend(neg, pos.content, None).content
            content = joined if joined != neg.content else pos.content
            return pos.model_copy(update={"content": content, "key": key})
        return self._extend(prev, clause, holder, tags=new.tags)

    @staticmethod
    def _extend(prev: Fact, clause: str, holder: Holder | None, tags: tuple[str, ...] = ()) -> Fact:
        extra = distil(clause, holder)
        extra = re.sub(r"^(?:用户|The user\b)\s*", "", extra) if extra else extra
        if not extra:
            return prev
        sep = "，" if is_chinese(prev.content) else ", "
        limit = 50 if is_chinese(prev.content) else 120
        joined = (
            prev.content + sep + (extra if is_chinese(extra) else extra[:1].lower() + extra[1:])
        )
        if len(joined) > limit:
            return prev
        return prev.model_copy(
            update={"content": joined, "tags": tuple(dict.fromkeys(prev.tags + tags))}
        )

    # ------------------------------------------------------------------ judge

    def key_of(self, content: str, stored: dict[str, Any] | None) -> dict[str, Any] | None:
        """A stored memory's fact key: its recorded one, else re-derived from content."""
        if stored and stored.get("kind") and "holder" in stored:
            return stored
        rewritten, holder = holder_of(content, None)
        found = self.analyse(rewritten)
        if found is None:
            return dict(stored) if stored and stored.get("kind") else None
        return {
            "kind": found.kind,
            "holder": holder.phrase.lower() if holder else "user",
            "subject": found.subject,
            "polarity": found.polarity,
            "value": found.value,
            "temporary": bool(TEMPORARY_RE.search(content))
            or bool((stored or {}).get("temporary")),
            "content": content,
        }

    def relation(self, new: dict[str, Any], old: dict[str, Any] | None) -> tuple[str, str]:
        """(relation, reason) of a new fact key to a stored one (``rules_judge``)."""
        return key_relation(new, old)

    def judge(
        self, fact: Fact, candidates: list[JudgeCandidate], item: ExtractInput
    ) -> tuple[Judgement, LLMCall]:
        """Relate ``fact`` to each candidate by fact key (see ``rules_judge``)."""
        started = time.perf_counter()
        new_key = self.key_of(fact.content, fact.key) or {}
        said = _source_sentences(fact.content, item.text)
        decisions = []
        for c in candidates:
            old_key = self.key_of(c.content, dict(c.key))
            relation, reason = self.relation(new_key, old_key)
            if (
                new_key.get("kind")
                and old_key
                and not c.same_write  # two facts of one input are two things said
                and (relation, reason) in _OPEN_RELATIONS
            ):
                cosine = c.similarity if c.similarity_ml is None else c.similarity_ml
                fallback = similar_relation(
                    new_key,
                    old_key,
                    new_content=fact.content,
                    old_content=c.content,
                    new_text=said,
                    cosine=cosine,
                )
                if fallback is not None and (
                    (relation, reason) != _CONTAINMENT or fallback[0] == "duplicate"
                ):
                    relation, reason = fallback
            if relation == "duplicate" and _adds_detail(fact.content, c.content):
                relation, reason = "supplements", "the stored fact with more detail"
            if relation != "unrelated":
                decisions.append(JudgeDecision(candidate=c.index, relation=relation, reason=reason))
        if new_key.get("correction") and not new_key.get("subject"):
            # a bare correction ("make it 3pm") replaces the latest plan only
            shown = {c.index: c for c in candidates}
            latest = max(
                (d for d in decisions if d.relation == "contradicts"),
                key=lambda d: shown[d.candidate].observed_at or item.observed_at,
                default=None,
            )
            decisions = [d for d in decisions if d.relation != "contradicts" or d is latest]
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


__all__ = ["RulesLLM", "is_chitchat", "split_sentences"]
