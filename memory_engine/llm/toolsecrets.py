"""Secrets and personal numbers in tool outputs: what a conclusion never quotes.

A tool output can carry a password, a token, an API key, a one-time code, a card, ID or phone
number, in a JSON field (``"password": ...``), in a message (``"DB pw is Tr0ub4dor&3"``,
``"支付密码错误：123456"``) or on a status line (``"Created API key sk-proj-…"``). The
conclusion readers (``toolsummary``, ``toolstatus``) skip a key that names a secret
(:func:`secret`) and never quote a value or line that holds one (:func:`secret_value`); a
message that only names a secret ("access_token is invalid") is kept.
"""

from __future__ import annotations

import re

__all__ = ["secret", "secret_value"]

#: Words and shapes of a secret or personal number: such a value is never quoted, and a key
#: of that kind is never read (passwords, tokens, keys, one-time codes, card and ID numbers).
_SECRET_KEY_RE = re.compile(
    r"pass(?:word|wd|phrase)?\b|\bpwd\b|\bpw\b|\bpin\b|token|secret|api[_ -]?key|credential|creds\b|"
    r"\botp\b|one-time|verification|\bcode is\b|auth(?:orization)?\b|cookie|session[_ -]?id|"
    r"密码|验证码|口令|密钥|令牌|身份证|银行卡|卡号|证件|"
    r"\b\d{11,}\b|(?:\d[ -]?){13,19}|\beyJ[\w-]{8,}|\b(?:sk|pk|rk|ghp|gho|xox[abp])[-_][\w-]{6,}|"
    r"\b[A-Za-z0-9+/]{32,}={0,2}",
    re.I,
)


#: A secret word with its value after it ("pw is hunter22", "密码错误：123456", "code 4821").
_SECRET_VALUE_RE = re.compile(
    r"(?:pass(?:word|wd|phrase)?|\bpwd|\bpw|\bpin|token|secret|api[_ -]?key|\bkey|\bcode|"
    r"\botp|credential|creds|cookie|密码|验证码|口令|密钥|令牌|卡号)\W{0,3}(?:is|was|:|=|为|是)?"
    r"[^,;，；]{0,12}?[^\s,;，；]*\d",
    re.I,
)
#: The shape of a secret or personal number wherever it stands: long digit runs (phone, card,
#: ID numbers), JWTs, provider key prefixes, long base64 runs; and ID-card / bank-card words.
_SECRET_SHAPE_RE = re.compile(
    r"\b\d{11,}\b|(?:\d[ -]?){13,19}|\beyJ[\w-]{8,}|\b(?:sk|pk|rk|ghp|gho|xox[abp])[-_][\w-]{6,}|"
    r"\b[A-Za-z0-9+/]{32,}={0,2}|身份证|银行卡|AKIA[0-9A-Z]{12,}",
    re.I,
)


def secret(text: str) -> bool:
    """True when ``text`` (a key) names a secret (``_SECRET_KEY_RE``: password, token, 密码...)."""
    return bool(_SECRET_KEY_RE.search(text))


def secret_value(text: str) -> bool:
    """True when ``text`` (a value or a line) holds a secret: a secret word with a value after
    it, or a secret's shape; it is never quoted into a conclusion. A message that only names
    one ("access_token is invalid") is not."""
    return bool(_SECRET_VALUE_RE.search(text) or _SECRET_SHAPE_RE.search(text))
