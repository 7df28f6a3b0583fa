"""Entity names: the normalised key that makes "ACME", "acme", "ＡＣＭＥ" and "ACME Inc." one
entity, the stable id of an entity of a tenant, and the keyword terms entity names add to a
memory. Pure functions, no I/O; both stores and the write path use them, so a name means the
same entity everywhere.

The key of a name (:func:`entity_key`), in order:

1. NFKC (full-width Latin letters, digits and spaces become half-width; ``㈱`` -> ``(株)``),
   curly apostrophes as ``'``, ``casefold`` (``Straße`` -> ``strasse``);
2. whitespace collapsed to one space and trimmed; spaces between two CJK characters removed
   (``王 工`` -> ``王工``); quotes, brackets and sentence punctuation around the name removed,
   a leading ``@``/``#`` too (``@priya`` -> ``priya``);
3. the dot of a title before a name (``Dr. Ruiz`` -> ``dr ruiz``: dr, mr, mrs, ms, prof, st,
   mt, jr, sr); possessives: a trailing ``'s`` / ``'`` after a letter (``ACME's`` -> ``acme``), a trailing
   ``的`` after a name of two or more characters (``ACME的`` -> ``acme``; ``目的`` stays);
4. a leading ``the `` and company suffixes: ``Inc.``, ``Corp.``, ``Corporation``, ``Co.``,
   ``Company``, ``Ltd.``, ``Limited``, ``LLC``, ``PLC``, ``GmbH``, ``AG``, ``S.A.``, ``Pty``,
   ``Pte`` after a space or comma; ``股份有限公司``, ``有限责任公司``, ``有限公司``,
   ``集团公司``, ``集团``, ``公司``, ``株式会社`` (also leading); each only when a name remains.

Steps 2-4 repeat until nothing changes, so ``entity_key(entity_key(x)) == entity_key(x)``.
A name whose key is empty (only punctuation or spaces) names no entity; a bare suffix stays
itself ("Inc." -> "inc").
Matching is exact on the key; no similarity threshold is involved.
"""

from __future__ import annotations

import re
import unicodedata
import uuid
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from memory_engine.stopwords import is_stopword
from memory_engine.text import is_word, tokenize, word_boundaries

#: Longest display name kept (characters, after trimming); longer names name no entity.
MAX_ENTITY_NAME_CHARS = 200
#: Longest entity kind kept ("person", "organization", ...).
MAX_ENTITY_KIND_CHARS = 32
#: Most entities linked to one memory; names beyond it (after dedupe by key) are not linked.
MAX_ENTITIES_PER_MEMORY = 32

#: Namespace of entity ids (uuid5 of tenant and key).
_ENTITY_NS = uuid.UUID("3b1f6c2a-9e47-5d08-8c3a-6f2e1d0b7a45")

_CJK = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uac00-\ud7af"
_WS_RE = re.compile(r"\s+")
_CJK_GAP_RE = re.compile(rf"(?<=[{_CJK}]) (?=[{_CJK}])")
_EDGE = "&\"'`“”‘’«»‹›「」『』《》〈〉【】()[]{}<>.,;:!?，。；：！？、·…~*_|/\\- "
_POSSESSIVE_RE = re.compile(r"(?<=[^\W\d_])'s?$")
_LEADING_THE_RE = re.compile(r"^the (?=\S)")
_TITLE_DOT_RE = re.compile(r"(?<![^\W_])(dr|mr|ms|st|mt|jr|sr|mrs|prof)\.(?= )")
_EN_SUFFIX_RE = re.compile(
    r"(?<=\S)[ ,]+(?:inc|incorporated|corp|corporation|co|company|ltd|limited|llc|l\.l\.c|plc"
    r"|gmbh|ag|s\.a|pty|pte)\.?$"
)
_ZH_SUFFIXES = ("股份有限公司", "有限责任公司", "有限公司", "集团公司", "集团", "公司", "株式会社")
_JA_PREFIXES = ("株式会社", "(株)")


@dataclass(frozen=True)
class EntityRef:
    """One entity a memory names: its normalised ``key``, the ``name`` as first written
    (whitespace collapsed) and its ``kind`` when known (e.g. "person", "organization")."""

    key: str
    name: str
    kind: str | None = None


