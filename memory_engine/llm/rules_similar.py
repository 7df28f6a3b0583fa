"""The ``rules`` judge's fallback for facts its keys cannot compare: same holder, close meaning
on the multilingual dense leg (``dense_ml``, USE-m3 cosine) and a shared subject word.

The fact keys (``rules_judge``) relate two facts only when a pattern recognised both and their
subjects match. Natural phrasings often escape the patterns ("我换成苹果手机了" after "我用的是
安卓手机", "I switched to running in the evenings" after "I usually run in the mornings"), and
the keys then call them unrelated or complementary. This fallback decides those pairs:

* the new fact is temporary -> no decision (the keys' temporary handling stands);
* same holder is required (the keys' "about someone else" is never overridden), and the two
  contents must share an **anchor**: a content word (``text.tokenize`` terms, English stemmed;
  a single Han character that stands as a word on one side, 狗 in "不养狗" / "养了一条狗"),
  other than predicates and discourse words (喜欢, 现在, like, now, ...), or the new input must
  name a word of the stored fact that the new fact no longer holds ("不是上海，我在南京读研",
  "Not Berlin anymore, I relocated to Munich");
* a fact about a named third party ("Anna is no longer my manager") is never related to one
  about the user or someone else; a liking (preference, diet, allergy) and an attribute
  (residence, workplace, a possession ...) never retire each other ("我其实很喜欢杭州的西湖"
  leaves "我住在杭州");
* opposite polarity on the same object (one fact's content words hold the other's, apart from
  the negation: not "I'm not allergic to shellfish" after "allergic to peanuts"), or on a named
  old value, cosine >= :data:`NEGATION_COSINE` -> ``contradicts``;
* an input that says it corrects (a correction word anywhere, or it opens with "actually",
  "change of plans", 其实, 更正), a shared anchor, cosine >= :data:`CORRECTION_COSINE` ->
  ``contradicts``;
* a change signal (:data:`CHANGE_RE`: 其实, 改成, 换成, 不再, 已经不, 搬到, 现在; actually,
  instead, no longer, anymore, switched, moved, now, ...) in a clause of the new input about
  either fact, a verb that acts on an object acting on a stored word ("I left Acme", never "I
  left my umbrella in Berlin"; "new" as an adjective changes nothing), or a correction word
  anywhere in it (记错了, 不对, scratch that, "35, not 34"); never when the input says it adds
  ("too", 也): cosine >= :data:`CHANGE_COSINE` for an explicit change word,
  :data:`WEAK_CHANGE_COSINE` for a time word alone (现在 / now) -> ``contradicts``;
* no change signal, same polarity, the same content words and cosine >=
  :data:`DUPLICATE_COSINE` -> ``duplicate``;
* the input says it repeats itself (like I said, 之前说过), same polarity, a shared anchor, no
  correction word, cosine >= :data:`RESTATED_COSINE` -> ``duplicate``;
* no change signal, same polarity, a shared anchor and cosine >= :data:`SUPPLEMENT_COSINE` ->
  ``supplements`` (both kept: "日语N2考试" next to "在学日语");
* the input says it adds (also, 也, 另外), same polarity, cosine >= :data:`ADDITIVE_COSINE`
  -> ``supplements``, with or without a shared word;
* otherwise no decision (the keys' answer stands).

Cosines are in [-1, 1]; the candidate's ``similarity_ml`` (the multilingual leg) is used, else
its primary-leg ``similarity``. The caller (``RulesLLM.judge``) asks only about pairs the keys
found unrelated or merely overlapping, never about two facts of the same input; where the keys
found containment ("cats" / "got two cats") only a ``duplicate`` answer replaces theirs. The
change words are looked for in the sentences the new fact came from.
"""

from __future__ import annotations

import re
from typing import Any

from memory_engine.llm.rules_anchors import (
    content_anchors,
    is_han_anchor,
    same_word,
    shared_anchors,
)
from memory_engine.llm.rules_contrast import contrasted
from memory_engine.text import tokenize

