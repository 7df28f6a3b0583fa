"""How a new fact relates to a stored one, by their fact keys (the ``rules`` judge).

A fact key is ``{kind, holder, subject, value, polarity, temporary, correction}``: ``holder``
is who the fact is about ("user", "用户的儿子", "the user's manager priya"); ``subject`` is the
attribute of a single-valued kind (name, address, residence, schedule of an activity, "my X
is Y") or the object of a many-valued kind (a preference, an allergy, a possession, an event);
``polarity`` is +1 asserted / -1 denied. The relation:

* different holders, or kinds that cannot compare -> ``unrelated`` (an unrecognised
  ``statement`` compares with a many-valued kind when their subjects match: "我有一辆车" /
  "我已经没有车了");
* the new fact is temporary ("this week", 最近) and the stored one lasting, of the same kind
  -> ``supplements`` (the lasting fact is kept; the temporary one carries ``valid_until``);
* a form of address next to a name -> ``supplements`` (the name stays);
* single-valued: same value and polarity -> ``duplicate``; a different asserted value, or the
  same value denied -> ``contradicts``;
* many-valued: same object -> ``duplicate`` (same polarity) or ``contradicts`` (opposite);
  one object contains the other (猫 / 猫头鹰, tea / tea ceremonies in Kyoto) -> ``supplements``
  (both kept), unless the new fact denies the more general one ("I eat meat" / "I don't eat
  meat anymore" -> ``contradicts``); otherwise ``unrelated``.

Subjects are compared without edge discourse words ("after all", "anymore", "now", 其实, 了).
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from memory_engine.llm.rules_numbers import NUMBER_WORDS
from memory_engine.llm.rules_patterns import diet_subject
from memory_engine.llm.rules_roles import ROLE_ATTRIBUTES
from memory_engine.llm.rules_slots import (
    MEAT_FREE_DIETS,
    canonical_attribute,
    diet_conflict,
    means_change,
    strip_count,
    time_slot_change,
)
from memory_engine.llm.rules_usage import use_of, use_relation

#: Kinds with one value per holder and subject: a different value contradicts.
SINGLE_VALUED = frozenset(
    {
        "name",
        "address",
        "residence",
        "workplace",
        "origin",
        "occupation",
        "attr",
        "amount",
        "schedule",
        "deadline",
        "tool",
        "plan",
    }
)
#: Kinds compared with each other (an instruction and a preference can be about one thing).
_KIND_GROUPS = ({"preference", "instruction", "habit", "statement", "state"},)


def _norm(value: Any) -> str:
    text = str(value or "").strip().lower()
    text = re.sub(r"[，,。.!！]+|(?<=[\u4e00-\u9fff])的", "", text)
    text = re.sub(r"\s+", " ", text).strip()
    return re.sub(r"(?<=[\u4e00-\u9fff]) | (?=[\u4e00-\u9fff])", "", text)


#: Discourse words around a subject that do not change what it is ("shellfish after all",
#: "now", 其实…了): dropped before subjects are compared or keyed.
_SUBJECT_EDGE_RE = re.compile(
    r"^(?:(?:now|actually|really|still|just|also|currently|gave up|given up|giving up|stopped|"
    r"quit|started|starting|began|start)(?: on)?\s+)+|"
    r"(?:\s+(?:after all|anymore|any more|any longer|at all|either|too|now|these days|"
    r"actually|really|though|as well))+$|"
    r"^(?:其实|现在|目前|已经|还是|也|都|太|怎么|很少|常|再|开始|重新|又)+|(?:了|啦|呢|哦|呀|的|啊)+$"
)

#: A light verb before an object ("看恐怖片", "吃辣", "eat pork", stemmed "drink coffee"):
#: subjects that differ only by it are one subject.
_LIGHT_VERB_RE = re.compile(
    r"^(?:看|听|吃|喝|玩|用|做|学|弹|打|读)(?=[\u4e00-\u9fff]{2})|"
    r"^(?:eat|drink|play|watch|listen to|read|use|do)\s+(?=[a-z])"
)
#: Words that say a fact adds to what is stored ("I also run in the evening", 也, 还).
_ADDS_RE = re.compile(r"\b(?:too|also|as well)\b|也|还(?!是)", re.I)
#: A calendar date the extractor resolved ("今天" -> "用户2026-12-02坐地铁上班"): a fact holding
#: one is a single occurrence, not a routine.
_DATED_RE = re.compile(r"(?<!\d)\d{4}-\d{2}-\d{2}(?!\d)")

#: The catch-all kind of a clause no pattern recognised: compared by subject with any kind.
GENERIC_KIND = "statement"


def _subject(value: Any) -> str:
    """A subject normalised for comparison: ``_norm`` without edge discourse words, English
    words stemmed ("smoking" / "smokes" / "smoke" -> "smok")."""
    text = _norm(value)
    previous = None
    while previous != text:
        previous, text = text, _SUBJECT_EDGE_RE.sub("", text).strip()
    text = strip_count(text)  # "有三只猫" / "猫": one object, the count is its value
    return text if re.search(r"[\u4e00-\u9fff]", text) else _STEM_RE.sub("", text)


#: English inflections dropped from each word of a subject (a stem of 3+ letters stays).
_STEM_RE = re.compile(r"(?<=[a-z]{3})(?:ing|ed|es|e|s)\b")


def _same_kind(a: Any, b: Any) -> bool:
    return a == b or any({a, b} <= group for group in _KIND_GROUPS)


def _comparable(new: dict[str, Any], old: dict[str, Any]) -> bool:
    """Same kind (or kind group), or one unrecognised statement about the very same subject."""
    if _same_kind(new.get("kind"), old.get("kind")):
        return True
    kinds = {new.get("kind"), old.get("kind")}
    if GENERIC_KIND not in kinds or kinds & SINGLE_VALUED:
        return False
    a, b = _subject(new.get("subject")), _subject(old.get("subject"))
    return bool(a and b) and (a == b or _contains(a, b))


_ZH_DIGITS = {c: i for i, c in enumerate("零一二三四五六七八九十")} | {"两": 2}
_COUNT_RE = re.compile(
    r"\b(\d+|zero|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)\s+[a-z]+|"
    r"(\d+|[一二两三四五六七八九十])(?:个|只|条|辆|套|台|本|位|口|家|匹|头|间|部)",
    re.I,
)


def _count(content: Any) -> int | None:
    """How many of a thing a fact's content says ("two cats" -> 2, "三只猫" -> 3), or None."""
    m = _COUNT_RE.search(str(content or ""))
    if not m:
        return None
    word = (m.group(1) or m.group(2)).lower()
    if word.isdigit():
        return int(word)
    return NUMBER_WORDS.get(word, _ZH_DIGITS.get(word))


