"""Line-oriented tool outputs reduced to their conclusions (deterministic, offline): test-runner
summaries, tables and logs (a part of ``toolsummary``).

* test runs (pytest, unittest, jest/go-style ``FAIL``/``ok`` lines): the totals and each
  failing test with what it failed on;
* tables (``|``-separated as psql and MySQL print them, CSV or tab-separated with a header row,
  or aligned columns as ``kubectl get`` / ``docker ps`` / ``df`` print them; row-count
  trailers such as ``(3 rows)`` are read, not counted): the row count, the statuses counted
  and the ids of the rows in a rare status (else the first ids), and a column of percentages
  over 80% (a disk nearly full);
* logs (lines that start with a timestamp or a level): the errors counted, the service, the
  first error's message and the ids the error lines name; a log without an error concludes
  nothing.
"""

from __future__ import annotations

import re
from collections import Counter

from memory_engine.llm.toolconclusion import (
    ID_KEYS,
    MAX_CONCLUSIONS,
    STATUS_KEYS,
    ZH_ID_RE,
    ZH_STATUS_RE,
    Conclusion,
    quote,
    short,
)
from memory_engine.llm.toolsecrets import secret_value

__all__ = ["log_errors", "table", "test_run"]

_PYTEST_TOTAL_RE = re.compile(
    r"(?P<parts>(?:\d+ (?:failed|passed|errors?|skipped|xfailed|xpassed|warnings?|deselected)"
    r"(?:, )?)+)(?: in [\d.]+s)?",
    re.I,
)
_PYTEST_FAIL_RE = re.compile(
    r"^\s*(?:FAILED|ERROR)\s+(?P<test>[\w/.\-]+(?:::[\w\[\]\-.]+)+)(?:\s+-\s+(?P<why>.+))?$", re.M
)
_GENERIC_FAIL_RE = re.compile(
    r"^\s*(?:--- FAIL|FAIL|✕|✗|×)[:\s]+(?P<test>[\w/.:\-\[\] ]{2,80}?)(?:\s+\([\d.]+m?s\)|\t+[\d.]+m?s)?\s*$",
    re.M,
)
#: cargo (Rust) and libtest: "test result: FAILED. 41 passed; 1 failed; 0 ignored" and each
#: failing test's "test parser::tests::empty ... FAILED".
_CARGO_TOTAL_RE = re.compile(
    r"^test result: (?:ok|FAILED)\. (?P<passed>\d+) passed; (?P<failed>\d+) failed", re.M
)
_CARGO_FAIL_RE = re.compile(r"^test (?P<test>[\w:]+(?:::[\w]+)*) \.\.\. FAILED\s*$", re.M)
#: A Chinese test summary ("共 120 个用例，通过 117 个，失败 3 个") and its failing tests
#: ("失败用例：test_a, test_b").
_ZH_TOTAL_LINE_RE = re.compile(r"^.*(?:用例|测试).*$", re.M)
_ZH_COUNT_RE = {
    "failed": re.compile(r"失败\s*[:：]?\s*(\d+)|(\d+)\s*个?(?:用例)?失败"),
    "passed": re.compile(r"通过\s*[:：]?\s*(\d+)|(\d+)\s*个?(?:用例)?通过"),
    "total": re.compile(r"(?:共|总计|合计|总数)\s*[:：]?\s*(\d+)"),
}
#: Longest Chinese conclusion, in characters (a distilled Chinese fact is at most 50).
ZH_MAX_CHARS = 50
_ZH_FAILED_NAMES_RE = re.compile(r"失败(?:的)?(?:用例|测试)\s*[:：]\s*(?P<names>.+)$", re.M)
_ASSERT_RE = re.compile(r"assert\w*\s+(?P<got>[\w.'\"]+)\s*==\s*(?P<want>[\w.'\"]+)")
_ERROR_TYPE_RE = re.compile(r"^(?P<type>[A-Z]\w*(?:Error|Exception))\b(?::\s*(?P<msg>.*))?")


