"""Conclusions of an unstructured tool output: its lines that state an outcome ("deploy of 2.3
succeeded", "导入完成：成功 9987 条，失败 13 条"), with the ids and counts they name; a part of
``toolsummary`` (its readers come first, these lines are the fallback).
"""

from __future__ import annotations

import re

from memory_engine.llm.toolconclusion import MAX_CONCLUSIONS, Conclusion, joined, quote, short
from memory_engine.llm.toolsecrets import secret_value

__all__ = ["commits", "described", "status_lines", "unit_status"]

_WS_RE = re.compile(r"\s+")

_STATUS_LINE_RE = re.compile(
    r"\b(?:succeeded|failed|passed|completed|deployed|timed out|crashed|aborted|rejected|approved|"
    r"sent|created|saved|uploaded|booked|scheduled|merged|published|queued|complete|success|"
    r"successful|finished|"
    r"shipped|delivered|cancell?ed|errored|packet loss|unreachable|refused|denied|not found|"
    r"alert|firing)\b|"
    r"成功|失败|完成|超时|已发货|已送达|已取消|拒绝|不可达|告警|报警",
    re.I,
)


#: Counts a status line reports ("成功 9987 条", "3/3 replicas healthy", "12 rows").
_COUNT_PHRASE_RE = re.compile(
    r"(?:成功|失败|通过|跳过|错误|警告)\s*\d+\s*(?:条|个|项|行|次)?|"
    r"\b\d+(?:/\d+)?\s+(?:rows?|records?|items?|files?|errors?|warnings?|failed|passed|"
    r"succeeded|skipped|replicas?(?:\s+(?:healthy|ready|available))?)\b|"
    r"(?<![\d.])\d{1,3}(?:\.\d+)?%",
    re.I,
)
#: What a status line is about: a version, a ticket-like id, a hyphenated name.
_LINE_IDENT_RE = re.compile(
    r"(?<![\w.])v?\d+(?:\.\d+){1,3}(?![\w.])|\b[A-Z][A-Z0-9]+-\d+\b|\b[a-z][a-z0-9]*(?:-[a-z0-9]+)+\b"
)


def _line_details(line: str, said: str) -> list[str]:
    """What a status line says beyond its outcome words: the ids it names and the counts it
    reports, then a later outcome word ("SUCCESS"), none already in ``said``; at most four."""
    out: list[str] = []
    plain = re.sub(r"\b\w+://\S+", " ", line)  # an address is no id ("…/r/ab12-cd34")
    idents = [] if secret_value(line) else [*_LINE_IDENT_RE.finditer(plain)][:2]
    for m in idents + [*_COUNT_PHRASE_RE.finditer(line)][:2]:
        if m.group(0) not in said and m.group(0) not in out:
            out.append(m.group(0))
    outcomes = [m.group(0) for m in _STATUS_LINE_RE.finditer(line)]
    if len(outcomes) > 1 and outcomes[-1].lower() not in (said + " ".join(out)).lower():
        out.append(outcomes[-1])
    return out[:4]


def status_lines(text: str) -> list[Conclusion]:
    """Conclusions of an unstructured tool output: its lines that state an outcome ("deploy of
    2.3 succeeded"), log-prefixed lines and repeats left out; at most ``MAX_CONCLUSIONS``."""
    out: list[Conclusion] = []
    seen: set[str] = set()
    for raw in text.splitlines():
        line = re.sub(
            r"^\s*(?:\d{4}-\d{2}-\d{2}[T ][\d:.]+\S*\s*)?(?:\[?(?:INFO|WARN|WARNING|ERROR|DEBUG)\]?\s*)?",
            "",
            raw,
        ).strip()
        line = re.sub(r"^(?:result|status|summary|结果|状态)\s*[:：]\s*", "", line, flags=re.I)
        if not line or line in seen or not _STATUS_LINE_RE.search(line) or len(line) > 160:
            continue
        seen.add(line)
        # the outcome and a few words before it, never a long verbatim stretch of the payload
        m = _STATUS_LINE_RE.search(line)
        start = max(0, line.rfind(" ", 0, max(0, m.start() - 18)) + 1) if m else 0
        said = line[start : m.end()] if m else line[:36]
        said = re.sub(r"[【】\[\]]", " ", said).strip()  # "【P1告警】": the words, not the brackets
        if m and secret_value(said):  # "Token ghp-… saved": the outcome only, never the secret
            said = m.group(0)
        if m and len(_WS_RE.sub(" ", text).strip()) > 40:
            # what it was done to, when short: "Email sent to bob@example.com"
            after = re.match(r"\s+(?:to|for|at|on|in|as)\s+[^\s,;()]{2,30}", line[m.end() :])
            if after and len(said) + len(after.group(0)) < 40:
                said += after.group(0)
        details = _line_details(line, said)
        if details:
            zh = re.search(r"[\u4e00-\u9fff]", said)
            said += ("：" if zh else ": ") + ("，" if zh else ", ").join(details)
        out.append(Conclusion(short(said[:1].upper() + said[1:]), said[:40].lower()))
    return joined(out[-MAX_CONCLUSIONS:])


