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
from typing import Any
from zoneinfo import ZoneInfo

from memory_engine.llm import rules_facts
from memory_engine.llm.base import ExtractInput, JudgeCandidate
from memory_engine.llm.reasons import SkipReason, tagged
from memory_engine.llm.rules_acts import (
    INSTRUCTION_RE,
    QUESTION_RE,
    REQUEST_RE,
    TEMPORARY_RE,
    is_task,
)
from memory_engine.llm.rules_clauses import (
    CORRECTION_RE,
    Holder,
    holder_of,
    propositions,
    restate_change,
)
from memory_engine.llm.rules_compose import build_fact, extend, merge_pair, merges
from memory_engine.llm.rules_content import tool_fact
from memory_engine.llm.rules_continuation import (
    continues,
    substituted,
    without_denied,
)
from memory_engine.llm.rules_fragments import detail_clause, said_again, without_said_before
from memory_engine.llm.rules_judge import SINGLE_VALUED
from memory_engine.llm.rules_judge import relation as key_relation
from memory_engine.llm.rules_patterns import Match
from memory_engine.llm.rules_referents import (
    added_to_holder,
    context_holder,
    known_holder,
    named_holder,
)
from memory_engine.llm.rules_replaced import NOT_THAT_RE, previous_replaced
from memory_engine.llm.rules_replies import SPECIFIC_KINDS, added_item, restored_reply
from memory_engine.llm.rules_sentences import (
    BARE_DENIAL_RE,
    PASSING_KINDS,
    PASSING_RE,
    adds_detail,
    en_subject_dropped,
    is_chitchat,
    names_someone,
    owner_dropped,
    reworded,
    source_sentences,
    split_sentences,
    subject_dropped,
    topic_restored,
    without_announcements,
)
from memory_engine.llm.rules_similar import (
    CHANGE_RE,
    RESTATED_RE,
    contrasted,
    similar_relation,
)
from memory_engine.llm.schemas import (
    Extraction,
    Fact,
    JudgeDecision,
    Judgement,
    LLMCall,
    MergedFact,
)
from memory_engine.llm.toolsummary import parse_rendered, status_lines, summarise
from memory_engine.models import MemorySource

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


#: How a bare detail of the previous fact opens: an adverb of degree or kind ("mostly jazz",
#: "especially Liu Cixin's"), a name said specifically ("Ballard specifically"), a bare copula
#: or 尤其/特别是/主要是 ("是玄凤鹦鹉"); never a pronoun (a remark: "it's 3am here", "它很好").
_DETAIL_OPENING_RE = re.compile(
    r"^(?:(?:oh|and|plus|so)[,!]?\s+)*(?:(?:it's|it is|that's|they're|they are)\s+)?"
    r"(?:mostly|mainly|especially|specifically|particularly|"
    r"primarily|usually|typically|normally|generally)\b|"
    r"^[\w'-]+(?:\s+[\w'-]+){0,2},?\s+(?:specifically|in particular|to be exact)\b|"
    r"^(?:对了|另外)?[，,]?\s*(?:是(?!不是)|尤其(?:是)?|特别是|主要是)(?!般)",
    re.I,
)
#: Facts that hold a list, to which "also X" adds an item (``rules_replies.added_item``).
_LIST_KINDS = frozenset({"allergy", "preference", "dislike", "has", "uses", "diet", "language"})
#: Words that open a continuation as words, not names ("Mostly jazz", "She's a collie").
_OPENER_RE = re.compile(
    r"(?:oh|ah|and|plus|also|btw|so|she|he|it|they|that|this|her|his|its|their|mostly|mainly|"
    r"especially|specifically|usually|typically|normally|generally|primarily|particularly|"
    r"always|only)(?:'s|'re)?\b",
    re.I,
)
#: A reply that only acknowledges ("it's fine", "that's ok"): never a detail to keep.
_SMALL_REMARK_RE = re.compile(
    r"^(?:it|that|this)(?:'s| is)\s+(?:fine|ok|okay|good|great|alright|all right|cool|nothing|"
    r"no problem|not a problem|true)\b|^(?:是的|是啊|是吧|是这样|是挺好|它还行|还行)$",
    re.I,
)


def _kind(found: Match | None) -> str:
    """The kind of a clause's match; "statement" for a plain one or for none."""
    return found.kind if found is not None else "statement"