def _failure(why: str) -> str:
    """What a failing test failed on, short: "returns 401 (expected 200)", "got 3, expected 4",
    "KeyError", or the start of its message."""
    a = _ASSERT_RE.search(why)
    if a:
        if re.fullmatch(r"[1-5]\d\d", a.group("got")):
            return f"returns {a.group('got')} (expected {a.group('want')})"
        return f"got {a.group('got')}, expected {a.group('want')}"
    err = _ERROR_TYPE_RE.match(why)
    if err and err.group("type") != "AssertionError":
        return err.group("type")
    if err and err.group("msg"):
        return quote(err.group("msg"), 30)
    return quote(why, 30)


def _zh_test_run(text: str) -> list[Conclusion] | None:
    """A Chinese test summary: "测试结果：失败 3 个，通过 117 个（共 120 个）" and the failing
    tests it names, or None."""
    for line in _ZH_TOTAL_LINE_RE.findall(text):
        counts = {}
        for name, pattern in _ZH_COUNT_RE.items():
            m = pattern.search(line)
            if m:
                counts[name] = m.group(1) or m.group(2)
        if "failed" not in counts and "passed" not in counts:
            continue
        failed = int(counts.get("failed") or 0)
        said = "测试结果：" + "，".join(
            f"{label} {counts[key]} 个"
            for key, label in (("failed", "失败"), ("passed", "通过"))
            if key in counts
        )
        if "total" in counts:
            said += f"（共 {counts['total']} 个）"
        out = [Conclusion(short(said), "test run", "failed" if failed else "passed")]
        names = _ZH_FAILED_NAMES_RE.search(text)
        if names:
            tests = [t for t in re.split(r"[,，、;；\s]+", names.group("names")) if t][:3]
            while len(tests) > 1 and len(said + "；失败用例 " + "、".join(tests)) > ZH_MAX_CHARS:
                tests.pop()  # a Chinese fact stays within its length bound
            if tests:
                out[0] = Conclusion(
                    short(said + "；失败用例 " + "、".join(tests)),
                    "test run",
                    "failed",
                    tuple(tests),
                )
        return out
    return None


def test_run(text: str) -> list[Conclusion] | None:
    """The totals of a test run and each failing test, or None when ``text`` is not one."""
    zh = _zh_test_run(text) if re.search(r"[\u4e00-\u9fff]", text) else None
    if zh:
        return zh
    totals = None
    for m in _PYTEST_TOTAL_RE.finditer(text):
        line = text[text.rfind("\n", 0, m.start()) + 1 : text.find("\n", m.end()) % (len(text) + 1)]
        summary_like = "==" in line or " in " in m.group(0) or "," in m.group("parts").strip(", ")
        if summary_like and re.search(r"failed|passed", m.group("parts"), re.I):
            totals = m
    fails = (
        list(_PYTEST_FAIL_RE.finditer(text))
        or list(_CARGO_FAIL_RE.finditer(text))
        or list(_GENERIC_FAIL_RE.finditer(text))
    )
    cargo = list(_CARGO_TOTAL_RE.finditer(text))  # one line per test binary: summed
    if totals is None and not cargo and not fails:
        return None
    out: list[Conclusion] = []
    if cargo:
        failed_n = sum(int(m.group("failed")) for m in cargo)
        passed_n = sum(int(m.group("passed")) for m in cargo)
        verdict = "failed" if failed_n else "passed"
        out.append(
            Conclusion(f"Test run: {failed_n} failed, {passed_n} passed", "test run", verdict)
        )
    elif totals is not None:
        parts = totals.group("parts").strip(", ")
        failed = re.search(r"(\d+) failed", parts)
        out.append(
            Conclusion(short(f"Test run: {parts}"), "test run", "failed" if failed else "passed")
        )
    for m in fails[: MAX_CONCLUSIONS - len(out)]:
        test = m.group("test")
        # a Rust test is named by its module path; a pytest id by its last part
        name = test.strip() if m.re is _CARGO_FAIL_RE else test.split("::")[-1].strip()
        if m.re is _GENERIC_FAIL_RE and "/" in name:  # a package or a file
            if any(f.re is _GENERIC_FAIL_RE and "/" not in f.group("test") for f in fails):
                continue  # "FAIL  github.com/x/scheduler" after its tests' "--- FAIL: TestX"
            if len(name) > 30:  # a long path: its last part
                name = name.rstrip("/").rsplit("/", 1)[-1]
        why = (m.groupdict().get("why") or "").strip()
        detail = _failure(why) if why else ""
        line = f"{name} failed" + (f": {detail}" if detail else "")
        out.append(Conclusion(short(line), f"test {name}", "failed", (name,)))
    return out


