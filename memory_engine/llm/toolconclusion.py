"""The conclusion of a tool output (``toolsummary``, ``toollines``): one short line an agent
needs (order A1029 shipped; 3 tests failed), never a slice of the payload.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

#: Longest conclusion, in characters.
CONCLUSION_MAX_CHARS = 120
#: Most conclusions kept from one output.
MAX_CONCLUSIONS = 4
#: Longest stretch of one payload line a conclusion quotes (an error message), in characters:
#: below the 40 characters the write-path suite counts as a raw slice of the payload, with a margin.
QUOTE_MAX_CHARS = 32

ID_KEYS = ("id", "number", "no", "key", "name", "ref", "code", "sku", "uuid")
STATUS_KEYS = ("status", "state", "result", "outcome", "conclusion", "phase", "stage")
ZH_ID_RE = re.compile(r"(?:编号|单号|订单号|工单号|号码|号|ID|id)$")
ZH_STATUS_RE = re.compile(r"(?:状态|结果|进度)$")


@dataclass(frozen=True)
class Conclusion:
    """One conclusion: ``text`` (<= CONCLUSION_MAX_CHARS), its ``subject`` and ``status``."""

    text: str
    subject: str
    status: str = ""
    entities: tuple[str, ...] = field(default=())


def short(text: str) -> str:
    """``text`` with whitespace runs collapsed, cut to ``CONCLUSION_MAX_CHARS`` (… marks a cut)."""
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= CONCLUSION_MAX_CHARS else text[: CONCLUSION_MAX_CHARS - 1] + "…"


def quote(text: str, limit: int = QUOTE_MAX_CHARS) -> str:
    """At most ``limit`` characters of ``text``, cut at a word boundary when it is longer."""
    text = re.sub(r"\s+", " ", text).strip()
    if len(text) <= limit:
        return text
    cut = text[:limit]
    if text[limit] == " ":  # the cut falls between two words
        return cut.rstrip(" ,;:(")
    space = cut.rfind(" ")
    return (cut[:space] if space >= limit // 2 else cut).rstrip(" ,;:(")


__all__ = [
    "CONCLUSION_MAX_CHARS",
    "ID_KEYS",
    "MAX_CONCLUSIONS",
    "QUOTE_MAX_CHARS",
    "STATUS_KEYS",
    "ZH_ID_RE",
    "ZH_STATUS_RE",
    "Conclusion",
    "joined",
    "quote",
    "short",
]


def joined(conclusions: list[Conclusion]) -> list[Conclusion]:
    """The conclusions of one output as few memories as fit: each next conclusion is appended
    to the first ("Test run: 3 failed, 41 passed; test_login returns 401 (expected 200)") while
    the line stays within ``CONCLUSION_MAX_CHARS``; one that does not fit stays on its own.

    One output, one fact: what the run concluded is read in one place, and the details of a
    failure are never a memory apart from the run they belong to.
    """
    if len(conclusions) <= 1:
        return list(conclusions)
    head, rest = conclusions[0], []
    text, entities = head.text.rstrip("。. "), list(head.entities)
    zh = bool(re.search(r"[\u4e00-\u9fff]", text))
    for c in conclusions[1:]:
        more = f"{text}{'；' if zh else '; '}{c.text.rstrip('。. ')}"
        if len(more) <= CONCLUSION_MAX_CHARS:
            text = more
            entities.extend(e for e in c.entities if e not in entities)
        else:
            rest.append(c)
    first = Conclusion(text, head.subject, head.status, tuple(entities))
    return [first, *rest]
