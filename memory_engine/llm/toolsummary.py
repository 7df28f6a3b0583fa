"""Structured tool outputs reduced to a few conclusions (deterministic, offline).

An agent needs what a tool output *concludes* (order A1029 shipped, ETA 2026-12-04; 3 tests
failed, test_login got 401), never the payload itself. ``summarise`` reads these shapes:

* JSON (an object, an array of records, or an API envelope such as ``{"data": [...]}``), of
  any size: id, status, dates and counts of the main record, or a count of the records with
  their statuses;
* test-runner output, tables and logs (``toollines``): the totals and each failing test;
  rows, statuses and the ids of rare ones; the errors a log counts, with their ids;
* HTTP summaries (``HTTP/1.1 404 Not Found``, ``GET /api/x -> 500``, ``status: 503``);
* ``key: value`` / ``key=value`` listings (ids, statuses, dates, counts only);
* error tracebacks (Python ``Traceback``, ``SomeError: message`` lines, Java/JS ``Exception``):
  the error type, its message and where it was raised;

A success that says nothing else (``{"status": "ok"}``, a heartbeat) concludes nothing: it is
not remembered. The conclusions of one output are joined into as few lines as fit
(``toolconclusion.joined``): one output, one fact.

Each conclusion is one short English line (at most ``CONCLUSION_MAX_CHARS``) with a ``subject``
(what it is about, e.g. ``order A1029``) and a ``status`` the judge compares; nothing else of the
payload survives.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from memory_engine.llm.toolconclusion import (
    CONCLUSION_MAX_CHARS,
    ID_KEYS,
    MAX_CONCLUSIONS,
    STATUS_KEYS,
    ZH_ID_RE,
    ZH_STATUS_RE,
    Conclusion,
    joined,
    quote,
    short,
)
from memory_engine.llm.toolerrors import command_errors, package_conflict
from memory_engine.llm.toollines import log_errors, table, test_run
from memory_engine.llm.toolsecrets import secret, secret_value
from memory_engine.llm.toolstatus import commits, described, status_lines, unit_status

__all__ = [
    "CONCLUSION_MAX_CHARS",
    "MAX_CONCLUSIONS",
    "RENDERED_HEADER",
    "Conclusion",
    "parse_rendered",
    "render",
    "status_lines",
    "summarise",
]

_ZH_DATE_RE = re.compile(r"(?:日期|时间|送达|到达|截止|到期|起飞|出发|开始|结束|生效|发货|签收)$")
_DATE_KEY_RE = re.compile(
    r"(?:^|_)(?:eta|date|deadline|due|at|on|time|delivery|delivered|shipped|expires?|"
    r"created|updated|estimated_delivery|arrival|start|end|starts|ends|begins)(?:_|$)|_at$|_date$|^eta",
    re.I,
)
_COUNT_KEY_RE = re.compile(
    r"(?:^|_)(?:count|total|num|size|qty|quantity|amount|items|balance|price|cost|fee)(?:_|$)|"
    r"(?:余额|金额|价格|费用|总价|总额|数量|库存|积分|次数|人数)$",
    re.I,
)
_ERROR_KEYS = ("error", "message", "msg", "detail", "reason", "errmsg", "description", "summary")
#: Chinese keys of what went wrong or what was done about it (原因, 处理, 错误信息).
_ZH_MESSAGE_RE = re.compile(r"(?:原因|处理|错误|错误信息|报错)$")
#: Keys whose value says that something failed (an error label is earned only by these).
_FAILURE_KEYS = ("error", "errmsg", "errors", "failure", "exception", "reason")
#: Keys naming what a record is about when it has no id key (``{"flight": "UA 837"}``,
#: ``{"service": "checkout-api"}``): the value is the record's subject.
_NAME_KEYS = frozenset(
    {
        "flight", "train", "service", "host", "hostname", "server", "instance", "container",
        "pod", "app", "application", "project", "repo", "repository", "package", "job",
        "pipeline", "release", "build", "deployment", "alertname", "node", "cluster",
        "database", "queue", "bucket", "domain", "workflow", "branch", "environment",
    }
)  # fmt: skip
#: A time of day or a span of one ("15:40", "10:30 - 11:00").
_TIME_VALUE_RE = re.compile(
    r"^(?:[01]?\d|2[0-3]):[0-5]\d(?:\s*[-–~]\s*(?:[01]?\d|2[0-3]):[0-5]\d)?$"
)
_TIME_KEY_RE = re.compile(
    r"(?:departure|arrival|depart|arrive|time|start|end|slot|begins|ends|开始|结束|时间)$", re.I
)
#: A Chinese date, with the time of day when it has one ("2026年3月12日（周四）14:00-15:00").
_ZH_DATE_VALUE_RE = re.compile(
    r"\d{4}年\d{1,2}月\d{1,2}日(?:\s*[（(][^)）]{1,4}[)）])?(?:\s*\d{1,2}:\d{2}(?:\s*[-–~]\s*\d{1,2}:\d{2})?)?"
)
_DATE_VALUE_RE = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ][\d:.]+(?:Z|[+-]\d{2}:?\d{2})?)?$")
_ENVELOPE_KEYS = ("data", "items", "results", "records", "rows", "entries", "hits", "list")

_HTTP_LINE_RE = re.compile(
    r"^HTTP/[\d.]+\s+(?P<code>[1-5]\d\d)\s*(?P<text>[A-Za-z][\w \-]*)?", re.M
)
_HTTP_CALL_RE = re.compile(
    r"\b(?P<method>GET|POST|PUT|PATCH|DELETE|HEAD)\s+(?P<path>\S+)\s*(?:->|=>|→|:|返回|returned|"
    r"responded with|status)\s*(?P<code>[1-5]\d\d)\b(?:\s+(?P<text>[A-Z][\w \-]{1,30}))?"
)
_KV_RE = re.compile(
    r"^\s*(?P<key>[A-Za-z_][\w .\-]{0,30}?)\s*[:=]\s*(?P<value>\S.{0,80}?)\s*$|"
    r"^\s*(?P<zhkey>[\u4e00-\u9fff][\u4e00-\u9fffA-Za-z]{0,11})\s*[:：]\s*(?P<zhvalue>\S.{0,80}?)\s*$"
)


def _scalar(value: Any) -> str | None:
    if isinstance(value, bool) or value is None:
        return None if value is None else str(value).lower()
    if isinstance(value, int | float | str):
        text = str(value).strip()
        return text if 0 < len(text) <= 60 else None
    return None


#: Status values that only say a call worked: with nothing else, no conclusion.
_OK_VALUES = frozenset(
    {"ok", "okay", "success", "succeeded", "true", "healthy", "up", "pong", "成功", "正常"}
)
#: Keys of an API envelope around the payload ({"code": 0, "msg": "success", "data": {...}}).
_ENVELOPE_META = frozenset(
    {
        "status",
        "code",
        "msg",
        "message",
        "success",
        "ok",
        "error",
        "errors",
        "request_id",
        "requestid",
        "trace_id",
        "timestamp",
        "ts",
        "meta",
        "version",
    }
)
_PAYLOAD_KEYS = ("data", "result", "payload", "body", "response")


def _when(text: str) -> str:
    """A date value as said: the day, and the time of day when it has one ("2026-03-11 10:15")."""
    m = re.match(r"(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2}))?", text)
    if not m:
        return text[:10]
    return m.group(1) if not m.group(2) or m.group(2) == "00:00" else f"{m.group(1)} {m.group(2)}"


def _unwrapped(data: dict[str, Any]) -> tuple[dict[str, Any], str] | None:
    """The payload of a successful API envelope and its name ("user" for
    ``{"status": "ok", "data": {"user": {...}}}``), or None when ``data`` is not one."""
    inner_key = next((k for k in _PAYLOAD_KEYS if isinstance(data.get(k), dict)), None)
    if inner_key is None or any(k.lower() not in _ENVELOPE_META for k in data if k != inner_key):
        return None
    failed = data.get("success") is False or data.get("ok") is False or data.get("error")
    code = data.get("code")
    if failed or (isinstance(code, int) and code not in (0, 200)):
        return None
    status = str(data.get("status", "ok")).lower()
    if status not in _OK_VALUES and not status.startswith("2"):
        return None
    inner, hint = data[inner_key], ""
    if len(inner) == 1 and isinstance(next(iter(inner.values())), dict):
        hint, inner = next(iter(inner.items()))
    return inner, hint


def _label(key: str) -> str:
    """``order_id`` -> ``order``; ``ticketNumber`` -> ``ticket``; ``id`` -> ``record``."""
    words = re.sub(r"([a-z])([A-Z])", r"\1_\2", key).lower().split("_")
    words = [w for w in words if w and w not in ID_KEYS]
    return " ".join(words) or "record"


def _flat(obj: dict[str, Any], prefix: str = "", depth: int = 3) -> dict[str, Any]:
    """``obj`` with nested objects (up to ``depth`` levels) as ``outer_inner`` keys."""
    flat: dict[str, Any] = {}
    for k, v in obj.items():
        key = f"{prefix}_{k}" if prefix else str(k)
        if isinstance(v, dict) and depth > 1:
            for k2, v2 in _flat(v, key, depth - 1).items():
                flat.setdefault(k2, v2)
        else:
            flat.setdefault(key, v)
    return flat


def _words(key: str) -> str:
    """A key as words: ``estimatedDeparture`` -> ``estimated departure``."""
    return re.sub(r"([a-z])([A-Z])", r"\1 \2", key).replace("_", " ").lower()


def _message_key(key: str) -> bool:
    """A key whose value says what went wrong or what was done (error, reason, 原因, 处理)."""
    last = re.sub(r"([a-z])([A-Z])", r"\1_\2", key).lower().split("_")[-1]
    return last in _ERROR_KEYS or bool(_ZH_MESSAGE_RE.search(key))


def _last_word(key: str) -> str:
    return re.sub(r"([a-z])([A-Z])", r"\1_\2", key).lower().split("_")[-1]


def _record(obj: dict[str, Any], hint: str = "") -> Conclusion | None:
    """The conclusion of one JSON object: its id, status, dates, times, counts and what went
    wrong."""
    flat = {k: v for k, v in _flat(obj).items() if not secret(k)}  # {"password": ...} unread
    ident = label = None
    named_by = None
    for k, v in flat.items():
        words = re.sub(r"([a-z])([A-Z])", r"\1_\2", k).lower().split("_")
        if words[-1] in ID_KEYS and _scalar(v) and not isinstance(v, bool):
            ident, label = _scalar(v), _label(k)
            break
    if ident is None:  # what the record is about: {"flight": "UA 837"}, {"service": "api"}
        for k, v in flat.items():
            words = re.sub(r"([a-z])([A-Z])", r"\1_\2", k).lower().split("_")
            value = _scalar(v)
            if words[-1] in _NAME_KEYS and isinstance(v, str) and value and len(value) <= 40:
                ident, label, named_by = value, words[-1], k
                break
    if ident is None and flat:
        first_key, first = next(iter(flat.items()))
        text0 = _scalar(first)
        if (
            text0
            and re.fullmatch(r"[A-Za-z]*[-#]?\d[\w\-]{0,20}", text0)
            and not _DATE_KEY_RE.search(first_key)
            and first_key.lower() not in STATUS_KEYS
        ):
            ident, label = text0.lstrip("#"), _label(first_key)
    if ident is None:
        for k, v in flat.items():
            if ZH_ID_RE.search(k) and _scalar(v):
                ident, label = _scalar(v), re.sub(r"(?:编号|号码|号|ID|id)$", "", k) or k
                break
    kind = _scalar(flat.get("type") or flat.get("object") or flat.get("kind"))
    if label == "record" and kind:
        label = kind
    elif label == "record" and hint:
        label = hint
    status = next(
        (
            _scalar(flat[k])
            for k in flat
            if k.lower().split("_")[-1] in STATUS_KEYS or ZH_STATUS_RE.search(k)
        ),
        None,
    )
    parts: list[str] = []
    neutral = 0  # quoted messages that say nothing failed ("msg": "Service is running")
    for k, v in flat.items():
        text = _scalar(v)
        if isinstance(v, str) and v.strip() and _message_key(k):
            if not _OK_VALUES & {v.lower()} and not secret_value(v):
                parts.insert(0, quote(v))  # what went wrong comes first: "Rate limit exceeded"
                neutral += _last_word(k) not in _FAILURE_KEYS and not _ZH_MESSAGE_RE.search(k)
            continue
        if text is None:
            if isinstance(v, list) and 0 < len(v) <= 5 and all(_scalar(x) for x in v):
                parts.insert(0, f"{k.replace('_', ' ')} {', '.join(str(_scalar(x)) for x in v)}")
            elif isinstance(v, list) and _COUNT_KEY_RE.search(k + "_items"):
                parts.append(f"{len(v)} {k.replace('_', ' ')}")
            continue
        if _DATE_KEY_RE.search(k) and _DATE_VALUE_RE.match(text):
            parts.append(
                f"{k.replace('_', ' ').upper() if k.lower() == 'eta' else k.replace('_', ' ')} {_when(text)}"
            )
        elif _COUNT_KEY_RE.search(k) and re.fullmatch(r"-?\d+(?:\.\d+)?", text):
            parts.append(f"{k.replace('_', ' ')} {text}")
        elif _ZH_DATE_RE.search(k) and re.match(r"\d{4}-\d{2}-\d{2}", text):
            parts.append(f"{k} {_when(text)}")
        elif _TIME_KEY_RE.search(k) and _TIME_VALUE_RE.match(text):
            parts.append(f"{_words(k)} {text}")  # "estimated departure 15:40"
        elif (_ZH_DATE_RE.search(k) or _TIME_KEY_RE.search(k)) and (
            zh_date := _ZH_DATE_VALUE_RE.search(text)
        ):
            parts.append(f"{k} {zh_date.group(0)}")  # "时间 2026年3月12日（周四）14:00-15:00"
    if (ident is None or (named_by is not None and not parts)) and status is None:
        # no id or status: the record's short named values ("city Kyoto, forecast rain")
        named = [
            f"{k.replace('_', ' ')} {_scalar(v)}"
            for k, v in flat.items()
            if isinstance(v, str)
            and k != named_by
            and _scalar(v)
            and len(str(v)) <= 30
            and not secret_value(str(v))
            and k.lower().split("_")[-1] not in _ERROR_KEYS
            and not (_DATE_KEY_RE.search(k) and _DATE_VALUE_RE.match(str(v)))  # said as a date
        ]
        if ident is None and len(named) < 2 and not parts:
            return None
        parts = [p for p in parts if p not in named][:2] + named[:3]
    if ident is None and status is None and not parts:
        return None
    if ident is None and len(parts) == neutral and str(status).lower() in _OK_VALUES | {"none"}:
        return None  # {"status": "ok", "msg": "Service is running"}: the call worked
    erred = any(_last_word(k) in _FAILURE_KEYS for k in flat)
    if ident is None and label is None and erred:
        label = "error"  # {"error": "plan expired"}
    subject = f"{label} {ident}" if ident else (label or "result")
    if re.search(r"[\u4e00-\u9fff]", "".join(flat)):  # Chinese keys: a Chinese conclusion
        text = (
            subject
            + (f"：{status}" if status else "")
            + ("，" + "，".join(parts[:4]) if parts else "")
        )
    else:
        head = f"{subject[:1].upper()}{subject[1:]}"
        if status:
            head += f" is {status}"
        text = head + (": " + ", ".join(parts[:4]) if parts else "")
    return Conclusion(
        short(text), subject.lower(), (status or "").lower(), (ident,) if ident else ()
    )


def _json(text: str) -> list[Conclusion] | None:
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        data = json.loads(stripped)
    except (ValueError, RecursionError):  # not JSON, or nested deeper than the parser goes
        return None
    records: list[Any] | None = None
    hint = ""
    out: list[Conclusion] = []
    if isinstance(data, list):
        records = data
    elif isinstance(data, dict) and (inner := _unwrapped(data)) is not None:
        one = _record(inner[0], inner[1])
        return [one] if one else None
    elif isinstance(data, dict):
        own = any(k.lower() in STATUS_KEYS or k.lower().endswith("id") for k in data)
        lists = [
            k
            for k, v in data.items()
            if isinstance(v, list) and sum(isinstance(r, dict) for r in v) >= 2
        ]
        keys = _ENVELOPE_KEYS + tuple(k for k in lists if k not in _ENVELOPE_KEYS)
        for k in () if own else keys:
            if isinstance(data.get(k), list):
                records, hint = data[k], ("results" if k == "results" else "")
                rest = {key: v for key, v in data.items() if key != k}
                top = _record(rest) if rest else None
                if top is not None and (
                    top.status or any(isinstance(v, list) for v in rest.values())
                ):
                    out.append(top)
                break
        else:
            one = _record(data)
            # a record with a short list of its own records (an alert group's alerts)
            nested = [
                c
                for v in data.values()
                if isinstance(v, list) and 0 < len(v) <= 3
                for c in (_record(r) for r in v if isinstance(r, dict))
                if c
            ]
            found = list({c.text: c for c in ([one] if one else []) + nested}.values())
            return found[:MAX_CONCLUSIONS] or None
    if records is None:
        return None
    dicts = [r for r in records if isinstance(r, dict)]
    if len(dicts) == 1:
        one = _record(dicts[0], hint)
        return out + ([one] if one else [])
    statuses = Counter(
        str(
            _scalar(
                next((r[k] for k in r if k.lower() in STATUS_KEYS or ZH_STATUS_RE.search(k)), None)
            )
            or ""
        )
        for r in dicts
    )
    statuses.pop("", None)
    noun = hint or "records"
    summary = f"Tool returned {len(records)} {noun}"
    if isinstance(data, dict):
        asked = next(
            (
                str(v)
                for k, v in data.items()
                if k.lower() in ("query", "q", "search", "keyword", "查询") and _scalar(v)
            ),
            None,
        )
        if asked:
            summary += f" for {asked}"
    if statuses:
        parts = []
        for s, n in statuses.most_common(4):
            ids = _ids_with_status(dicts, s) if len(statuses) > 1 and n <= 3 else []
            parts.append(f"{n} {s}" + (f" ({', '.join(ids)})" if ids else ""))
        summary += ": " + ", ".join(parts)
    out.insert(0, Conclusion(short(summary), "records", f"{len(records)}"))
    if not statuses and 1 < len(dicts) <= 5:
        # a short list of plain records (calendar events, search hits): the first ones
        firsts = [c for c in (_record(r, hint) for r in dicts[:2]) if c]
        return (out + firsts)[:MAX_CONCLUSIONS]
    failing = [
        c
        for c in (_record(r, hint) for r in dicts)
        if c and c.status in {"failed", "error", "cancelled", "canceled", "rejected", "down"}
    ]
    return (out + failing)[:MAX_CONCLUSIONS]


def _ids_with_status(records: list[dict[str, Any]], status: str) -> list[str]:
    """Ids of the records whose status is ``status`` (a rare status names its records:
    "1 处理中 (T-9031)")."""
    out = []
    for r in records:
        state = next((r[k] for k in r if k.lower() in STATUS_KEYS or ZH_STATUS_RE.search(k)), None)
        if str(_scalar(state) or "") != status:
            continue
        ident = next(
            (
                _scalar(r[k])
                for k in r
                if k.lower() in ID_KEYS or k.lower().endswith("id") or ZH_ID_RE.search(k)
            ),
            None,
        )
        if ident:
            out.append(ident)
    return out[:3]


def _http(text: str) -> list[Conclusion] | None:
    out: list[Conclusion] = []
    for m in _HTTP_CALL_RE.finditer(text):
        reason = f" {m.group('text').strip()}" if m.group("text") else ""
        path = re.sub(r"^https?://[^/\s]+", "", m.group("path")) or m.group("path")
        subject = f"{m.group('method')} {path}"
        out.append(
            Conclusion(
                short(f"{subject} returned {m.group('code')}{reason}"),
                subject.lower(),
                m.group("code"),
            )
        )
    if not out:
        line = _HTTP_LINE_RE.search(text)
        if line:
            m = line
            reason = f" {m.group('text').strip()}" if m.group("text") else ""
            out.append(
                Conclusion(
                    f"HTTP response {m.group('code')}{reason}", "http response", m.group("code")
                )
            )
            rest = text[m.end() :]
            body = re.split(r"\r?\n\s*\r?\n", rest, maxsplit=1)
            # headers, blank line, body; or the body right after the status line
            read = _json(body[1]) if len(body) == 2 else _json(rest.split("\n", 1)[-1])
            if read and m.group("code").startswith("2"):
                out = read  # a success says what its body says
            elif read:  # an error keeps its status, with what the body says went wrong
                said = re.sub(r"^(?:Error|Result|Record)(?: is \S+)?:\s*", "", read[0].text)
                out = [Conclusion(short(f"{out[0].text}: {said}"), out[0].subject, out[0].status)]
                out += read[1:]
            retry = _RETRY_AFTER_RE.search(rest)
            if retry and out and m.group("code") in ("429", "503") and int(retry.group(1)) <= 86400:
                first = out[0]
                out[0] = Conclusion(
                    short(f"{first.text}; retry after {retry.group(1)} s"),
                    first.subject,
                    first.status,
                    first.entities,
                )
    return out[:MAX_CONCLUSIONS] or None


_RETRY_AFTER_RE = re.compile(r"^Retry-After:\s*(\d{1,6})\s*$", re.M | re.I)


_EXCEPTION_RE = re.compile(
    r"^\s*(?:Exception in thread \"[^\"]*\"\s+)?(?:[\w.]+\.)?(?P<type>[A-Z]\w*(?:Error|Exception|Exit|Interrupt|Fault))"
    r"(?::\s*(?P<message>.*))?$",
    re.M,
)
_FRAME_RE = re.compile(r'File "(?P<file>[^"]+)", line (?P<line>\d+)|\bat (?P<where>[\w.$<>]+)\(')


def _traceback(text: str) -> list[Conclusion] | None:
    """The error of a traceback: its type, message (without errno codes) and last frame."""
    if not re.search(
        r"Traceback \(most recent call last\)|^\s+at [\w.$<>]+\(|Exception in thread", text, re.M
    ):
        return None
    errors = list(_EXCEPTION_RE.finditer(text))
    if not errors:
        return None
    err = errors[-1]
    message = re.sub(r"^\[Errno \d+\]\s*|^['\"]|['\"]$", "", (err.group("message") or "").strip())
    frames = list(_FRAME_RE.finditer(text))
    where = ""
    if frames:
        f = frames[-1] if frames[-1].group("file") else frames[0]
        where = (
            f" at {f.group('file').rsplit('/', 1)[-1]} line {f.group('line')}"
            if f.group("file")
            else f" in {'.'.join(f.group('where').split('.')[-2:])}"  # Class.method
        )
    said = f"The run failed with {err.group('type')}" + (f" ({quote(message)})" if message else "")
    return [Conclusion(short(said + where), err.group("type").lower(), "error")]


def _key_values(text: str) -> list[Conclusion] | None:
    pairs = [
        {"key": m.group("key") or m.group("zhkey"), "value": m.group("value") or m.group("zhvalue")}
        for line in text.splitlines()
        if (m := _KV_RE.match(line))
    ]
    lines = [line for line in text.splitlines() if line.strip()]
    if len(pairs) < 2 or len(pairs) * 2 < len(lines):
        return None
    obj = {re.sub(r"[\s.\-]+", "_", p["key"].strip().lower()): p["value"].strip() for p in pairs}
    one = _record(obj)
    return [one] if one else None


def summarise(text: str, *, tool_output: bool = False) -> list[Conclusion] | None:
    """The conclusions of a structured tool output, or None when ``text`` is not one.

    Args:
        text: the cleaned output (any size).
        tool_output: the source is a tool; only then are ``key: value`` listings read.

    Returns:
        At most ``MAX_CONCLUSIONS`` conclusions, or None (not structured: extract as text).
    """
    # a package manager's error only in a tool's output: a user may quote one in a question
    conflict = (package_conflict,) if tool_output else ()
    readers = (_json, unit_status, described, commits, test_run, _http, _traceback)
    for reader in (*readers, *conflict, log_errors):
        found = reader(text)
        if found:
            return joined(found[:MAX_CONCLUSIONS])
    if tool_output:
        found = command_errors(text) or _key_values(text) or table(text)
        if found:
            return joined(found[:MAX_CONCLUSIONS])
    return None


#: First line of a tool output replaced by its conclusions (``render``).
RENDERED_HEADER = "Tool output conclusions:"
_RENDERED_RE = re.compile(
    r"^(?P<subject>.+?)(?: is (?P<status>[\w\-]+)| returned (?P<code>\d{3})| failed\b|: )"
)


def render(conclusions: list[Conclusion]) -> str:
    """The text an oversized tool output is replaced by before extraction: a header line and
    one ``- conclusion`` line each (what any provider then reads; ``parse_rendered`` reverses)."""
    return "\n".join([RENDERED_HEADER] + [f"- {c.text}" for c in conclusions])


def parse_rendered(text: str) -> list[Conclusion] | None:
    """The conclusions of a ``render`` text, or None when ``text`` is not one."""
    lines = text.strip().splitlines()
    if not lines or lines[0].strip() != RENDERED_HEADER:
        return None
    out = []
    for line in lines[1:]:
        line = line.strip().removeprefix("- ").strip()
        if not line:
            continue
        m = _RENDERED_RE.match(line)
        subject = (m.group("subject") if m else line).strip().lower()
        status = ""
        if m:
            status = m.group("status") or m.group("code") or ("failed" if " failed" in line else "")
        ids = tuple(w for w in re.findall(r"\b[A-Za-z]*\d[\w\-]*\b", subject)[:1])
        out.append(Conclusion(short(line), subject, status.lower(), ids))
    return out or None
