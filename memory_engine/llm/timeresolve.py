"""Relative dates resolved against the source's ``observed_at`` in the user's time zone.

docs/architecture.md#f6-relative-time: "last week" in a chat observed on 2023-05-24 means the week of
2023-05-15, not a week before today; "yesterday" written at 00:30 in UTC+9 is the user's
previous *local* day. Weeks start on Monday (ISO 8601).

Handled (Chinese and English): 今天/昨天/前天/大前天/明天/后天/大后天, N天前/N天后,
上周/下周/这周/本周 (+ 一..日), 上个月/下个月/这个月 (+ N号/日), 去年/今年/明年; today, yesterday, the day
before yesterday, tomorrow, the day after tomorrow, N days ago, in N days, last/next/this week,
last/next/this <weekday>, last/next/this month, last/next/this year. Bare weekdays ("周四",
"on Thursday") are left alone: they are usually recurring ("以后周四汇报"); ``until_date``
reads the one after "until"/"到"/"之前" as the end of a temporary state.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

_ZH_WD = {"一": 0, "二": 1, "三": 2, "四": 3, "五": 4, "六": 5, "日": 6, "天": 6}
_EN_WD = {
    d: i
    for i, d in enumerate(
        ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
    )
}
_ZH_DAY = {"大前天": -3, "前天": -2, "昨天": -1, "今天": 0, "明天": 1, "后天": 2, "大后天": 3}
_EN_DAY = {
    "the day before yesterday": -2,
    "yesterday": -1,
    "today": 0,
    "tomorrow": 1,
    "the day after tomorrow": 2,
}
_ZH_REL = {"上": -1, "下": 1, "这": 0, "本": 0}
_EN_REL = {"last": -1, "next": 1, "this": 0}
_ZH_YEAR = {"去年": -1, "今年": 0, "明年": 1}


@dataclass(frozen=True)
class TimeRef:
    """A resolved time expression: local dates ``start``..``end`` (inclusive)."""

    phrase: str
    start: date
    end: date
    replacement: str

    def start_utc(self, tz: ZoneInfo) -> datetime:
        """Start of ``start`` in the user's zone, as aware UTC."""
        return datetime.combine(self.start, time.min, tzinfo=tz).astimezone(UTC)

    def end_utc(self, tz: ZoneInfo) -> datetime:
        """End (exclusive: next midnight) of ``end`` in the user's zone, as aware UTC."""
        return datetime.combine(self.end + timedelta(days=1), time.min, tzinfo=tz).astimezone(UTC)


def local_today(observed_at: datetime, tz: ZoneInfo) -> date:
    """The user's local calendar day at ``observed_at`` (naive = UTC)."""
    if observed_at.tzinfo is None:
        observed_at = observed_at.replace(tzinfo=UTC)
    return observed_at.astimezone(tz).date()


def _monday(d: date) -> date:
    return d - timedelta(days=d.weekday())


def _month(d: date, offset: int) -> tuple[date, date]:
    m = d.month - 1 + offset
    year, month = d.year + m // 12, m % 12 + 1
    start = date(year, month, 1)
    nxt = date(year + (month == 12), month % 12 + 1, 1)
    return start, nxt - timedelta(days=1)


def _day(d: date, zh: bool, phrase: str) -> TimeRef:
    return TimeRef(phrase, d, d, d.isoformat())


def _week(d: date, zh: bool, phrase: str) -> TimeRef:
    start = _monday(d)
    text = f"{start.isoformat()}那周" if zh else f"in the week of {start.isoformat()}"
    return TimeRef(phrase, start, start + timedelta(days=6), text)


