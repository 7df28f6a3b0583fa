"""Pure frames of the Audit page: times in a chosen zone, the changed fields of an event, the
word diff of a content change, the timeline's range, and a receipt's rows and exports."""

from __future__ import annotations

import csv
import io
import json
import uuid
from datetime import UTC, datetime, timedelta

from memory_engine.dashboard.frames import audit as view
from memory_engine.dashboard.frames import receipts
from memory_engine.dashboard.i18n import t
from memory_engine.models import Event, EventAction


def _event(at: datetime, before: dict[str, object] | None, after: dict[str, object]) -> Event:
    return Event(
        id=7,
        tenant_id="t",
        memory_id=uuid.uuid4(),
        action=EventAction.UPDATE,
        actor="dashboard:ann",
        at=at,
        before=before,
        after=after,
        reason="fix",
    )


def test_local_time_and_zone() -> None:
    when = datetime(2026, 12, 1, 5, 1, 18, 674179, tzinfo=UTC)
    assert view.local_time(when, view.zone("Asia/Shanghai")) == "2026-12-01 13:01:18 UTC+08:00"
    assert view.local_time(when, view.zone("America/New_York")) == "2026-12-01 00:01:18 UTC-05:00"
    assert view.local_time(when.isoformat(), view.zone(None)) == "2026-12-01 05:01:18 UTC+00:00"
    assert view.zone("Not/AZone") is UTC and view.local_time(None, UTC) == ""


def test_rows_carry_content_changed_fields_and_both_times() -> None:
    at = datetime(2026, 12, 1, 20, 0, tzinfo=UTC)
    before = {"content": "tea is sencha", "importance": 0.5, "version": 1}
    after = {"content": "tea is gyokuro", "importance": 0.5, "version": 2}
    (row,) = view.event_rows([_event(at, before, after)], view.zone("Asia/Shanghai"))
    assert row["at"] == at.isoformat() and row["at_local"].endswith("UTC+08:00")
    assert row["day"] == "2026-12-02"  # the viewer's day, not UTC's
    assert row["content"] == "tea is gyokuro" and row["changed"] == ["content", "version"]
    assert row["before"] == {"content": "tea is sencha", "version": 1}
    diff = view.diff_frame(_event(at, before, after), "zh")
    assert list(diff[t("col.field", "zh")]) == ["content", "version"]  # importance unchanged
    assert len(view.diff_frame(_event(at, before, after), "en", all_fields=True)) == 3
    text = view.export_bytes([row], "csv").decode("utf-8-sig")
    (parsed,) = list(csv.DictReader(io.StringIO(text)))
    assert json.loads(parsed["after"]) == {"content": "tea is gyokuro", "version": 2}


def test_text_diff_words_and_han_characters() -> None:
    assert view.text_diff("tea is sencha", "tea is gyokuro") == [
        ("=", "tea is "),
        ("-", "sencha"),
        ("+", "gyokuro"),
    ]
    assert view.text_diff("安喜欢绿茶", "安喜欢红茶") == [
        ("=", "安喜欢"),
        ("-", "绿"),
        ("+", "红"),
        ("=", "茶"),
    ]


def test_timeline_range_spans_its_events() -> None:
    t0 = datetime(2026, 12, 1, 5, 0, tzinfo=UTC)
    events = [_event(t0, None, {}), _event(t0 + timedelta(minutes=10), None, {})]
    assert view.timeline_range(events) == (t0 - timedelta(minutes=1), t0 + timedelta(minutes=11))
    assert view.timeline_range(events[:1]) == (t0 - timedelta(hours=1), t0 + timedelta(hours=1))
    assert view.timeline_range([]) is None


def test_receipt_rows_frame_and_exports() -> None:
    details = {
        "memory_id": "m1",
        "tenant_id": "t",
        "at": "2026-12-01T05:00:00+00:00",
        "ok": False,
        "checks": [
            {"name": "row", "kind": "index", "before": 1, "after": 0, "ok": True, "error": None},
            {"name": "search", "kind": "read_path", "before": 1, "after": 1, "ok": False},
        ],
    }
    assert receipts.is_receipt(details) and not receipts.is_receipt({"ok": True})
    frame = receipts.receipt_frame(details, "zh")
    assert list(frame[t("audit.col_place", "zh")]) == [
        t("audit.check_row", "zh"),
        t("audit.check_search", "zh"),
    ]
    assert list(frame[t("audit.col_result", "zh")]) == [
        t("audit.pass", "zh"),
        t("audit.fail", "zh"),
    ]
    rows = list(
        csv.DictReader(io.StringIO(receipts.receipt_export(details, "csv").decode("utf-8-sig")))
    )
    assert [r["check"] for r in rows] == ["row", "search"] and rows[1]["ok"] == "False"
    assert json.loads(receipts.receipt_export(details, "json")) == details
    assert receipts.check_label("new_place", "en") == "new_place"


def test_a_link_s_time_zone_and_event_id_are_read_safely() -> None:
    """``?tz=`` and ``?event=`` hold whatever a link says: a zone name too long for a file name
    (OSError) and digits ``int`` refuses (``²``, 5,000 digits) once stopped the Audit page."""
    from datetime import UTC

    from memory_engine.dashboard.frames.audit import event_id, zone

    for name in ("x" * 5000, "9" * 300, "../../etc/passwd", "中文", "UTC\x00", ""):
        assert zone(name) is UTC, name
    assert str(zone("Asia/Shanghai")) == "Asia/Shanghai"
    for raw in ("²", "9" * 5000, "١٢", "-1", "1.5", " ", None, "12a"):
        assert event_id(raw) is None, raw
    assert event_id(" 42 ") == 42
