"""PII and secret detection with checksums, and redaction before embedding and storage.

Detected kinds (``PiiKind``):

- ``email``: RFC 5322-ish ``local@domain.tld``.
- ``cn_mobile``: mainland China mobile numbers, ``1[3-9]`` + 9 digits, optional ``+86``/``86``.
- ``phone``: international ``+<country> ...`` numbers and North American ``(555) 123-4567``.
- ``cn_id``: Chinese resident identity numbers (GB 11643-1999: 17 digits + check character,
  ISO 7064 MOD 11-2 checksum, plausible birth date). Only checksum-valid numbers match.
- ``bank_card``: 13-19 digit card numbers (plain, in groups of four, or Amex 4-6-5) that pass the
  Luhn checksum (ISO/IEC 7812-1).
- ``secret``: API keys and tokens with a known shape (OpenAI ``sk-``; Stripe ``sk_live_``/
  ``rk_live_``/``pk_live_`` and their ``_test_`` forms; AWS access key ids ``AKIA``/``ASIA``...
  and 40-character secret access keys; GitHub ``ghp_``/``gho_``/``ghu_``/``ghs_``/``ghr_``/
  ``github_pat_``; Slack ``xox[abprs]-``; Google ``AIza``; JWTs; ``Bearer`` tokens; whole PEM
  private-key blocks, body included) and ``api_key=...``/``password: ...`` style assignments.

Format variants are found too: before matching, a *skeleton* of the text is built with
zero-width and other invisible formatting characters removed, full-width digits and letters
folded (NFKC) and the separators (spaces, dots, dashes, slashes, underscores) between digit
groups dropped when the groups look like a split number (every group of 3+ digits, or every
group one digit); spans found in the skeleton map back to the original text. So
``4111 1111 1111 1111``, ``4111.1111.1111.1111``, ``4111<U+200B>1111...`` and
``110105 19491231 002X`` are found, while ``prices 10 20 30 40`` is not joined into a number.
The checksums (Luhn, GB 11643) still decide.

Detection is pure regex + checksums (no model, no network), deterministic and offline.
"""

from __future__ import annotations

import datetime as dt
import enum
import re
import unicodedata
from dataclasses import dataclass


class PiiKind(enum.StrEnum):
    """Kind of sensitive span."""

    EMAIL = "email"
    CN_MOBILE = "cn_mobile"
    PHONE = "phone"
    CN_ID = "cn_id"
    BANK_CARD = "bank_card"
    SECRET = "secret"


class PiiPolicy(enum.StrEnum):
    """What a tenant does with detected PII: ``off`` (store as is), ``redact``, ``block``."""

    OFF = "off"
    REDACT = "redact"
    BLOCK = "block"


#: The placeholder that replaces each kind on redaction.
PLACEHOLDERS: dict[PiiKind, str] = {
    PiiKind.EMAIL: "[EMAIL]",
    PiiKind.CN_MOBILE: "[PHONE]",
    PiiKind.PHONE: "[PHONE]",
    PiiKind.CN_ID: "[CN_ID]",
    PiiKind.BANK_CARD: "[BANK_CARD]",
    PiiKind.SECRET: "[SECRET]",
}


@dataclass(frozen=True)
class Finding:
    """One detected span: ``text[start:end]`` (character offsets, end exclusive)."""

    kind: PiiKind
    start: int
    end: int
    masked: str  # a preview safe to log and show: first and last characters only

    def to_dict(self) -> dict[str, object]:
        """JSON-safe form (never the raw value)."""
        return {
            "kind": self.kind.value,
            "start": self.start,
            "end": self.end,
            "masked": self.masked,
        }


# Digits must not continue on either side (ASCII or full-width digits, letters for ids).
_NB = r"(?<![0-9A-Za-z０-９])"
_NA = r"(?![0-9A-Za-z０-９])"

_SECRET_PATTERNS = [
    # a whole PEM private-key block (to its END line, or to the end of the text)
    r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----"
    r"(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|[\s\S]*)",
    r"sk-(?:proj-|ant-)?[A-Za-z0-9_\-]{20,}",
    r"(?<![A-Za-z0-9])(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{10,}",
    r"(?<![A-Za-z0-9])(?:AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|APKA|AROA|ASCA)[0-9A-Z]{16}"
    r"(?![0-9A-Za-z])",
    # AWS secret access key: 40 base64 characters mixing upper case, lower case and digits
    r"(?<![A-Za-z0-9/+=])(?=[A-Za-z0-9/+]*[A-Z])(?=[A-Za-z0-9/+]*[a-z])(?=[A-Za-z0-9/+]*[0-9])"
    r"[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
    r"gh[pousr]_[A-Za-z0-9]{30,}",
    r"github_pat_[A-Za-z0-9_]{22,}",
    r"xox[abprs]-[A-Za-z0-9\-]{10,}",
    r"xapp-[A-Za-z0-9\-]{10,}",
    r"AIza[0-9A-Za-z_\-]{35}",
    r"eyJ[A-Za-z0-9_\-]{5,}\.eyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{6,}",
    r"(?i:bearer)\s+[A-Za-z0-9_\-\.=]{20,}",
]
# ``api_key = value`` style assignments; only the value is reported.
_ASSIGNMENT = re.compile(
    r"(?i)(?:\b(?:api[_\- ]?key|secret(?:[_\- ]?key)?|access[_\- ]?token|auth[_\- ]?token|"
    r"password|passwd|pwd)|密码|口令|密钥)\s*(?:[:=：]|is|是)\s*[\"']?([^\s\"'，。,;；]{6,})"
)