def _rules(today: date) -> list[tuple[re.Pattern[str], Callable[[re.Match[str]], TimeRef]]]:
    def zh_week_day(m: re.Match[str]) -> TimeRef:
        monday = _monday(today) + timedelta(weeks=_ZH_REL[m.group(1)])
        return _day(monday + timedelta(days=_ZH_WD[m.group(4)]), True, m.group(0))

    def zh_week(m: re.Match[str]) -> TimeRef:
        return _week(today + timedelta(weeks=_ZH_REL[m.group(1)]), True, m.group(0))

    def zh_month_day(m: re.Match[str]) -> TimeRef:
        start, end = _month(today, _ZH_REL[m.group(1)])
        day = min(int(m.group(2)), end.day)
        return _day(start.replace(day=day), True, m.group(0))

    def zh_month(m: re.Match[str]) -> TimeRef:
        start, end = _month(today, _ZH_REL[m.group(1)])
        return TimeRef(m.group(0), start, end, f"{start.year}年{start.month}月")

    def zh_year(m: re.Match[str]) -> TimeRef:
        y = today.year + _ZH_YEAR[m.group(0)]
        return TimeRef(m.group(0), date(y, 1, 1), date(y, 12, 31), f"{y}年")

    def zh_days(m: re.Match[str]) -> TimeRef:
        n = int(m.group(1)) * (-1 if m.group(2) == "前" else 1)
        return _day(today + timedelta(days=n), True, m.group(0))

    def en_week_day(m: re.Match[str]) -> TimeRef:
        rel, wd = _EN_REL[m.group(1).lower()], _EN_WD[m.group(2).lower()]
        if rel == -1:  # the most recent such day before today
            back = (today.weekday() - wd) % 7 or 7
            return _day(today - timedelta(days=back), False, m.group(0))
        monday = _monday(today) + timedelta(weeks=rel)
        return _day(monday + timedelta(days=wd), False, m.group(0))

    def en_week(m: re.Match[str]) -> TimeRef:
        return _week(today + timedelta(weeks=_EN_REL[m.group(1).lower()]), False, m.group(0))

    def en_month(m: re.Match[str]) -> TimeRef:
        start, end = _month(today, _EN_REL[m.group(1).lower()])
        return TimeRef(m.group(0), start, end, f"in {start.strftime('%B %Y')}")

    def en_year(m: re.Match[str]) -> TimeRef:
        y = today.year + _EN_REL[m.group(1).lower()]
        return TimeRef(m.group(0), date(y, 1, 1), date(y, 12, 31), f"in {y}")

    def en_ago(m: re.Match[str]) -> TimeRef:
        return _day(today - timedelta(days=int(m.group(1))), False, m.group(0))

    def en_in(m: re.Match[str]) -> TimeRef:
        return _day(today + timedelta(days=int(m.group(1))), False, m.group(0))

    wd_en = "|".join(_EN_WD)
    return [
        (re.compile(r"(上|下|这|本)(个)?(周|星期|礼拜)([一二三四五六日天])"), zh_week_day),
        (re.compile(r"(上|下|这|本)(个)?(周|星期|礼拜)"), zh_week),
        (re.compile(r"(上|下|这)个?月(\d{1,2})\s*[号日]"), zh_month_day),
        (re.compile(r"(上|下|这)个月"), zh_month),
        (re.compile(r"去年|今年|明年"), zh_year),
        (re.compile(r"(\d+)\s*天(前|后|以后|之后)"), zh_days),
        (
            re.compile("|".join(sorted(_ZH_DAY, key=len, reverse=True))),
            lambda m: _day(today + timedelta(days=_ZH_DAY[m.group(0)]), True, m.group(0)),
        ),
        (re.compile(rf"\b(last|next|this) ({wd_en})\b", re.I), en_week_day),
        (re.compile(r"\b(last|next|this) week\b", re.I), en_week),
        (re.compile(r"\b(last|next|this) month\b", re.I), en_month),
        (re.compile(r"\b(last|next|this) year\b", re.I), en_year),
        (re.compile(r"\b(\d+) days? ago\b", re.I), en_ago),
        (re.compile(r"\bin (\d+) days?\b", re.I), en_in),
        (
            re.compile("|".join(rf"\b{p}\b" for p in sorted(_EN_DAY, key=len, reverse=True)), re.I),
            lambda m: _day(today + timedelta(days=_EN_DAY[m.group(0).lower()]), False, m.group(0)),
        ),
    ]