#: The row-count line psql, MySQL and sqlite shells print under a table.
_ROWS_TRAILER_RE = re.compile(
    r"^\(?\d+ rows?\)?(?: in set.*)?$|^\(\d+ rows? affected\)$|^共\s*\d+\s*(?:行|条)(?:记录)?$",
    re.I,
)
_PERCENT_RE = re.compile(r"^(\d{1,3})(?:\.\d+)?%$")
#: Row states that need no look ("Running", "Up", "healthy", "正常"); any other is failing.
_OK_STATUS_RE = re.compile(
    r"^(?:running|up|ready|active|healthy|ok|completed|complete|succeeded|success|successful|"
    r"passed|pass|bound|available|enabled|online|synced|deployed|done|正常|运行中|健康|成功|已完成|在线)\b",
    re.I,
)


def _sliced(lines: list[str]) -> list[list[str]] | None:
    """Cells cut at the header's column starts, as ``docker ps`` and ``kubectl`` print them
    ("CONTAINER ID   IMAGE   ...   STATUS": a cell may hold single spaces, "Up 6 days"); None
    unless every row has a space just before each column start."""
    header = lines[0]
    starts = [0] + [m.end() for m in re.finditer(r"\s{2,}(?=\S)", header)]
    if len(starts) < 3:
        return None
    for line in lines[1:]:
        if any(0 < s < len(line) and line[s - 1] != " " for s in starts):
            return None
    bounds = list(zip(starts, starts[1:] + [None], strict=True))
    return [[line[a:b].strip() for a, b in bounds] for line in lines]


def _aligned(lines: list[str]) -> list[list[str]] | None:
    """Cells of a table printed in aligned columns ("NAME  READY  STATUS ..."): split on runs
    of two or more spaces, or on single spaces when every row then has as many cells as the
    header ("Filesystem Size Used Avail Use% Mounted on": the last header words joined)."""
    if len(lines) < 2 or any("|" in line or "\t" in line for line in lines):
        return None
    wide = [re.split(r"\s{2,}", line.strip()) for line in lines]
    if len(wide[0]) >= 2 and all(len(row) == len(wide[0]) for row in wide):
        return wide
    narrow = [line.split() for line in lines]
    width = len(narrow[1])
    if width < 2 or any(len(row) != width for row in narrow[1:]):
        return _sliced(lines)  # cells holding spaces: cut at the header's column starts
    header = narrow[0]
    if len(header) > width:  # "Mounted on": the trailing header words are one column
        header = header[: width - 1] + [" ".join(header[width - 1 :])]
    if len(header) != width or not all(re.match(r"^[A-Za-z%#][\w%#./-]*", h) for h in header):
        return None
    return [header, *narrow[1:]]


#: The table a SQL query read, when the shell echoed it ("SELECT ... FROM invoices WHERE ...").
_SQL_FROM_RE = re.compile(r"\bSELECT\b[^;|]*?\bFROM\s+([\w.]+)", re.I | re.S)
_SQL_PROMPT_RE = re.compile(r"^\s*(?:[\w.-]+[=\-(][>#]|mysql>|sqlite>|\s+->)\s")