#: Cosine from which an opposite-polarity fact on a shared anchor contradicts the stored one.
NEGATION_COSINE = 0.5
#: ... and from which one whose denying clause names only the stored object's words contradicts it
#: ("I'm not on Facebook anymore, deleted my account" / "I'm on Facebook a lot").
SAME_OBJECT_NEGATION_COSINE = 0.42
#: Cosine from which a fact with an explicit change word contradicts the stored one.
CHANGE_COSINE = 0.5
#: Cosine from which a fact sharing an anchor, in an input that says it corrects ("actually",
#: "change of plans", 其实, 更正, "scratch that"), contradicts the stored one.
CORRECTION_COSINE = 0.45
#: How an input that corrects the record opens.
_CORRECTION_LEAD_RE = re.compile(
    r"^(?:其实|实际上|更正|纠正|计划有变|说错了|actually|change of plans?|correction|"
    r"make that|scratch that)",
    re.I,
)
#: Cosine from which a fact with only a time word (现在 / now) contradicts the stored one.
WEAK_CHANGE_COSINE = 0.62
#: Cosine from which a fact that says it switched ("我现在改喝拿铁了", "I've switched to coffee")
#: replaces a stored one of the same kind without a shared word.
SWITCH_COSINE = 0.45
#: Cosine from which a fact sharing an anchor, without a change word, adds to the stored one.
SUPPLEMENT_COSINE = 0.5
#: Words that say the input repeats what was said before ("like I said", "之前说过").
RESTATED_RE = re.compile(
    r"之前说过|前面说过|以前说过|说过了|再说一遍|重申一下|提醒一下|再提醒|(?:之前|以前|前面|上次)提过|"
    r"(?:跟|和|同)你(?:说|讲|提)过|告诉过你|还是那句话|再强调一下|"
    r"\b(?:like I said|as I said|as I mentioned|like I mentioned|I already (?:said|told you|mentioned)|"
    r"I (?:think I |probably )?(?:told you|mentioned (?:this|that|it)?)|as mentioned|"
    r"in case I didn't (?:say|mention)|just a reminder|reminder|remind(?:ing)? you|again|once more)\b",
    re.I,
)
#: "again" closing what was done ("I'm going to Tokyo again", "又去了一次"): the thing happens
#: again, a new event; no memory is said again ("Again, short answers" is one).
DONE_AGAIN_RE = re.compile(
    r"\w\s+again\b(?!\s*[,，:：—-])|又(?:去|来|买|吃|喝|见|搬|换|回|开始|养|报|看|要)", re.I
)
#: Cosine from which a fact sharing an anchor in an input that says it repeats itself is a
#: duplicate of the stored one.
RESTATED_COSINE = 0.45
#: Cosine from which a fact said to add ("Also have a few rosemary plants", "另外鱿鱼也超爱")
#: adds to a stored one of the same polarity without a shared word.
ADDITIVE_COSINE = 0.35
#: Cosine from which a fact with the same content words and polarity is a duplicate.
DUPLICATE_COSINE = 0.8
#: Cosine from which a fact of the same polarity whose content words the stored fact all holds
#: (said again in other words: "嗯 写代码我一直都是vim" / "用户写代码用Vim") is a duplicate.
NOTHING_NEW_COSINE = 0.6
#: Words that add no content when said again (degree, habit and chat fillers).
_FILLER_TERMS = frozenset(
    tokenize(
        "一直 一向 向来 算是 就是 确实 真的 反正 一口 碰 沾 话说 btw fwiw lol totally honestly"
    )
)