def _contains(a: str, b: str) -> bool:
    """True when one of ``a``, ``b`` holds the other (whole words for Latin text)."""
    if not a or not b or a == b:
        return False
    short, long = sorted((a, b), key=len)
    if re.search(r"[\u4e00-\u9fff]", short):
        return short in long
    stem = re.sub(r"(?<=[a-z]{3})(?:es|s)$", "", short)  # bears / bearded dragons
    return bool(re.search(rf"(?<![a-z]){re.escape(stem)}", long))


def _free_of(long: str, short: str) -> bool:
    """True when subject ``long`` names a thing without ``short`` ("alcohol-free beer",
    "meatless burgers", "non-alcoholic beer", 无酒精啤酒, 不含猪肉的香肠, 去咖啡因咖啡); both as
    :func:`_subject` returns them (Latin text stemmed)."""
    if re.search(r"[\u4e00-\u9fff]", short):
        return re.search(rf"(?:无|不含|零|脱|去){re.escape(short)}", long) is not None
    stem = re.escape(re.sub(r"(?<=[a-z]{3})(?:es|s)$", "", short))
    return (
        re.search(rf"(?<![a-z]){stem}[a-z]*[- ]?(?:free|fre|less|les)\b", long) is not None
        or re.search(rf"\b(?:non|no|un)-?{stem}", long) is not None
    )


def _overlap(a: str, b: str) -> bool:
    """True when two subjects share a word of 2+ Chinese characters or 4+ Latin letters."""
    if re.search(r"[\u4e00-\u9fff]", a + b):
        return any(
            a[i : i + 2] in b
            for i in range(len(a) - 1)
            if re.match(r"[\u4e00-\u9fff]{2}", a[i : i + 2])
        )
    words = {w for w in re.findall(r"[a-z]{4,}", a)} - {"with", "from", "that", "this", "about"}
    return any(re.search(rf"\b{re.escape(w)}", b) for w in words)


def _as_role(key: dict[str, Any]) -> dict[str, Any]:
    """``key`` read as an occupation when it is an attribute naming the role ("我的职位是…",
    "my job title is …", recorded before roles were read as such); else as it is."""
    if key.get("kind") == "attr" and _norm(key.get("subject")) in ROLE_ATTRIBUTES:
        return {**key, "kind": "occupation", "subject": "occupation"}
    return key