def _one_pass(text: str) -> str:
    text = _WS_RE.sub(" ", text).strip()
    text = _CJK_GAP_RE.sub("", text)
    text = text.strip(_EDGE).lstrip("@#").strip(_EDGE)
    text = _POSSESSIVE_RE.sub("", text)
    if text.endswith("的") and len(text) > 2:
        text = text[:-1]
    text = _LEADING_THE_RE.sub("", text)
    text = _TITLE_DOT_RE.sub(r"\1", text)
    text = _EN_SUFFIX_RE.sub("", text)
    for suffix in _ZH_SUFFIXES:
        if text.endswith(suffix) and len(text) > len(suffix):
            text = text[: -len(suffix)]
            break
    for prefix in _JA_PREFIXES:
        if text.startswith(prefix) and len(text) > len(prefix):
            text = text[len(prefix) :]
            break
    return text.strip(_EDGE)


def entity_key(name: str) -> str:
    """The normalised key of an entity name (see the module docstring); "" when none.

    Args:
        name: an entity name in any script and width, e.g. "ＡＣＭＥ Inc." or "用户的儿子".

    Returns:
        The key, e.g. "acme" or "用户的儿子"; "" for a name that names nothing.
    """
    text = unicodedata.normalize("NFKC", name).replace("\u2019", "'").replace("\u2018", "'")
    text = text.casefold()
    for _ in range(8):
        again = _one_pass(text)
        if again == text:
            break
        text = again
    return text


def display_name(name: str) -> str:
    """The name as shown: whitespace collapsed and trimmed, otherwise as written."""
    return _WS_RE.sub(" ", name).strip()


def entity_id(tenant_id: str, key: str) -> uuid.UUID:
    """The stable id of the entity ``key`` of a tenant (uuid5; the same in every store)."""
    return uuid.uuid5(_ENTITY_NS, f"{tenant_id}\x1f{key}")


def entity_refs(names: Iterable[str], kinds: Mapping[str, Any] | None = None) -> list[EntityRef]:
    """The entities ``names`` name, once per key in first-seen order, at most
    :data:`MAX_ENTITIES_PER_MEMORY`; names with an empty key or a display name over
    :data:`MAX_ENTITY_NAME_CHARS` characters are left out.

    Args:
        names: entity names as written.
        kinds: optional name -> kind ("person", "organization", ...; at most
            :data:`MAX_ENTITY_KIND_CHARS` characters, others ignored), looked up by the name
            as written or by its key (``Memory.metadata["entity_kinds"]`` on a memory).
    """
    by_key = {entity_key(str(k)): v for k, v in (kinds or {}).items()}
    out: dict[str, EntityRef] = {}
    for raw in names:
        shown = display_name(str(raw))
        if not shown or len(shown) > MAX_ENTITY_NAME_CHARS:
            continue
        key = entity_key(shown)
        if key and key not in out:
            kind = (kinds or {}).get(str(raw), by_key.get(key))
            ok = isinstance(kind, str) and 0 < len(kind.strip()) <= MAX_ENTITY_KIND_CHARS
            out[key] = EntityRef(key=key, name=shown, kind=kind.strip().lower() if ok else None)
        if len(out) >= MAX_ENTITIES_PER_MEMORY:
            break
    return list(out.values())


def entity_keys(names: Iterable[str]) -> list[str]:
    """The keys of :func:`entity_refs` (distinct, first-seen order)."""
    return [r.key for r in entity_refs(names)]


def entity_terms(names: Iterable[str]) -> list[str]:
    """Keyword terms the entities add to a memory: the terms (``text.tokenize``) of each
    entity's display name and of its key, each distinct term once."""
    terms: dict[str, None] = {}
    for ref in entity_refs(names):
        for term in (*tokenize(ref.name), *tokenize(ref.key)):
            terms.setdefault(term, None)
    return list(terms)


#: Shortest key of a known entity looked for in new text (shorter keys match too much).
MIN_MENTION_KEY_CHARS = 2


#: Single characters after a CJK name that still end the name ("深圳市", "小王们", "华为的"):
#: place and organisation suffixes, plural and possessive particles, verbs of speech.
_CJK_NAME_TAILS = frozenset("市省区县镇村乡路街州港岛山湖河们的家说讲和跟与及等也都")