#: Explicit change words (a correction, a replacement, a stop, a move), Chinese and English.
CHANGE_RE = re.compile(
    r"其实|实际上|改(?!善|进|革)|换(?!季)|变成|变了|升级到|升级成|(?:瘦|胖|涨|降|升|减|增|长|提)到|不再|再也不|已经不|已经没|不.{0,6}了|"
    r"搬到|搬去|搬家|转到|转去|调到|调去|跳槽|辞职|离职|退出|放弃|戒了|戒掉|卖掉|卖了|停了|取消|"
    r"推迟|提前|延期|挪到|不对|说错|记错|弄错|搞错|口误|准确地说|更正|纠正|不是.{1,12}(?:而是|是)|不是[^，,。]{1,12}(?:[，,。]|$)|新的|新号|"
    r"\b(?:actually|instead|no longer|anymore|any more|any longer|not any|switched|switching|"
    r"changed|changing|moved|moving|relocated|relocating|replaced|transferred|transferring|gave up|given up|giving up|"
    r"stopped|quit|left|sold|got rid of|upgraded|upgrading|downgraded|traded in|cut out|cancell?ed|postponed|pushed|rescheduled|scratch that|"
    r"correction|I meant|I misspoke|my mistake|to be (?:precise|exact)|turns out|used to|not .{1,30} but|no more|new)\b|(?:^|[,;.]\s*)not \w+(?: \w+)?[,;]",
    re.I,
)
#: A time word alone ("现在住在深圳", "now at Umbrella"): a weaker change signal.
WEAK_CHANGE_RE = re.compile(
    r"现在|如今|目前|这些年|\b(?:now|nowadays|these days|currently)\b", re.I
)

#: Terms of change and negation words themselves (a denial adds them to the stored words).
_CHANGE_TERMS = frozenset(
    tokenize("no longer anymore stopped quit gave up given up not 不再 已经不 戒 不 没 再也不 停")
)


