"""Scoring of the write-path regression set (``bench/data/write_eval/``, ``bench/write_eval.py``).

Pure functions: a labelled case (``EvalCase``) and what the engine did with its turns
(``CaseRecord``, gathered by ``write/evaluation_run.py``) give one ``CaseScore``;
``summarise`` folds the scores into the report. Matching is by key terms: a term matches a
memory's content when it is a substring after NFKC and case folding (ＡＣＭＥ = acme);
``a|b`` matches either alternative.

Metrics of the report (rates in [0, 1], ``None`` when nothing was counted):

* ``should_remember_accuracy``: written turns (user and tool) where "the write stored or
  reinforced a memory" equals the label ``should_remember``. Assistant turns are not written.
* ``fact_recall``: expected facts for which, right after their turn, some active memory holds
  every key term.
* ``fact_precision``: memories a turn created (action ``create``) that hold every term of some
  expected fact of that same turn, over all memories created. A memory made by a turn with
  nothing to remember counts against precision.
* ``update_decision_accuracy``: labelled turns (``decision``) whose observed decision matches.
  The observed decision of a turn, from the actions its write reports: ``supersede`` if any
  supersede; else ``temporary`` if a created memory is temporary (``valid_until`` set or a
  fact key marked temporary); else ``supplement`` if any supplement, or a create next to a
  duplicate (new detail beside the known fact); else ``duplicate`` if every action is a
  duplicate; else ``create``; ``none`` without actions.
* ``polarity_errors``: count of (a) expected negative facts whose matching active memories all
  read affirmative (stored with the opposite polarity) and (b) ``forbidden`` entries marked
  ``affirmative`` found in an affirmative active memory (the negated value left active). A
  memory reads negative when its fact key has polarity -1 or its content has a negation cue
  (``NEGATION_RE``: 不/没/别/无/未/戒/拒绝/讨厌/避免, not/no/never/n't/no longer/anymore/
  without/quit/stopped/avoid/dislike/hate/-free).
* ``forbidden_active``: every ``forbidden`` entry found in an active memory after its turn
  (corrected values left active, a third party's fact stored as the user's, and (b) above).
* ``raw_tool_output_stored``: tool turns for which some memory of the case (any status) holds a
  verbatim slice of the payload of at least ``RAW_SLICE_CHARS`` characters (whitespace runs
  collapsed), or the whole payload when it is shorter.
* ``distilled_fact_share``: created memories that are third person (no 我 in Chinese; no
  I/I'm/my/me/mine/myself in English) and at most 50 characters (content with CJK) or 120
  characters (otherwise).
* ``memory_type_accuracy``, ``importance_ok``, ``temporary_ok``: over recalled facts with that
  label: some matching memory has the expected type / importance >= ``min_importance`` / is
  temporary.
* ``entity_linking_accuracy``: entities a case expects in two or more turns whose memories
  (those the turns created) share one linked entity; ``None`` with ``entity_linking_note``
  when the engine exposes no entity links. ``entity_mention_recall``: expected entity names
  found (normalised, containment either way) in the ``entities`` of an active memory after the
  turn.

A case fails (``failing_cases``) on any should-remember miss, recall or precision miss, wrong
decision, polarity error, forbidden term left active or raw tool output stored.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from memory_engine.errors import InvalidInputError

#: Shortest verbatim slice of a tool payload that counts as the raw output stored.
RAW_SLICE_CHARS = 40

#: Longest distilled fact, in characters: content with CJK characters / any other content.
ZH_FACT_MAX_CHARS = 50
EN_FACT_MAX_CHARS = 120

#: The update decisions a turn can be labelled with.
DECISIONS = ("duplicate", "supplement", "supersede", "temporary")

NEGATION_RE = re.compile(
    r"[不没别无未戒]|拒绝|讨厌|避免"
    r"|\b(?:not|no|never|none|nothing|neither|nor|without|cannot|no longer|anymore|any more"
    r"|quit|quits|stopped|avoids?|dislikes?|hates?|refuses?)\b|n't\b|-free\b",
    re.IGNORECASE,
)
_CJK_RE = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
_FIRST_PERSON_I = re.compile(r"\bI(?:'m|'ve|'d|'ll)?\b")
_FIRST_PERSON_EN = re.compile(r"\b(?:my|me|mine|myself)\b", re.IGNORECASE)
_WS_RE = re.compile(r"\s+")
_ENTITY_DROP_RE = re.compile(r"[\s\W_]+", re.UNICODE)


def norm(text: str) -> str:
    """NFKC and case folded: the form every term match compares."""
    return unicodedata.normalize("NFKC", text).casefold()


def has_term(content: str, term: str) -> bool:
    """True when ``term`` (or one of its ``|`` alternatives) is a substring of ``content``."""
    low = norm(content)
    return any(alt and norm(alt) in low for alt in term.split("|"))


def has_terms(content: str, terms: Sequence[str]) -> bool:
    """True when every term matches ``content`` (see ``has_term``)."""
    return bool(terms) and all(has_term(content, t) for t in terms)


def entity_key(name: str) -> str:
    """A name compared as an entity: NFKC, case folded, whitespace and punctuation dropped."""
    return _ENTITY_DROP_RE.sub("", norm(name))


# ---------------------------------------------------------------------- the labelled cases


@dataclass(frozen=True)
class ExpectedFact:
    """One fact a turn should leave active: every term in one memory's content."""

    terms: tuple[str, ...]
    memory_type: str | None = None
    negative: bool = False
    temporary: bool = False
    min_importance: float | None = None