#: Business words after a Chinese company's name, dropped when the name is looked for in new
#: text ("蓝海那边" mentions 蓝海科技); never places (北京大学 is not 北京).
_ORG_HEAD_RE = re.compile(
    r"(?<=[\u4e00-\u9fff]{2})(?:科技|网络|信息|软件|传媒|实业|贸易|咨询|控股|股份|电子|智能)$"
)


def _cjk_mention(text: str, key: str, bounds: set[int]) -> bool:
    """True when ``key`` occurs in ``text`` as a word of its own: it starts on a word
    boundary (``text.word_boundaries``) and ends on one, or is followed by a name tail
    (:data:`_CJK_NAME_TAILS`) or by a dictionary word ("张伟" in "张伟明天来": 明天). A key
    inside a longer word is no mention ("小王" in "小王子")."""
    start = text.find(key)
    while start >= 0:
        end = start + len(key)
        if start in bounds and (
            end in bounds
            or text[end : end + 1] in _CJK_NAME_TAILS
            or is_word(text[end : end + 2])
            or is_word(text[end : end + 3])
        ):
            return True
        start = text.find(key, start + 1)
    return False


#: What follows an organisation's short name in a clause ("阿里那边", "字节的人", "腾讯公司").
_ORG_CUE_RE = re.compile(r"^(?:那边|这边|方面|那里|的人|的HR|的hr|的同事|公司|集团|团队|总部)")
#: Endings of names whose first two characters are a place, not the organisation (中国银行).
_PLACE_FIRST_RE = re.compile(r"(?:银行|大学|学院|医院|研究院|研究所|政府|局|省|市|区|县)$")


def _abbreviated(text: str, key: str) -> bool:
    """True when ``text`` names the CJK organisation ``key`` (four or more characters) by its
    first two characters followed by an organisation cue: "阿里那边说…" for 阿里巴巴, "字节的人"
    for 字节跳动. Never for a name whose first characters are a place (中国银行)."""
    if len(key) < 4 or _PLACE_FIRST_RE.search(key) or not re.fullmatch(rf"[{_CJK}]+", key):
        return False
    head = key[:2]
    start = text.find(head)
    while start >= 0:
        rest = text[start + 2 :]
        if not rest.startswith(key[2:]) and _ORG_CUE_RE.match(rest):
            return True
        start = text.find(head, start + 1)
    return False


def stands_as_word(text: str, name: str) -> bool:
    """True when the CJK ``name`` occurs in ``text`` as a word of its own (see
    :func:`_cjk_mention`): "小王" in "小王说明天来", not in "我在看小王子"."""
    return bool(name) and name in text and _cjk_mention(text, name, word_boundaries(text))


def _latin_mention(content: str, key: str, name: str) -> bool:
    """True when the Latin ``key`` occurs as whole words of ``content`` (NFKC, not case
    folded), with the capitals a proper name needs when it could be a common word:

    * a one-word name that is an English function word ("Will", "It") matches only as
      written with its capital and not at the start of a sentence ("We will meet" and
      "Will you call?" are no mentions);
    * a one-word name written with a capital and lowercase letters ("Go", "Priya") matches
      only capitalised ("go home" is no mention of Go);
    * any other name (several words, all capitals, all lowercase) matches in any case
      ("dr ruiz" for Dr. Ruiz, "acme" for ACME)."""
    pattern = re.compile(rf"(?<![^\W_]){re.escape(key)}(?![^\W_])", re.IGNORECASE)
    word = name.strip(_EDGE)
    one_word = " " not in key
    function_word = one_word and is_stopword(key)
    proper = one_word and word[:1].isupper() and not word.isupper()
    folded = entity_key(content)
    if not (function_word or proper):
        return pattern.search(folded) is not None
    for hit in pattern.finditer(content):
        found = hit.group(0)
        if not found[:1].isupper():
            continue
        before = content[: hit.start()].rstrip(" \t\"'“‘(")
        starts_sentence = not before or before[-1] in ".!?。！？\n:："
        if function_word and (starts_sentence or found != word):
            continue
        return True
    return False