def resolve_relative(text: str, observed_at: datetime, tz: ZoneInfo) -> tuple[str, list[TimeRef]]:
    """Replace relative time expressions in ``text`` by absolute dates.

    Returns:
        (text with each expression replaced, e.g. "昨天" -> "2023-05-23" or "last week" ->
        "the week of 2023-05-15"; the resolved references in order of appearance).
    """
    today = local_today(observed_at, tz)
    refs: list[tuple[int, TimeRef]] = []
    taken: list[tuple[int, int]] = []
    for pattern, build in _rules(today):
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            refs.append((m.start(), build(m)))
    refs.sort(key=lambda r: r[0])
    out = text
    for pos, ref in sorted(refs, key=lambda r: -r[0]):
        replacement = ref.replacement
        if (
            re.fullmatch(r"\d{4}-\d{2}-\d{2}", replacement)
            and not re.search(r"[\u4e00-\u9fff]", ref.phrase)
            and re.search(r"[A-Za-z]\s+$", out[:pos])
            and not re.search(r"\b(?:on|by|until|before|after|since|from|to)\s+$", out[:pos], re.I)
        ):
            replacement = "on " + replacement  # "met ACME today" -> "met ACME on 2026-12-01"
        out = out[:pos] + replacement + out[pos + len(ref.phrase) :]
    return out, [r for _, r in refs]


#: "until Friday", "till the weekend", "through Tuesday", "到周五", "直到周三", "周五之前".
_UNTIL_RE = re.compile(
    r"\b(?:until|till|til|through|thru)\s+(?:this\s+|next\s+)?(?P<en>monday|tuesday|wednesday|"
    r"thursday|friday|saturday|sunday|the weekend)\b|"
    r"(?:到|直到|一直到)(?:这|本)?(?:周|星期|礼拜)(?P<zh>[一二三四五六日天])|"
    r"(?:这|本)?(?:周|星期|礼拜)(?P<zh_before>[一二三四五六日天])(?:之前|以前|前)",
    re.I,
)


def until_date(
    text: str, refs: list[TimeRef], observed_at: datetime, tz: ZoneInfo
) -> datetime | None:
    """When a temporary state ends, as aware UTC (exclusive: the midnight after its last day):
    the date after "until"/"到"/"之前" — a resolved reference ("until tomorrow", "下周三之前":
    the end of that ref) or a bare weekday, the next one from the user's local day, today
    included ("until Friday" said on Sunday 2026-12-06 -> the end of Friday 2026-12-11; "the
    weekend" -> Sunday). None when ``text`` says no such end."""
    for ref in refs:
        before = text[: max(text.find(ref.replacement), 0)]
        if re.search(r"(?:\b(?:until|till|til|through|by)\s+|到|直到)$", before, re.I) or re.match(
            r"\s*(?:之前|以前|前|为止)", text[text.find(ref.replacement) + len(ref.replacement) :]
        ):
            return ref.end_utc(tz)
    m = _UNTIL_RE.search(text)
    if m is None:
        return None
    if m["en"]:
        day = 6 if m["en"].lower() == "the weekend" else _EN_WD[m["en"].lower()]
    else:
        day = _ZH_WD[m["zh"] or m["zh_before"]]
    today = local_today(observed_at, tz)
    last = today + timedelta(days=(day - today.weekday()) % 7)
    if m["zh_before"]:
        last -= timedelta(days=1)  # "周五之前": up to Thursday
        if last < today:
            return None
    return datetime.combine(last + timedelta(days=1), time.min, tzinfo=tz).astimezone(UTC)