@dataclass(frozen=True)
class Forbidden:
    """Terms that must not all appear in an active memory; ``affirmative``: only when the
    memory reads affirmative."""

    terms: tuple[str, ...]
    affirmative: bool = False


@dataclass(frozen=True)
class EvalTurn:
    """One turn: ``role`` user/assistant/tool, its text and (not for assistant turns) labels."""

    role: str
    text: str
    tool: str | None = None
    should_remember: bool = False
    facts: tuple[ExpectedFact, ...] = ()
    forbidden: tuple[Forbidden, ...] = ()
    decision: str | None = None
    entities: tuple[str, ...] = ()

    @property
    def written(self) -> bool:
        """Whether the suite writes this turn (assistant turns are skipped)."""
        return self.role != "assistant"


@dataclass(frozen=True)
class EvalCase:
    """One labelled conversation (format: ``bench/data/write_eval/README.md``)."""

    id: str
    lang: str
    split: str
    category: str
    observed_at: str
    turns: tuple[EvalTurn, ...]


def _terms(raw: Any, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw or not all(isinstance(t, str) and t for t in raw):
        raise InvalidInputError(f"{where}: terms must be a non-empty list of strings")
    return tuple(raw)


def parse_case(row: dict[str, Any]) -> EvalCase:
    """One case from its JSON object. Raises InvalidInputError naming the bad field."""
    cid = str(row.get("id") or "?")
    try:
        turns = []
        for i, t in enumerate(row["turns"]):
            where = f"case {cid} turn {i}"
            role = t["role"]
            if role not in ("user", "assistant", "tool"):
                raise InvalidInputError(f"{where}: unknown role {role!r}")
            exp = t.get("expect") or {}
            decision = exp.get("decision")
            if decision is not None and decision not in DECISIONS:
                raise InvalidInputError(f"{where}: unknown decision {decision!r}")
            facts = tuple(
                ExpectedFact(
                    terms=_terms(f.get("terms"), where),
                    memory_type=f.get("memory_type"),
                    negative=f.get("polarity") == "negative",
                    temporary=bool(f.get("temporary")),
                    min_importance=f.get("min_importance"),
                )
                for f in exp.get("facts") or []
            )
            forbidden = tuple(
                Forbidden(_terms(f.get("terms"), where), bool(f.get("affirmative")))
                for f in exp.get("forbidden") or []
            )
            turns.append(
                EvalTurn(
                    role=role,
                    text=str(t["text"]),
                    tool=t.get("tool"),
                    should_remember=bool(exp.get("should_remember", bool(facts))),
                    facts=facts,
                    forbidden=forbidden,
                    decision=decision,
                    entities=tuple(exp.get("entities") or ()),
                )
            )
        return EvalCase(
            id=cid,
            lang=str(row["lang"]),
            split=str(row.get("split") or ""),
            category=str(row["category"]),
            observed_at=str(row["observed_at"]),
            turns=tuple(turns),
        )
    except (KeyError, TypeError, AttributeError) as exc:
        raise InvalidInputError(f"case {cid}: malformed ({exc!r})") from exc


def load_cases(paths: Iterable[Path]) -> list[EvalCase]:
    """Every case of the given JSONL files, in file order. Raises InvalidInputError."""
    out: list[EvalCase] = []
    for path in paths:
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except json.JSONDecodeError as exc:
                    raise InvalidInputError(f"{path.name}:{n}: not JSON ({exc.msg})") from exc
                out.append(parse_case(row))
    return out


# ---------------------------------------------------------------------- what the engine did


@dataclass(frozen=True)
class StoredFact:
    """One memory as the scorer sees it.

    Attributes:
        polarity: the fact key's polarity (+1/-1) when the provider records one, else None.
        temporary: ``valid_until`` is set or the fact key says temporary.
        entity_links: ids of the entities the engine linked the memory to; None when the
            engine exposes no entity links.
    """

    memory_id: str
    content: str
    memory_type: str = "semantic"
    importance: float = 0.5
    status: str = "active"
    polarity: int | None = None
    temporary: bool = False
    entities: tuple[str, ...] = ()
    entity_links: tuple[str, ...] | None = None

    @property
    def reads_negative(self) -> bool:
        """Negative polarity in the fact key, or a negation cue in the content."""
        return self.polarity == -1 or bool(NEGATION_RE.search(norm(self.content)))


@dataclass(frozen=True)
class TurnRecord:
    """What one turn's write did: its actions, the memories it created and the active
    memories right after it (assistant turns: ``written`` False, the rest empty)."""

    written: bool
    remembered: bool = False
    actions: tuple[dict[str, Any], ...] = ()
    created: tuple[StoredFact, ...] = ()
    active_after: tuple[StoredFact, ...] = ()
    error: dict[str, Any] | None = None


@dataclass(frozen=True)
class CaseRecord:
    """The turns' records and every memory of the case's tenant at the end (any status)."""

    case_id: str
    turns: tuple[TurnRecord, ...]
    memories: tuple[StoredFact, ...] = ()
    entity_links_available: bool = False


def observed_decision(record: TurnRecord) -> str:
    """The update decision a turn's actions show (see the module docstring)."""
    kinds = [str(a.get("action")) for a in record.actions]
    if any(k.startswith("supersede") for k in kinds):
        return "supersede"
    if any(m.temporary for m in record.created):
        return "temporary"
    if "supplement" in kinds or ("create" in kinds and "duplicate" in kinds):
        return "supplement"
    if kinds and all(k == "duplicate" for k in kinds):
        return "duplicate"
    return "create" if "create" in kinds else "none"


def is_distilled(content: str) -> bool:
    """Third person and short (see ``ZH_FACT_MAX_CHARS`` / ``EN_FACT_MAX_CHARS``)."""
    if _CJK_RE.search(content):
        return "我" not in content and len(content) <= ZH_FACT_MAX_CHARS
    first = _FIRST_PERSON_I.search(content) or _FIRST_PERSON_EN.search(content)
    return first is None and len(content) <= EN_FACT_MAX_CHARS


def holds_raw_slice(content: str, payload: str, *, slice_chars: int = RAW_SLICE_CHARS) -> bool:
    """True when ``content`` holds a verbatim slice of ``payload`` of ``slice_chars``
    characters (whitespace collapsed), or the whole payload when that is shorter."""
    c, p = _WS_RE.sub(" ", content).strip(), _WS_RE.sub(" ", payload).strip()
    if not c or not p:
        return False
    if len(p) <= slice_chars:
        return p in c
    return any(c[i : i + slice_chars] in p for i in range(0, len(c) - slice_chars + 1))