def _cells(text: str) -> list[list[str]] | None:
    """The header row and the body rows of a table, or None."""
    lines = [line.rstrip() for line in text.strip().splitlines() if line.strip()]
    if lines and re.match(r"^[$>#] \S", lines[0]):  # the command line echoed ("$ df -h")
        lines = lines[1:]
    # a SQL shell's prompt and continuation lines ("analytics=> SELECT ...", "mysql> ...")
    lines = [line for line in lines if not _SQL_PROMPT_RE.match(line)]
    lines = [line for line in lines if not re.fullmatch(r"[\s|:+\-=]+", line)]
    lines = [line for line in lines if not _ROWS_TRAILER_RE.match(line.strip())]
    stripped = [line.strip().strip("|") for line in lines]
    lead = [] if not stripped else [stripped[0]] if not re.search(r"[|,\t]", stripped[0]) else []
    rows = stripped[len(lead) :]
    if len(rows) >= 2 and any(sep in rows[0] for sep in "|,\t"):
        sep = "|" if all("|" in r for r in rows) else "\t" if all("\t" in r for r in rows) else ","
        cells = [[c.strip() for c in r.split(sep)] for r in rows]
        if len(cells[0]) >= 2 and all(len(c) == len(cells[0]) for c in cells):
            return cells
        return None
    return _aligned(lines)


def table(text: str) -> list[Conclusion] | None:
    """A table's row count, statuses and ids, or None when ``text`` is not a table."""
    cells = _cells(text)
    if cells is None or len(cells) < 2:
        return None
    header, body = [h.lower() for h in cells[0]], cells[1:]
    status = next(
        (i for i, h in enumerate(header) if h in STATUS_KEYS or ZH_STATUS_RE.search(h)), None
    )
    ident = next(
        (i for i, h in enumerate(header) if h in ID_KEYS or h.endswith("id") or ZH_ID_RE.search(h)),
        0,
    )
    named = next((i for i, h in enumerate(header) if h in ("name", "names", "名称", "名字")), None)
    hashes = all(re.fullmatch(r"[0-9a-f]{10,}", row[ident]) for row in body)
    if named is not None and hashes:
        ident = named  # rows named by their name column ("redis"), not a container hash
    if status is not None:  # "Up 6 days" / "Exited (137) 3 hours ago": the state, not the age
        for row in body:
            row[status] = re.sub(r"\s+(?:about\s+)?(?:an?|\d+)\s+\w+(?:\s+ago)?$", "", row[status])
    said = f"Table of {len(body)} row{'s' if len(body) != 1 else ''}"
    source = _SQL_FROM_RE.search(text)  # the query echoed: "... FROM invoices WHERE ..."
    if source:
        said += f" from {source.group(1)}"
    percents = any(_PERCENT_RE.match(v) for v in body[0])
    if len(body) == 1 and status is None and len(header) <= 6 and not percents:
        # one row (a count, a sum): its values are the answer ("overdue_90 17")
        values = [f"{h} {v}" for h, v in zip(cells[0], body[0], strict=True) if v]
        if values and not secret_value(" ".join(values)):
            return [Conclusion(short(said + ": " + ", ".join(values)), "table", "")]
    ids = [row[ident] for row in body[:3] if row[ident]]
    more = len(body) > 3
    if status is not None:
        counts = Counter(row[status] for row in body)
        said += ": " + ", ".join(f"{n} {s}" for s, n in counts.most_common(4))
        top = counts.most_common(1)[0][0]
        rare = [row[ident] for row in body if row[status] != top and row[ident]]
        bad = [
            row[ident]
            for row in body
            if row[ident] and not _OK_STATUS_RE.match(row[status]) and not secret_value(row[ident])
        ]
        if len(counts) > 1 and 0 < len(bad) <= 3 and len(bad) < len(body):
            ids, more = bad, False  # the rows in a failing state ("CrashLoopBackOff")
        elif len(counts) > 1 and 0 < len(rare) <= 3 and len(body) > 3:
            ids, more = rare, False  # the rows an agent must look at
    high = [
        f"{row[ident]} {header[i]} {row[i]}"
        for i in range(len(header))
        for row in body
        if i != ident and (p := _PERCENT_RE.match(row[i])) and int(p.group(1)) >= 80
    ]
    if high:  # "/dev/sda1 use% 94%": a column of percentages, the high ones named
        said += "; " + ", ".join(high[:2])
    elif ids:
        said += " (" + ", ".join(ids) + (", …" if more else "") + ")"
    return [Conclusion(short(said), "table", "", tuple(ids[:3]))]