#: "新" or "我的" before a Chinese attribute ("新工位", "我的工位"): the same attribute.
_NEW_ZH_RE = re.compile(r"^(?:我们|我|用户)?(?:新(?=[\u4e00-\u9fff]{2}))?")


def _shape(value: Any) -> str:
    """What a value is written as: ``number`` (it opens with 5+ digits and separators: a phone
    number, "415-555-0132 if you need it"), ``email``, else ``text`` (or ``none``)."""
    text = str(value or "")
    if not text:
        return "none"
    if "@" in text:
        return "email"
    return "number" if re.match(r"\+?\(?\d[\d\s().-]{3,}\d(?:\s|$)", text) else "text"


def _as_diet(key: dict[str, Any]) -> dict[str, Any]:
    """``key`` read as a diet when it is a liking of a diet ("我不吃素了" read as a preference
    of 素): the same subject as "我吃素" / "I'm vegetarian" (``rules_patterns.diet_subject``)."""
    if key.get("kind") == "preference":
        diet = diet_subject(_norm(key.get("subject")))
        if diet in MEAT_FREE_DIETS:
            return {**key, "kind": "diet", "subject": diet}
    return key


def _comparable_key(key: dict[str, Any]) -> dict[str, Any]:
    """``key`` with a role attribute read as the occupation and a diet liking as the diet."""
    return _as_diet(_as_role(key))


def key_terms(key: dict[str, Any]) -> list[str]:
    """Keyword terms that find stored facts on the same holder and subject (and kind), so the
    judge sees them even when their embeddings are far apart. Empty for an unkeyed fact."""
    if not key.get("kind"):
        return []
    key = _comparable_key(key)
    holder = _norm(key.get("holder") or "user")
    kind = str(key["kind"])
    group = next((sorted(g)[0] for g in _KIND_GROUPS if kind in g), kind)
    subject = _subject(key.get("subject"))
    out = [_term(f"{holder}|{group}")]
    if subject:
        # the same subject under any kind ("我有一辆车" / "我已经没有车了" read as a statement)
        out[:0] = [_term(f"{holder}|{group}|{subject}"), _term(f"{holder}|*|{subject}")]
    if kind == "schedule":  # a changed plan may correct a routine ("每周三下午健身")
        out.append(_term(f"{holder}|habit"))
    use = use_of(key)
    if use is not None:  # "I switched to Cursor" finds "I use VS Code as my editor"
        out.append(_term(f"{holder}|uses|{use[0]}"))
    return out


def _term(text: str) -> str:
    return "fk" + hashlib.sha1(text.encode("utf-8")).hexdigest()[:16]