#: How ``reworded`` says what someone just named is called ("他的称呼是陈总", "he is called
#: Bobby").
_CALLED_RE = re.compile(r"^(?:他|她)的称呼是|^(?:he|she) is called ", re.I)


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
            found_facts = tuple(tool_fact(c, item) for c in conclusions)
            result = Extraction(
                should_remember=True,
                reason=f"tool output: {len(found_facts)} conclusion(s)",
                facts=found_facts,
            )
            return result, self._call("extract", item.text, result, started)
        if tool:  # unstructured tool output: its status lines only, never its text as a fact
            found_facts = tuple(tool_fact(c, item) for c in status_lines(item.text))
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
        if item.context and RESTATED_RE.search(item.text):
            # "陈总就是我老板，之前跟你提过": said to be said again, and nothing new in it
            repeated = said_again(item.text, item.context)
            if repeated is not None and self._says_another_value(item, repeated):
                repeated = None  # "之前说过，我老婆是医生" after "用户的老婆是老师"
            if repeated is not None:
                fact = Fact(content=repeated, key=self.key_of(repeated, None) or {})
                result = Extraction(
                    should_remember=True, reason="matched: said again", facts=(fact,)
                )
                return result, self._call("extract", item.text, result, started)
        # "Miso is 8 like I said": the remark on saying it again is no part of the fact
        item = item.model_copy(update={"text": without_said_before(item.text)})
        swaps = [x for x in (substituted(c, item.text) for c in item.context) if x]
        # of two memories either may be meant ("rent $1,200", "car $400", "no wait, it's 1,500")
        swapped = swaps[0] if len(swaps) == 1 else None
        if swapped:  # "it's Miso, not Mochi" right after "We adopted a cat named Mochi"
            fact = Fact(content=swapped, key=self.key_of(swapped, None) or {})
            result = Extraction(should_remember=True, reason="matched: correction", facts=(fact,))
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
            if (REQUEST_RE.search(sentence) and not INSTRUCTION_RE.search(sentence)) or is_task(
                sentence
            ):
                skips.append(SkipReason.ONE_OFF_REQUEST)
                continue
            start = len(facts)
            passing_when = False  # a skipped remark said when: "这两天下雨，我打车上班"
            skipped_when = False  # a clause before said when ("this week", 最近)
            sentence = topic_restored(sentence)  # "游泳这事，我一般每周三晚上去"
            restated = restate_change(sentence)
            # "我那辆是银色的，不是白色": what holds, without the previous memory's value denied
            said = restated or without_denied(sentence, item.context)
            if said != sentence and _kind(self.analyse(said)) == "statement" != _kind(
                self.analyse(sentence.strip(" ，,。.!！~～"))
            ):
                said = sentence  # "I meant Thursday, not Tuesday": the denial is the pattern
            for clause in [restated] if restated else propositions(said):
                # "记错了，他今年四年级了" after "我儿子上三年级": the previous message's son
                plain = reworded(clause)  # "大家都叫他阿强" -> "他叫阿强": then who 他 is
                referent = holder if holder is not None else context_holder(item.context, plain)
                if referent is None and plain != clause and _CALLED_RE.match(plain):
                    continue  # "everyone calls him Bobby" of nobody known: no one's name
                rewritten, found_holder = holder_of(plain, referent)
                # "Emma moved to Austin" after "The user's sister Emma lives in Denver"
                found_holder = known_holder(item.context, found_holder)
                added = (
                    added_to_holder(item.context, rewritten)
                    if referent is None and found_holder is None and not facts
                    else None
                )
                if added is None and referent is None and found_holder is None:
                    added = named_holder(item.context, rewritten)  # "小林主要写React"
                if added is not None:  # "还对芒果过敏" after the son's peanut allergy
                    rewritten, found_holder = added
                if found_holder is not None:
                    holder = found_holder
                elif re.match(r"^(?:我|I\b|my\b|My\b)", clause):
                    holder = None
                found = self.analyse(rewritten)
                if (found is None or found.kind in PASSING_KINDS) and PASSING_RE.search(
                    rewritten.strip(" ，,。.!！~～")
                ):
                    passing_when = passing_when or bool(TEMPORARY_RE.search(rewritten))
                    continue  # how one feels right now, the weather, a joke: small talk
                if holder is None and (found is None or found.kind == "statement"):
                    # Chinese drops a repeated subject: "我不住在上海了，现在住在深圳"
                    dropped = subject_dropped(rewritten, opens=len(facts) == start)
                    if dropped is not None:
                        rewritten, found = dropped
                    restored = (
                        en_subject_dropped(rewritten) or owner_dropped(rewritten)
                        if found is None
                        else None
                    )
                    reply = None
                    if restored is None and found is None and len(facts) == start:
                        # a reply: "not vegan anymore, I eat eggs now" -> "I'm not vegan anymore"
                        restored = reply = restored_reply(rewritten, item.context)
                    if restored is not None:  # "Learning Rust on the side"
                        again = self.analyse(restored)
                        if reply and again is not None and again.kind not in SPECIFIC_KINDS:
                            again = None  # "not today", "still no reply": no fact
                        if again is not None:
                            rewritten, found = restored, again
                if found is None and found_holder is not None and len(rewritten) >= 4:
                    found = rules_facts.about(rewritten)  # a fact about a third party
                if found is None and names_someone(rewritten):
                    found = rules_facts.about(rewritten)  # "老张说周三下雨就改周四"
                if found is None:
                    if len(facts) > start:  # a continuation ("尤其是水煮鱼")
                        facts[-1] = extend(facts[-1], rewritten, found_holder)
                    # a remark that says when ("The line is closed this week, so I'm cycling")
                    skipped_when = skipped_when or bool(TEMPORARY_RE.search(rewritten))
                    continue
                if len(facts) > start and BARE_DENIAL_RE.match(rewritten):
                    # "戒掉奶茶了，再也不喝了": the denial says the fact before it again
                    facts[-1] = extend(facts[-1], clause.strip(" ，,。.!！~～"), found_holder)
                    continue
                # a single-valued fact after such a remark is lasting ("Work is crazy this
                # week, so I moved to Berlin"); a state or a routine is for that while
                for_a_while = passing_when or (skipped_when and found.kind not in SINGLE_VALUED)
                fact = build_fact(
                    rewritten, found, item, tz, found_holder, sentence, passing_when=for_a_while
                )
                if len(facts) > start and merges(facts[-1], fact):
                    facts[-1] = merge_pair(facts[-1], fact, rewritten, found_holder)
                else:
                    facts.append(fact)
                # "最近在控糖，不喝奶茶": the clauses after a temporary one are for that while
                skipped_when = skipped_when or bool(TEMPORARY_RE.search(rewritten))
            facts[start:] = without_announcements(facts[start:])
            if len(facts) == start and not skips:
                skips.append(SkipReason.NO_FACT)
        facts = list({f.content: f for f in facts}.values())
        if not facts and not tool and item.context and skips == [SkipReason.NO_FACT]:
            repeated = said_again(item.text, item.context)  # "Miso's seven btw" after "Miso is 7"
            if repeated is not None:
                facts = [Fact(content=repeated, key=self.key_of(repeated, None) or {})]
            facts = facts or self._subject_restored(item)  # "还会点韩语" after "我会说英语和日语"
            continued = None if facts else self._continued(item)  # "mostly jazz" after piano
            facts = facts or ([continued] if continued is not None else [])
        if facts:
            kinds = sorted({str(f.key.get("kind") or "statement") for f in facts})
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

    def _says_another_value(self, item: ExtractInput, memory: str) -> bool:
        """True when a fact ``item`` gives without its "like I said" holds another value than
        ``memory`` (``rules_similar.contrasted``)."""
        alone = item.model_copy(update={"text": RESTATED_RE.sub(" ", item.text).strip(" ,，:：")})
        return any(contrasted(f.content, memory) for f in self.extract(alone)[0].facts)

    def _subject_restored(self, item: ExtractInput) -> list[Fact]:
        """The facts of a reply that leaves out its subject (``rules_replies.restored_reply``):
        "还会点韩语" -> 我还会点韩语; after a change remark too ("后来换了，现在用的华为Mate");
        nothing when no such clause opens the message."""
        pieces = re.split(r"(?<=[，,])", item.text.strip(), maxsplit=2)
        for i in range(min(2, len(pieces))):
            rewritten = restored_reply("".join(pieces[i:]), item.context)
            if rewritten is None:
                continue
            if i and not CHANGE_RE.search(pieces[0]):
                return []  # only a change remark may come first ("后来换了，…")
            again = item.model_copy(update={"text": rewritten, "context": ()})
            facts = self.extract(again)[0].facts
            english = rewritten.startswith("I'm ")
            return [f for f in facts if not english or f.key.get("kind") in SPECIFIC_KINDS]
        return []

    def _continued(self, item: ExtractInput) -> Fact | None:
        """The previous message's fact extended by this one when this one only continues it
        ("I play piano" + "mostly jazz stuff" -> "The user plays piano, mostly jazz stuff"),
        or None (not a continuation, or the joined fact would be too long)."""
        opening = item.text.strip()
        added = added_item(opening)  # "also sulfa drugs, same deal"
        # an attribute or a content said without its owner ("型号是拓竹P1S", "there's basil in it")
        detail = None if added is not None else detail_clause(opening)
        if (added or detail) is None and (
            not _DETAIL_OPENING_RE.match(opening) or not continues(item.text)
        ):
            return None  # only a detail ("mostly jazz"), never a remark ("it's 3am here")
        if QUESTION_RE.search(item.text.strip()) or NOT_THAT_RE.search(item.text):
            return None  # a question; a denial or "X, not Y" is no detail to add
        first = added or detail or split_sentences(item.text)[0].strip(" ，,。.!！~～")
        pieces = [p.strip() for p in re.split(r"[，,;；]", first) if p.strip()]
        if any(is_chitchat(p) or _SMALL_REMARK_RE.match(p) for p in pieces):
            return None  # "it's fine, thanks": a reply, not a detail
        previous = item.context[-1]
        base = Fact(content=previous, key=self.key_of(previous, None) or {})
        if added is not None and base.key.get("kind") not in _LIST_KINDS:
            return None  # "also X" adds an item only to a list (allergies, likes, tools)
        joined = extend(base, first, None)
        if joined.content == previous:
            return None
        added = joined.content[len(previous) :]
        head = re.match(r"[,，]\s*(\S+)", added)
        if (
            head
            and first.startswith(head.group(1)[:1].upper() + head.group(1)[1:])
            and not _OPENER_RE.match(head.group(1))
        ):
            # a name opens the continuation ("Ballard specifically"): keep its capital
            start = len(previous) + head.start(1)
            content = joined.content[:start] + first[:1] + joined.content[start + 1 :]
            joined = joined.model_copy(update={"content": content})
        return joined.model_copy(update={"key": self.key_of(joined.content, None) or {}})

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
        said = source_sentences(fact.content, item.text)
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
            if relation == "duplicate" and adds_detail(fact.content, c.content):
                relation, reason = "supplements", "the stored fact with more detail"
            if relation != "unrelated":
                decisions.append(JudgeDecision(candidate=c.index, relation=relation, reason=reason))
        decided = {d.candidate for d in decisions}
        # the previous fact with this message's detail joined ("…herb garden, there's basil")
        decisions += [
            JudgeDecision(
                candidate=c.index,
                relation="supplements",
                reason="the previous fact with more detail",
            )
            for c in candidates
            if c.recent
            and c.index not in decided
            and len(fact.content) > len(c.content)
            and fact.content.startswith(c.content)
        ]
        decided = {d.candidate for d in decisions}
        first = (split_sentences(item.text) or [""])[0].strip()
        if (
            first
            and first[:24] in said  # the fact comes from the opening sentence
            and continues(first)
            and not new_key.get("correction")
            and not CORRECTION_RE.search(said)
            and new_key.get("polarity") != "negative"
        ):
            # "she's a border collie" after "we got a dog": about the previous message's subject
            decisions += [
                JudgeDecision(
                    candidate=c.index,
                    relation="supplements",
                    reason="continues the previous message, both kept",
                )
                for c in candidates
                if c.recent and c.index not in decided and not c.same_write
            ]
        previous = [c for c in candidates if c.recent and not c.same_write]
        if previous and not any(d.relation == "contradicts" for d in decisions):
            replaced = previous_replaced(fact, new_key, previous, item.text, said, self.key_of)
            if replaced is not None:
                decisions = [d for d in decisions if d.candidate != replaced.index]
                decisions.append(
                    JudgeDecision(
                        candidate=replaced.index,
                        relation="contradicts",
                        reason="takes back what the previous message said",
                    )
                )
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
