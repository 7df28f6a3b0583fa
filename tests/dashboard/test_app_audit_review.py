"""The reviewer's Audit page (AppTest, real engine + PostgreSQL): content as stored, times in
the viewer's zone with UTC in the exports, a diff of only the changed fields, exports with
before/after values, a timeline scaled to its events, the view in the URL, and a verified
erasure with its deletion receipt (preview, typed confirmation, receipt, exports), in English
and 中文."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Callable
from datetime import datetime

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.frames import audit as audit_view
from memory_engine.dashboard.frames import receipts as receipt_view
from memory_engine.dashboard.i18n import t
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, button, run_app, texts

AUDIT = "pages/audit.py"
TZ = "Asia/Shanghai"


@pytest.fixture
def exports(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The bytes the page hands to its download buttons, by format (event log and receipt)."""
    seen: dict[str, bytes] = {}
    real_log: Callable[..., bytes] = audit_view.export_bytes
    real_receipt: Callable[..., bytes] = receipt_view.receipt_export

    def log(rows: object, fmt: str) -> bytes:
        seen[fmt] = real_log(rows, fmt)
        return seen[fmt]

    def receipt(details: object, fmt: str) -> bytes:
        seen[f"receipt_{fmt}"] = real_receipt(details, fmt)
        return seen[f"receipt_{fmt}"]

    monkeypatch.setattr(audit_view, "export_bytes", log)
    monkeypatch.setattr(receipt_view, "receipt_export", receipt)
    return seen


def _frame(at: object, header: str) -> object:
    found = [d.value for d in at.dataframe if header in d.value.columns]  # type: ignore[attr-defined]
    assert found, [list(d.value.columns) for d in at.dataframe]  # type: ignore[attr-defined]
    return found[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_reviewer_reads_diffs_exports_and_erases_with_a_receipt(
    dash_engine: MemoryEngine, exports: dict[str, bytes], lang: str
) -> None:
    tenant = new_tenant("audrev")
    s = Scope.of(tenant)
    (mid,) = dash_engine.write(s, "Ann's favourite tea is sencha").memory_ids
    dash_engine.write(s, "Bob walks the dog at seven")
    dash_engine.update(
        s, mid, expected_version=1, content="Ann's favourite tea is gyokuro", reason="fix"
    )
    update = dash_engine.history(s, mid).items[-1]

    at = run_app(page=AUDIT, tenant=tenant, lang=lang, tz=TZ, memory=str(mid))
    col = {k: t(f"audit.col_{k}", lang) for k in audit_view.TABLE_COLUMNS}
    events = _frame(at, col["memory_id"])
    assert list(events.columns) == list(col.values())  # type: ignore[attr-defined]
    assert list(events[col["action"]]) == [  # type: ignore[index]
        t(f"value.action.{a}", lang) for a in ("update", "create", "create")
    ]
    assert events[col["content"]].iloc[0] == "Ann's favourite tea is gyokuro"  # type: ignore[index]
    local = events[col["at_local"]].iloc[0]  # type: ignore[index]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC\+08:00", local), local
    assert t("audit.timezone", lang, tz=TZ) in texts(at.caption)

    # exports: UTC and local time, content, the changed fields before and after
    rows = list(csv.DictReader(io.StringIO(exports["csv"].decode("utf-8-sig"))))
    assert list(rows[0]) == list(audit_view.AUDIT_CSV_FIELDS)
    first = rows[0]
    assert datetime.fromisoformat(first["at"]).utcoffset().total_seconds() == 0  # type: ignore[union-attr]
    assert first["at_local"] == local and first["content"] == "Ann's favourite tea is gyokuro"
    assert "content" in json.loads(first["changed"])
    assert json.loads(first["before"])["content"] == "Ann's favourite tea is sencha"
    assert json.loads(first["after"])["content"] == "Ann's favourite tea is gyokuro"
    as_json = json.loads(exports["json"])
    assert as_json[0]["before"]["content"] == "Ann's favourite tea is sencha"

    # filter and pick the update: both land in the URL; only changed fields are listed
    at.multiselect(key="mi_audit_action").set_value(["update"]).run()
    assert t("audit.filtered", lang, n=1) in texts(at.caption)
    at.selectbox(key="mi_audit_event").set_value(update.id).run()
    assert_clean(at)
    assert at.query_params["action"] == "update" and at.query_params["event"] == str(update.id)
    diff = _frame(at, t("col.field", lang))
    fields = list(diff[t("col.field", lang)])  # type: ignore[index]
    assert "content" in fields and "importance" not in fields and "tenant_id" not in fields
    every = set(update.before or {}) | set(update.after or {})
    hidden = len(every) - len(fields)
    assert hidden > 10  # ~25 fields in a snapshot, a handful changed
    assert t("audit.changed_only", lang, n=len(fields), hidden=hidden) in texts(at.caption)
    (inline,) = [m.value for m in at.markdown if t("audit.content_diff", lang) in m.value]
    assert "~~sencha~~" in inline and ":green-background[gyokuro]" in inline

    # a reload of the URL shows the same view
    again = run_app(
        page=AUDIT, tenant=tenant, lang=lang, tz=TZ, action="update", event=str(update.id)
    )
    assert again.multiselect(key="mi_audit_action").value == ["update"]
    assert again.selectbox(key="mi_audit_event").value == update.id
    assert t("audit.filtered", lang, n=1) in texts(again.caption)

    # the timeline's axis spans its two events (not years)
    (spec,) = [
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if "mi_audit_timeline" in c.proto.id
    ]
    lo, hi = (datetime.fromisoformat(x) for x in spec["layout"]["xaxis"]["range"])
    assert (hi - lo).total_seconds() < 3600 * 3

    # verified erasure: preview, typed confirmation, then the receipt is opened
    preview = _frame(at, t("audit.col_count", lang))
    counts = dict(
        zip(preview[t("audit.col_place", lang)], preview[t("audit.col_count", lang)], strict=True)
    )  # type: ignore[index]
    assert counts[t("audit.check_row", lang)] == 1 and counts[t("audit.check_vector", lang)] == 1
    erase = button(at, t("audit.erase_button", lang))
    assert erase.disabled
    at.text_input(key="mi_audit_erase_reason").input("user asked").run()
    at.text_input(key="mi_audit_erase_code").input("wrong").run()
    assert button(at, t("audit.erase_button", lang)).disabled  # the typed code must match
    at.text_input(key="mi_audit_erase_code").input(str(mid)[:8]).run()
    button(at, t("audit.erase_button", lang)).click().run()
    assert_clean(at)
    assert t("audit.erase_done_ok", lang) in texts(at.success)
    receipt = _frame(at, t("audit.col_result", lang))
    results = set(receipt[t("audit.col_result", lang)])  # type: ignore[index]
    assert results == {t("audit.pass", lang)}
    places = list(receipt[t("audit.col_place", lang)])  # type: ignore[index]
    assert t("audit.check_search", lang) in places and t("audit.check_as_of", lang) in places
    proof = dash_engine.history(s, mid).items[-1]
    assert proof.action.value == "purge_proof" and at.query_params["event"] == str(proof.id)
    assert json.loads(exports["receipt_json"]) == proof.details
    checks = list(csv.DictReader(io.StringIO(exports["receipt_csv"].decode("utf-8-sig"))))
    assert {r["check"] for r in checks} >= {"row", "vector", "get", "search", "as_of"}
    assert all(r["after"] == "0" and r["ok"] == "True" for r in checks)
    assert t("audit.erase_gone", lang) in texts(at.caption)
    assert "sencha" not in json.dumps(proof.details) and "gyokuro" not in json.dumps(proof.details)