_LOG_PREFIX_RE = re.compile(
    r"^\s*(?:\[?\d{4}-\d{2}-\d{2}[T ][\d:.,]+\S*\]?\s*|\[?\d{2}:\d{2}:\d{2}(?:[.,]\d+)?\]?\s*)?"
    r"(?:\[?(?P<level>TRACE|DEBUG|INFO|NOTICE|WARN|WARNING|ERROR|ERR|FATAL|CRITICAL|SEVERE|PANIC)"
    r"\]?:?\s+)?",
)
_LOG_ERROR_LEVELS = frozenset({"ERROR", "ERR", "FATAL", "CRITICAL", "SEVERE", "PANIC"})
_SERVICE_RE = re.compile(r"^\[(?P<service>[\w.\-]{2,40})\]\s*|^(?P<name>[\w.\-]{2,40}):\s+")
_LOG_ID_RE = re.compile(
    r"(?:(?<=[=:# ])|^)(?P<id>[A-Z]{1,5}-?\d{2,}[\w-]*|\d{4,}|[a-f0-9]{7,12})(?=[\s,;)\]]|$)"
)


def log_errors(text: str) -> list[Conclusion] | None:
    """The errors of a log (two or more lines with a timestamp or a level, one at an error
    level): "2 errors logged by payment-service: Timeout calling Stripe API after 30s (O-7781)".
    None when ``text`` is not a log or logs no error."""
    lines = [line for line in text.splitlines() if line.strip()]
    levels: list[tuple[str, str]] = []
    for line in lines:
        m = _LOG_PREFIX_RE.match(line)
        if m and m.end() > 0 and (m.group("level") or re.match(r"\s*\[?\d", line)):
            levels.append(((m.group("level") or "").upper(), line[m.end() :].strip()))
    if len(levels) < 2 or len(levels) * 2 < len(lines):
        return None
    errors = [msg for level, msg in levels if level in _LOG_ERROR_LEVELS]
    if not errors:
        return None
    service = None
    ids: list[str] = []
    messages = []
    for msg in errors:
        s = _SERVICE_RE.match(msg)
        if s:
            service = service or s.group("service") or s.group("name")
            msg = msg[s.end() :]
        for m in _LOG_ID_RE.finditer(msg):
            if m.group("id") not in ids:
                ids.append(m.group("id"))
        messages.append(msg)
    first = re.sub(r"\s*\((?:[\w]+=[^)]*)\)\s*$", "", messages[0])  # "(order_id=O-7781)"
    said_ids = [i for i in ids[:3] if i not in quote(first)]
    zh = bool(re.search(r"[\u4e00-\u9fff]", first))
    if zh:
        said = f"日志记录了{len(errors)}条错误" + (f"（{service}）" if service else "")
        said += f"：{quote(first)}" + (f"（{'、'.join(said_ids)}）" if said_ids else "")
    else:
        noun = "error" if len(errors) == 1 else "errors"
        said = f"{len(errors)} {noun} logged" + (f" by {service}" if service else "")
        said += f": {quote(first)}" + (f" ({', '.join(said_ids)})" if said_ids else "")
    subject = f"log {service}" if service else "log"
    return [Conclusion(short(said), subject.lower(), "error", tuple(ids[:3]))]