_UNIT_RE = re.compile(
    r"^\s*[●×○*]?\s*(?P<unit>[\w@.:\-]+\.(?:service|socket|timer|mount|target))\b", re.M
)
_ACTIVE_RE = re.compile(
    r"^\s*Active:\s*(?P<state>[\w-]+)(?:\s*\((?P<sub>[^)]*)\))?(?:\s+since\s+(?P<since>[^;\n]+))?",
    re.M,
)
_UNIT_ERROR_RE = re.compile(
    r"\[(?:emerg|alert|crit|error)\]\s*(?P<msg>[^\n]+)|\b(?:ERROR|FATAL)[: ]\s*(?P<msg2>[^\n]+)"
)


def unit_status(text: str) -> list[Conclusion] | None:
    """A ``systemctl status`` output: the unit, its state and since when, and the first error
    its log lines give ("nginx.service is failed (Result: exit-code) since Tue 2026-03-10
    08:47:13 UTC: bind() to 0.0.0.0:80 failed"), or None when ``text`` is not one."""
    unit, active = _UNIT_RE.search(text), _ACTIVE_RE.search(text)
    if unit is None or active is None or "Loaded:" not in text:
        return None
    state = active.group("state")
    said = f"{unit.group('unit')} is {state}"
    if active.group("sub"):  # "(Result: exit-code)" -> "(exit-code)": said, not copied
        sub = re.sub(r"^Result:\s*", "", active.group("sub").strip())
        said += f" ({sub})"
    since = re.search(r"\d{4}-\d{2}-\d{2} \d{2}:\d{2}(?::\d{2})?", active.group("since") or "")
    if since:
        said += f" since {since.group(0)}"
    error = _UNIT_ERROR_RE.search(text[active.end() :])
    if error and state in ("failed", "activating", "inactive"):
        message = (error.group("msg") or error.group("msg2") or "").strip()
        if message and not secret_value(message):
            said += f": {quote(message)}"
    return [
        Conclusion(short(said), unit.group("unit").lower(), state.lower(), (unit.group("unit"),))
    ]


_DESCRIBED_NAME_RE = re.compile(r"^Name:\s+(?P<name>\S+)\s*$", re.M)
_DESCRIBED_STATUS_RE = re.compile(r"^(?:Status|Phase|State):\s+(?P<status>[\w-]+)", re.M)
_WARNING_EVENT_RE = re.compile(
    r"^\s*Warning\s+(?P<reason>[A-Z]\w+)\s+.*?\s{2,}(?:[\w-]+(?:,\s*[\w-]+)*)\s{2,}(?P<message>\S.*)$",
    re.M,
)


def described(text: str) -> list[Conclusion] | None:
    """A ``kubectl describe`` output: the object's name and status and its last warning event
    ("order-svc-5c6d8b7f9-lq2mx is Pending: FailedScheduling, 0/6 nodes are available: 6
    Insufficient memory"), or None when ``text`` is not one."""
    name, status = _DESCRIBED_NAME_RE.search(text), _DESCRIBED_STATUS_RE.search(text)
    if name is None or status is None or "Events:" not in text and "Namespace:" not in text:
        return None
    said = f"{name.group('name')} is {status.group('status')}"
    warnings = list(_WARNING_EVENT_RE.finditer(text))
    if warnings:
        last = warnings[-1]
        message = last.group("message").strip()
        # "0/6 nodes are available: 6 Insufficient memory. preemption: ...": the cause
        cause = re.split(r"(?<=\w):\s+", message)
        cause_text = cause[1] if len(cause) > 1 else message
        detail = "" if secret_value(message) else f", {quote(cause_text.rstrip('. '))}"
        said += f": {last.group('reason')}{detail}"
    return [
        Conclusion(
            short(said),
            name.group("name").lower(),
            status.group("status").lower(),
            (name.group("name"),),
        )
    ]


_COMMIT_RE = re.compile(
    r"^commit (?P<sha>[0-9a-f]{7,40})\b.*?\n(?:(?!commit )[^\n]*\n)*?\n\s{4}(?P<subject>\S[^\n]*)",
    re.M,
)


def commits(text: str) -> list[Conclusion] | None:
    """A ``git log`` / ``git show`` output: the newest commit's short hash and subject line
    (its author and e-mail are left out), and how many commits it lists; or None."""
    found = list(_COMMIT_RE.finditer(text))
    if not found:
        return None
    first = found[0]
    subject = first.group("subject").strip()
    said = f"Commit {first.group('sha')[:7]}"
    if subject and not secret_value(subject):
        said += f": {quote(subject)}"
    if len(found) > 1:
        said += f" (latest of {len(found)} commits)"
    return [
        Conclusion(short(said), f"commit {first.group('sha')[:7]}", "", (first.group("sha")[:7],))
    ]