_PATTERNS: list[tuple[PiiKind, re.Pattern[str]]] = [
    (PiiKind.SECRET, re.compile("|".join(f"(?:{p})" for p in _SECRET_PATTERNS))),
    (
        PiiKind.EMAIL,
        # starts only where a run of local-part characters starts (the leftmost match always
        # does), so a long run without "@" is read once, not once per character
        re.compile(
            r"(?<![A-Za-z0-9._%+\-])[A-Za-z0-9._%+\-]+@[A-Za-z0-9\-]+(?:\.[A-Za-z0-9\-]+)*"
            r"\.[A-Za-z]{2,}"
        ),
    ),
    (PiiKind.CN_ID, re.compile(_NB + r"[1-9]\d{16}[\dXx]" + _NA)),
    (
        PiiKind.CN_MOBILE,
        re.compile(_NB + r"(?:(?:\+|00)?86[ \-]?)?1[3-9]\d(?:[ \-]?\d{4}){2}" + _NA),
    ),
    (
        PiiKind.BANK_CARD,
        re.compile(
            _NB
            + r"(?:\d{13,19}|\d{4}(?:[ \-]\d{4}){2,3}(?:[ \-]\d{1,4})?"
            + r"|\d{4}[ \-]\d{6}[ \-]\d{5})"
            + _NA
        ),
    ),
    (
        PiiKind.PHONE,
        re.compile(
            _NB
            + r"(?:\+\d{1,3}[ \-]?(?:\(\d{1,4}\)[ \-]?)?\d{1,4}(?:[ \-]?\d{2,4}){1,4}"
            + r"|\(\d{3}\)[ \-]?\d{3}[ \-]\d{4}|\d{3}-\d{3}-\d{4})"
            + _NA
        ),
    ),
]

_ID_WEIGHTS = (7, 9, 10, 5, 8, 4, 2, 1, 6, 3, 7, 9, 10, 5, 8, 4, 2)
_ID_CHECK = "10X98765432"


def cn_id_valid(value: str) -> bool:
    """True for a checksum-valid 18-character resident ID with a plausible birth date.

    Checksum: ISO 7064 MOD 11-2 as specified by GB 11643-1999.
    """
    if len(value) != 18 or not value[:17].isdigit():
        return False
    total = sum(int(d) * w for d, w in zip(value[:17], _ID_WEIGHTS, strict=True))
    if _ID_CHECK[total % 11] != value[17].upper():
        return False
    try:
        born = dt.date(int(value[6:10]), int(value[10:12]), int(value[12:14]))
    except ValueError:
        return False
    return dt.date(1900, 1, 1) <= born <= dt.date.today()


def luhn_valid(digits: str) -> bool:
    """Luhn (mod 10) check of a digit string (ISO/IEC 7812-1). Non-digits are ignored."""
    nums = [int(c) for c in digits if c.isdigit()]
    if len(nums) < 13:
        return False
    total = 0
    for i, n in enumerate(reversed(nums)):
        if i % 2 == 1:
            n *= 2
            if n > 9:
                n -= 9
        total += n
    return total % 10 == 0


def _mask(value: str) -> str:
    if len(value) <= 4:
        return "*" * len(value)
    return f"{value[:2]}{'*' * (len(value) - 4)}{value[-2:]}"


def _accept(kind: PiiKind, value: str) -> bool:
    if kind is PiiKind.CN_ID:
        return cn_id_valid(value)
    if kind is PiiKind.BANK_CARD:
        return luhn_valid(value) and not cn_id_valid(value)
    if kind is PiiKind.PHONE:
        return sum(c.isdigit() for c in value) >= 8
    return True