def mentioned_entities(content: str, known: Iterable[tuple[str, str]]) -> list[str]:
    """Names of known entities that ``content`` mentions, by exact match of the normalised
    key: a CJK key as a word of the normalised content (never inside a longer word: "小王"
    is not in "小王子", :func:`_cjk_mention`), any other key as whole words, with a capital
    when the name could be a common word ("acme" in "Had a call with acme", "ＡＣＭＥ sent it";
    never "acme" in "acmeology", "Go" in "go home" or "Will" in "I will call";
    :func:`_latin_mention`). A CJK organisation of four or more characters is also named by
    its first two followed by an organisation cue ("阿里那边" for 阿里巴巴; :func:`_abbreviated`).

    Args:
        content: the text of a new memory.
        known: (key, display name) of the tenant's entities, e.g. from ``list_entities``.

    Returns:
        Display names of the mentioned entities, in ``known`` order, each once.
    """
    text = entity_key(content) if content else ""
    if not text:
        return []
    original = unicodedata.normalize("NFKC", content).replace("\u2019", "'")
    bounds: set[int] | None = None
    out: list[str] = []
    for key, name in known:
        if len(key) < MIN_MENTION_KEY_CHARS or name in out:
            continue
        if re.search(rf"[{_CJK}]", key):
            short = _ORG_HEAD_RE.sub("", key)  # "蓝海" names the known "蓝海科技"
            forms = [key] + ([short] if len(short) >= 2 and short != key else [])
            if _abbreviated(text, short):  # "阿里那边" names the known "阿里巴巴"
                out.append(name)
                continue
            if not any(f in text for f in forms):
                continue
            if bounds is None:
                bounds = word_boundaries(text)
            hit = any(_cjk_mention(text, f, bounds) for f in forms if f in text)
        else:
            hit = (
                _latin_mention(original, key, name)
                or _joined_mention(text, key)
                or _first_name_mention(original, key, name)
            )
        if hit:
            out.append(name)
    return out


#: Titles that never stand for a person alone ("Dr" of "Dr Ruiz").
_TITLE_WORDS = frozenset({"dr", "mr", "mrs", "ms", "prof", "st", "mt", "jr", "sr", "sir"})


def _joined_mention(folded: str, key: str) -> bool:
    """True when ``folded`` (an ``entity_key`` of the content) writes the Latin ``key`` with
    other spaces, dots or hyphens between its letters: "open ai" for OpenAI, "coca cola" for
    Coca-Cola, "jp morgan" for J.P. Morgan. Keys of fewer than five letters are left out (too
    many short words join into them)."""
    letters = re.sub(r"[\W_]+", "", key)
    if len(letters) < 5 or not letters.isascii():
        return False
    gaps = r"[\s.\-]?".join(re.escape(c) for c in letters)
    return re.search(rf"(?<![^\W_]){gaps}(?![^\W_])", folded) is not None


def _first_name_mention(content: str, key: str, name: str) -> bool:
    """True when ``content`` names the known two-word person ``name`` by the first word alone,
    capitalised as written ("Priya approved it" for Priya Shah), or by the surname after a
    title ("Ruiz moved it" for Dr. Ruiz); never by the title ("Dr") or a function word."""
    words = key.split(" ")
    written = name.strip(_EDGE).split()
    if len(words) != 2 or len(written) != 2 or not all(w.isalpha() and w.isascii() for w in words):
        return False
    first = written[0]
    if words[0] in _TITLE_WORDS:  # "Ruiz moved it" for Dr. Ruiz: the surname after a title
        last = written[1]
        return (
            last[:1].isupper()
            and re.search(rf"(?<![^\W_]){re.escape(last)}(?![^\W_])", content) is not None
        )
    if is_stopword(words[0]) or not first[:1].isupper():
        return False
    if first.isupper() or not written[1][:1].isupper():
        return False  # "AI Labs", "Priya from": not a first name and a surname
    return (
        re.search(rf"(?<![^\W_]){re.escape(first)}(?![^\W_]| {re.escape(written[1])})", content)
        is not None
    )


def memory_terms(content: str, entities: Sequence[str] = ()) -> list[str]:
    """The keyword terms stored with a memory: the content's terms (with repetitions) then
    :func:`entity_terms` of its entities, so the keyword leg finds a memory by the names of
    the entities it is linked to."""
    return [*tokenize(content), *entity_terms(entities)]