def relation(new: dict[str, Any], old: dict[str, Any] | None) -> tuple[str, str]:
    """(relation, reason) of a new fact key to a stored one (see module docstring)."""
    if not old or not old.get("kind") or not new.get("kind"):
        return "unrelated", "no recognised fact to compare"
    new, old = _comparable_key(new), _comparable_key(old)
    if _norm(new.get("holder") or "user") != _norm(old.get("holder") or "user"):
        return "unrelated", "about someone else"
    kind = str(new.get("kind"))
    used = use_relation(new, old)
    if used is not None:
        return used
    if {kind, old.get("kind")} == {"name", "address"}:
        return "supplements", "a form of address next to the name, both kept"
    if {kind, old.get("kind")} == {"schedule", "habit"}:
        act = re.sub(
            r"(?:时间|time|schedule)$",
            "",
            _norm(new.get("subject") if kind == "schedule" else old.get("subject")),
        )
        other = _norm(old.get("subject") if kind == "schedule" else new.get("subject"))
        if act and act in other:
            if kind == "schedule" and (new.get("correction") or new.get("moved")):
                return "contradicts", "the routine moved to another time"
            return "supplements", "the routine and its time"
    if (
        kind == "schedule"
        and old.get("kind") == "event"
        and (new.get("correction") or new.get("moved"))
    ):
        act, other = _subject(new.get("subject")), _subject(old.get("subject"))
        if act and (act == other or _contains(act, other)):
            return "contradicts", "the planned event moved"  # "下周三体检" / "体检改到下周五"
    a, b = _subject(new.get("subject")), _subject(old.get("subject"))
    if a != b and _LIGHT_VERB_RE.sub("", a) == _LIGHT_VERB_RE.sub("", b):
        a = b  # "看恐怖片" / "恐怖片": the same object, with or without its verb
    if diet_conflict(new, old, _LIGHT_VERB_RE.sub("", a), _LIGHT_VERB_RE.sub("", b)):
        return "contradicts", "eating meat against a meat-free diet"  # 素食者 / 现在吃肉了
    if not _comparable(new, old):
        return "unrelated", "different kind of fact"
    same_polarity = int(new.get("polarity", 1)) == int(old.get("polarity", 1))
    if kind == "event" and old.get("kind") == "event" and a == b and a:
        if _norm(new.get("content")) and _norm(new.get("content")) == _norm(old.get("content")):
            return "duplicate", "same event"
        if new.get("correction") or new.get("moved"):
            return "contradicts", "the event moved"
        return "supplements", "another event of the same kind"
    if kind in SINGLE_VALUED:
        same_subject = (
            a == b
            or _NEW_ZH_RE.sub("", a) == _NEW_ZH_RE.sub("", b)  # "工位" / "新工位"
            or (kind == "schedule" and _contains(a, b))
            or (kind == "attr" and new.get("correction") and bool(a) and b.endswith(a))
            or (
                kind == "attr"
                and canonical_attribute(_norm(new.get("subject")))
                == canonical_attribute(_norm(old.get("subject")))
            )
        )  # "my new number" replaces "my phone number", 新号码 replaces 电话
        if not same_subject and not (new.get("correction") and not a):
            return "unrelated", "different attribute"
        shapes = {_shape(new.get("value")), _shape(old.get("value"))}
        if kind == "attr" and len(shapes) == 2 and "none" not in shapes:
            return "unrelated", "another kind of value"  # 手机号 13800001111 / 新手机是华为
        if new.get("temporary") and not old.get("temporary"):
            return "supplements", "temporary state next to a lasting fact"
        if (
            not _norm(new.get("value"))
            and not _norm(old.get("value"))
            and (_norm(new.get("content")) != _norm(old.get("content")))
        ):  # no value read on either side: the wording tells
            if new.get("correction") or new.get("moved"):
                return "contradicts", f"{kind} changed"
            return "supplements", f"more about the {kind}"
        if _norm(new.get("value")) == _norm(old.get("value")):
            if same_polarity:
                return "duplicate", "same value"
            return (
                "contradicts",
                f"{kind} {'denied' if int(new.get('polarity', 1)) < 0 else 'asserted again'}",
            )
        if int(new.get("polarity", 1)) < 0:
            return "unrelated", "denies another value"
        return "contradicts", f"{kind} changed"
    if (
        a != b
        and same_polarity
        and (time_slot_change(a, b) or means_change(a, b))
        and not _ADDS_RE.search(str(new.get("content") or ""))
        and not (new.get("temporary") and not old.get("temporary"))
        # one dated occurrence ("今天我坐地铁上班") leaves the routine ("每天开车上班")
        and not (
            _DATED_RE.search(str(new.get("content") or ""))
            and not _DATED_RE.search(str(old.get("content") or ""))
        )
    ):
        return "contradicts", "the same routine at another time or by other means"  # 早上/晚上跑步
    if a == b and a:
        if new.get("temporary") and not old.get("temporary"):
            return "supplements", "temporary state next to a lasting fact"
        counts = _count(new.get("content")), _count(old.get("content"))
        if same_polarity and None not in counts and counts[0] != counts[1]:
            return "contradicts", "the count changed"  # "two cats" -> "three cats now"
        if same_polarity:
            return "duplicate", "same subject and polarity"
        if old.get("temporary") and not new.get("temporary"):
            return "supplements", "stored state was temporary"
        return "contradicts", "opposite polarity on the same subject"
    if _contains(a, b):
        if new.get("temporary") and not old.get("temporary"):  # "最近在减肥不吃甜的"
            return "supplements", "temporary state next to a lasting fact"
        if not same_polarity and int(new.get("polarity", 1)) < 0 and len(a) < len(b):
            return "contradicts", "denies the whole of what was stored"
        if (
            not same_polarity
            and int(new.get("polarity", 1)) > 0
            and len(a) > len(b)
            and not _free_of(a, b)
        ):
            # "I don't drink alcohol" / "I drink alcohol now, mostly wine" (but not
            # "alcohol-free beer", 无糖饼干: a thing without what was denied)
            return "contradicts", "asserts a case of what was denied"
        return "supplements", "more specific or more general, both kept"
    if same_polarity and _overlap(a, b):
        return "supplements", "about the same thing, both kept"
    if new.get("temporary") and not old.get("temporary"):
        return "supplements", "temporary state next to a lasting fact of the same kind"
    return "unrelated", "different subject"