#: Invisible characters removed before matching: zero-width, soft hyphen, word joiners, bidi
#: controls, the BOM and Unicode tag characters.
_INVISIBLE = re.compile(
    "[\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
    "\U000e0000-\U000e007f]"
)
#: Separators a number may be split with (spaces of every width, dots, dashes, slashes).
_SEPARATOR = "[ \t\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000.\u00b7\u30fb\\-\u2010-\u2015\u2212_/]"
#: Digit groups joined by separators; a match starts only where a run of digits starts (the
#: leftmost match always does), so a long run of digits is read once, not once per digit.
_GROUPS = re.compile(rf"(?<!\d)\d+(?:{_SEPARATOR}{{1,3}}[\dXx]+)+")
_GROUP_SPLIT = re.compile(rf"{_SEPARATOR}{{1,3}}")


#: Full-width ASCII forms and the ideographic space (NFKC folds them).
_FOLDABLE = re.compile("[\uff01-\uff5e\u3000]")


def _split_number(run: str) -> bool:
    """True for digit groups joined by separators that look like one split number: every
    group but the last of 3+ digits, or every group one digit; 11+ digits in all."""
    groups = _GROUP_SPLIT.split(run)
    digits = [len(g.rstrip("Xx")) for g in groups]
    split = all(n >= 3 for n in digits[:-1]) or all(len(g) == 1 for g in groups)
    return split and sum(digits) >= 11


def _needs_skeleton(text: str) -> bool:
    """True when the skeleton may differ from ``text`` in a way a pattern can see."""
    if _INVISIBLE.search(text) or _FOLDABLE.search(text):
        return True
    return any(_split_number(m.group(0)) for m in _GROUPS.finditer(text))


def _skeleton(text: str) -> tuple[str, list[int]]:
    """``(skeleton, origin)``: ``text`` without invisible characters, NFKC-folded character
    by character (full-width digits become ASCII), with the separators inside split numbers
    dropped; ``origin[i]`` is the offset in ``text`` of skeleton character ``i``."""
    chars: list[str] = []
    origin: list[int] = []
    for i, ch in enumerate(text):
        if _INVISIBLE.match(ch):
            continue
        folded = unicodedata.normalize("NFKC", ch) if ord(ch) > 0x7F else ch
        if len(folded) != 1:
            folded = ch
        chars.append(folded)
        origin.append(i)
    flat = "".join(chars)
    drop: set[int] = set()
    for m in _GROUPS.finditer(flat):
        if not _split_number(m.group(0)):
            continue
        for sep in _GROUP_SPLIT.finditer(m.group(0)):
            drop.update(range(m.start() + sep.start(), m.start() + sep.end()))
    skeleton = "".join(c for i, c in enumerate(flat) if i not in drop)
    return skeleton, [o for i, o in enumerate(origin) if i not in drop]


def detect(text: str) -> list[Finding]:
    """All sensitive spans of ``text``, ordered by start, never overlapping.

    The patterns run on the text itself and on its skeleton (see the module docstring);
    offsets always refer to ``text``. Where two kinds overlap, the earlier pattern in the list
    above wins (secrets, e-mail, resident ID, mobile, bank card, phone), so a resident ID is
    never also a card number.
    """
    taken: list[tuple[int, int]] = []
    found: list[Finding] = []

    def free(start: int, end: int) -> bool:
        return all(end <= s or start >= e for s, e in taken)

    def add(kind: PiiKind, start: int, end: int) -> None:
        if start < end and free(start, end):
            taken.append((start, end))
            found.append(Finding(kind, start, end, _mask(text[start:end])))

    views: list[tuple[str, list[int] | None]] = [(text, None)]
    if _needs_skeleton(text):
        skeleton, origin = _skeleton(text)
        if skeleton != text:
            views.append((skeleton, origin))
    for kind, pattern in _PATTERNS:
        for view, where in views:
            for m in pattern.finditer(view):
                if not _accept(kind, m.group(0)):
                    continue
                if where is None:
                    add(kind, m.start(), m.end())
                else:
                    add(kind, where[m.start()], where[m.end() - 1] + 1)
    for view, where in views:
        for m in _ASSIGNMENT.finditer(view):
            if where is None:
                add(PiiKind.SECRET, m.start(1), m.end(1))
            else:
                add(PiiKind.SECRET, where[m.start(1)], where[m.end(1) - 1] + 1)
    return sorted(found, key=lambda f: f.start)


def redact(text: str, findings: list[Finding] | None = None) -> tuple[str, list[Finding]]:
    """``text`` with every finding replaced by its placeholder (e.g. ``[EMAIL]``).

    Returns:
        (redacted text, the findings used; offsets refer to the original text).
    """
    findings = detect(text) if findings is None else findings
    out: list[str] = []
    pos = 0
    for f in sorted(findings, key=lambda f: f.start):
        out.append(text[pos : f.start])
        out.append(PLACEHOLDERS[f.kind])
        pos = f.end
    out.append(text[pos:])
    return "".join(out), findings