def _same_specific_kind(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """True when two fact keys are of one kind that says what they are about (an occupation,
    an age: "attr" with one subject), not plain statements."""
    kind = new.get("kind")
    if kind in (None, "statement", "about") or kind != old.get("kind"):
        return False
    return kind != "attr" or new.get("subject") == old.get("subject")


def names_old_value(new_text: str, new_content: str, old_content: str) -> bool:
    """True when the new input names a content word of the stored fact that the new fact no
    longer holds (the value being corrected: 上海 in "不是上海，我在南京读研")."""
    kept = content_anchors(new_content)
    said = set(tokenize(new_text))
    # a one-character Chinese value too ("我喜欢狗，不是猫" after "用户喜欢猫")
    return any(
        (len(t) > 1 or is_han_anchor(t)) and t in said and t not in kept
        for t in content_anchors(old_content)
    )


#: Words that add to what is stored, never replace it ("I like black tea too", "我也喜欢…").
_ADDITIVE_RE = re.compile(
    r"\b(?:too|as well|also|in addition)\b|也|还(?:有|喜欢|会|在)|另外|补充", re.I
)
#: Change verbs that act on an object: they change the fact only when what they act on is the
#: shared word ("I left Acme" / "I left my umbrella in Berlin"; "我换成苹果手机" / "我换了双鞋").
_OBJECT_VERB_RE = re.compile(
    r"\b(?:left|moved|switched|changed|sold|replaced|got rid of|upgraded)\s+"
    r"(?P<obj>(?:my|a|an|his|her|our|their|the|some)\s+[\w'-]+"
    r"(?:\s+(?!(?:at|in|on|to|from|behind|inside|under|near|by|with|for)\b)[\w'-]+)?)|"
    r"\bnew\s+(?P<noun>[\w'-]+)",
    re.I,
)
#: A place after a left or moved object: the thing was put somewhere, nothing changed.
_PLACED_RE = re.compile(r"\s+(?:at|in|on|behind|inside|under|near|by|with)\b", re.I)
#: A change verb before a bare two-word object ("switched gym shoes", "changed phone cases"):
#: the second word is what changed.
_BARE_OBJECT_RE = re.compile(
    r"\b(?:switched|changed|replaced|upgraded|sold|swapped)\s+(?!(?:to|from|over|back|my|a|an|"
    r"the|our|his|her|their|some|jobs?|careers?|plans?)\b)(?P<mod>[a-z][\w'-]*)\s+"
    r"(?!(?:to|for|from|at|in|on|last|this|next|today|yesterday|recently|again|and|because)\b)"
    r"(?P<head>[a-z][\w'-]*)",
    re.I,
)
#: Words that make a whole sentence a correction, whichever clause they sit in.
_CORRECTED_RE = re.compile(
    r"记错|说错|弄错|搞错|口误|^不对|更正|纠正|准确地说|不是[^，,。]{1,12}[，,]|[，,]\s*不(?:是|叫|在|住)|"
    r"\b(?:scratch that|I misspoke|my mistake|correction|to be (?:precise|exact)|I meant|oops)\b|"
    r",\s*not (?:the |a |an )?[\w.-]+\s*[,.;!]?\s*$|,\s*not (?:the |a |an )?[\w.-]+,",
    re.I,
)
_CLAUSE_SPLIT_RE = re.compile(r"[，,;；。.!！?？]|\s(?:and|but|so)\s", re.I)
#: Kinds of what a holder likes or cannot have, and kinds of who and where they are: one of
#: each never retires the other ("我住在杭州" / "我其实很喜欢杭州的西湖").
_LIKING_KINDS = frozenset({"preference", "diet", "allergy", "health"})
_ATTRIBUTE_KINDS = frozenset(
    {"residence", "workplace", "origin", "name", "address", "attr", "amount", "has"}
)


def _changes_here(new_text: str, stored: set[str], own: set[str]) -> bool:
    """True when a change word (:data:`CHANGE_RE`) of ``new_text`` sits in a clause about the
    new fact (``own`` words) or the stored one (``stored``: the shared anchors and the stored
    fact's words) and, for a verb that acts on an object, acts on a stored word: "I left Acme"
    changes a stored "I work at Acme"; "I left my umbrella in Berlin" and "I bought a new
    apartment in Berlin" change nothing stored. A correction word ("记错了", "scratch that")
    makes the whole input a change."""
    if _CORRECTED_RE.search(new_text):
        return True
    for clause in _CLAUSE_SPLIT_RE.split(new_text):
        if not CHANGE_RE.search(clause) or not set(tokenize(clause)) & (stored | own):
            continue
        for m in _OBJECT_VERB_RE.finditer(clause):
            if _PLACED_RE.match(clause, m.end()):
                continue  # "I left my laptop at home": where a thing is, not a change of it
            if set(tokenize(m.group("obj") or m.group("noun"))) & stored:
                return True
        rest = _OBJECT_VERB_RE.sub(" ", clause)
        for m in _BARE_OBJECT_RE.finditer(rest):
            modifier, head = tokenize(m.group("mod")), tokenize(m.group("head"))
            if set(modifier) & stored and head and not set(head) & stored:
                # "I switched gym shoes": the change is of the shoes, "gym" only qualifies them
                rest = rest.replace(m.group(0), " ")
        if CHANGE_RE.search(rest):
            return True
    return False


#: Words that say the holder replaced one thing by another: a drink, a phone, a job.
_SWITCH_RE = re.compile(
    r"改(?:喝|吃|用|坐|开|骑|玩|听|看|做|学)|换成|换了|改成|改为|转做|转行|改行|"
    r"\b(?:switched to|changed to|moved over to|went back to|gone back to|converted to|"
    r"became an?|have become an?|replaced (?:it|my \w+) with)\b",
    re.I,
)
#: Kinds a switch can replace (what one uses, does or prefers; not where one lives).
_SWITCHABLE_KINDS = frozenset(
    {"preference", "tool", "occupation", "habit", "statement", "state", "instruction"}
)


def _switched(new: dict[str, Any], old: dict[str, Any], new_text: str) -> bool:
    """True when the new input says its holder switched ("改喝", "换成", "switched to",
    "became a"), nothing in it says it adds ("too", 也), and both facts are of a kind a switch
    replaces (:data:`_SWITCHABLE_KINDS`)."""
    kinds = {str(new.get("kind") or ""), str(old.get("kind") or "")}
    return (
        kinds <= _SWITCHABLE_KINDS
        and bool(_SWITCH_RE.search(new_text))
        and not _ADDITIVE_RE.search(new_text)
        and not _CHANGE_FREE_RE.search(new_text)
    )


#: A switch of something else than the fact: clothes, a seat, a channel ("换了件衣服").
_CHANGE_FREE_RE = re.compile(r"换了?(?:件|身|双|个座|个位置|台)|changed (?:clothes|seats)", re.I)


_NAMED_SUBJECT_RE = re.compile(
    r"^(?P<name>[A-Z][a-z]+(?: [A-Z][a-z]+)?) (?:is|was|isn't|wasn't|has|had|hasn't|does|doesn't|"
    r"did|didn't|will|won't|can|can't|\w+s|\w+ed)\b"
)
_NOT_A_NAME = frozenset(
    {"The", "This", "That", "It", "There", "Our", "My", "We", "They", "He", "She"}
)


def _named_subject(content: str) -> str:
    """The named third party a fact's content is about ("Anna is no longer the user's manager"
    -> "anna"), or "" when it is about the user or unnamed."""
    m = _NAMED_SUBJECT_RE.match(content.strip())
    if not m or m.group("name").split()[0] in _NOT_A_NAME:
        return ""
    return m.group("name").lower()


#: Where a denial starts in a fact's content ("the user is not …", "用户不是…").
_NEGATION_AT_RE = re.compile(r"\b(?:not|never|no longer)\b|n't\b|不|没|别", re.I)


def _denies_narrower(new_content: str, old_terms: set[str]) -> bool:
    """True when what the new fact denies (its words from the negation on) holds every stored
    word and more ("用户不是纯素食者" after "用户是素食者", "doesn't like tea with milk" after
    "likes tea"); never for words before the negation ("Honestly the user is not …")."""
    m = _NEGATION_AT_RE.search(new_content)
    if not m or not old_terms:
        return False
    denied = content_anchors(new_content[m.start() :]) - _CHANGE_TERMS
    return old_terms < denied


def similar_relation(
    new: dict[str, Any],
    old: dict[str, Any],
    *,
    new_content: str,
    old_content: str,
    new_text: str,
    cosine: float,
) -> tuple[str, str] | None:
    """The fallback relation of a new fact to a stored one, or None (see module docstring).

    Args:
        new: the new fact's key (``polarity``, ``temporary``, ``holder``).
        old: the stored fact's key (may be ``{}`` when the stored memory has none).
        new_content: the new fact's content; old_content: the stored memory's content.
        new_text: the whole input the new fact was extracted from (its change words).
        cosine: the two contents' cosine on the multilingual leg, in [-1, 1].

    Returns:
        ``("contradicts" | "duplicate", reason)`` or None when the fallback has no opinion.
    """
    if new.get("temporary"):
        return None
    if old and str(new.get("holder") or "user").lower() != str(old.get("holder") or "user").lower():
        return None
    if _named_subject(new_content) != _named_subject(old_content):
        return None  # "Anna is no longer my manager" is of Anna, not of "a sister named Anna"
    anchors = shared_anchors(new_content, old_content)
    named = names_old_value(new_text, new_content, old_content)
    if not anchors and not named:
        if _switched(new, old, new_text) and cosine >= SWITCH_COSINE:
            return "contradicts", f"switched to another one (cosine {cosine:.2f})"
        return _added(new, old, new_text, cosine)
    polarity_new, polarity_old = int(new.get("polarity", 1)), int(old.get("polarity", 1) or 1)
    about = ", ".join(sorted(anchors)) or "the corrected value"
    kinds = {str(new.get("kind") or ""), str(old.get("kind") or "")}
    # a liking and an attribute (a preference, a residence) never retire each other
    may_retire = not (kinds & _LIKING_KINDS and kinds & _ATTRIBUTE_KINDS)
    new_terms, old_terms = content_anchors(new_content), content_anchors(old_content)
    # a denial is of the stored object itself, not of another one next to a shared word
    # ("I'm not allergic to shellfish" leaves "allergic to peanuts"; "Anna is no longer my
    # manager" leaves "a sister named Anna")
    denied_terms = (
        content_anchors(re.split(r"[,，;；]", new_content, maxsplit=1)[0]) - _CHANGE_TERMS
    )
    same_object = bool(new_terms) and (
        new_terms - _CHANGE_TERMS <= old_terms
        or old_terms <= new_terms
        # the clause that denies ("not on Facebook anymore, deleted my account")
        or (
            polarity_new != polarity_old
            and bool(denied_terms)
            and all(any(same_word(t, o) for o in old_terms) for t in denied_terms)
        )
    )
    # denying something more specific leaves the general fact ("我是素食者" / "我不是纯素食者",
    # "I like tea" / "I don't like tea with milk")
    narrower_denial = polarity_new < 0 < polarity_old and _denies_narrower(new_content, old_terms)
    same_object = same_object and not narrower_denial
    if (
        may_retire
        and polarity_new != polarity_old
        and (
            (same_object and cosine >= SAME_OBJECT_NEGATION_COSINE)
            or (named and cosine >= NEGATION_COSINE)
        )
    ):
        return "contradicts", f"opposite polarity on {about} (cosine {cosine:.2f})"
    # a fact said to add ("I like black tea too", 也) never replaces one of the same polarity
    may_replace = may_retire and not _ADDITIVE_RE.search(new_text) and not narrower_denial
    stored = anchors | old_terms
    if (
        may_replace
        and anchors
        and (_CORRECTED_RE.search(new_text) or _CORRECTION_LEAD_RE.match(new_text.strip()))
        and cosine >= CORRECTION_COSINE
    ):
        return "contradicts", f"corrected: {about} (cosine {cosine:.2f})"
    if may_replace and _changes_here(new_text, stored, new_terms) and cosine >= CHANGE_COSINE:
        return "contradicts", f"changed: {about} (cosine {cosine:.2f})"
    # "now" changes a fact only about something besides who holds it, or of the same kind
    # ("Emma is 30 now" leaves "Emma lives in Denver"; "Emma is a nurse now" retires "Emma is
    # a teacher")
    holder_terms = content_anchors(str(new.get("holder") or "user"))
    if (
        may_replace
        and WEAK_CHANGE_RE.search(new_text)
        and (
            anchors - holder_terms
            or _same_specific_kind(new, old)
            or contrasted(new_content, old_content)
        )
        and cosine >= WEAK_CHANGE_COSINE
    ):
        return "contradicts", f"now different: {about} (cosine {cosine:.2f})"
    if (
        polarity_new == polarity_old
        and cosine >= DUPLICATE_COSINE
        and anchors
        and content_anchors(new_content) == content_anchors(old_content)
        and not CHANGE_RE.search(new_text)
    ):
        return "duplicate", f"same content words (cosine {cosine:.2f})"
    added = {t for t in new_terms if not any(same_word(t, o) for o in old_terms)}
    if (
        polarity_new == polarity_old
        and anchors
        and not added - _FILLER_TERMS
        and cosine >= NOTHING_NEW_COSINE
        and not CHANGE_RE.search(new_text)
        and not DONE_AGAIN_RE.search(new_text)
        and not contrasted(new_content, old_content)  # "跑十公里" is news after "跑五公里"
    ):
        return "duplicate", f"nothing new about {about} (cosine {cosine:.2f})"
    if (
        polarity_new == polarity_old
        and anchors
        and RESTATED_RE.search(new_text)
        and not _CORRECTED_RE.search(new_text)
        # no other value said: "我喜欢猫，之前说过" is no 猫头鹰 again
        and not contrasted(new_content, old_content)
        and not DONE_AGAIN_RE.search(new_text)
        and cosine >= RESTATED_COSINE
    ):
        return "duplicate", f"said again: {about} (cosine {cosine:.2f})"
    if polarity_new == polarity_old and anchors and cosine >= SUPPLEMENT_COSINE:
        return "supplements", f"more about {about} (cosine {cosine:.2f})"
    return _added(new, old, new_text, cosine)


def _added(
    new: dict[str, Any], old: dict[str, Any], new_text: str, cosine: float
) -> tuple[str, str] | None:
    """``supplements`` when the input says it adds (also, 也, 另外) to a stored fact of the same
    polarity and close meaning (cosine >= :data:`ADDITIVE_COSINE`), else None."""
    same_polarity = int(new.get("polarity", 1)) == int(old.get("polarity", 1) or 1)
    if same_polarity and _ADDITIVE_RE.search(new_text) and cosine >= ADDITIVE_COSINE:
        return "supplements", f"said to add to it (cosine {cosine:.2f})"
    return None


__all__ = [
    "CHANGE_RE",
    "DONE_AGAIN_RE",
    "WEAK_CHANGE_RE",
    "content_anchors",
    "contrasted",
    "names_old_value",
    "shared_anchors",
    "similar_relation",
]
