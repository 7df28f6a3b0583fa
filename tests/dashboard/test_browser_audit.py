"""Real-browser journey "audit a tenant", in English and 中文 (Playwright + Debian Chromium):
open Audit in the browser's time zone, filter the event log, open an event's diff, export the
log, erase a memory behind the typed confirmation, open and export its deletion receipt, and
reload the URL to the same view."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.frames import receipts
from memory_engine.dashboard.i18n import t
from tests.dashboard.browser import browser_page, needs_chromium
from tests.dashboard.conftest import new_tenant

pytestmark = needs_chromium
TZ = "Asia/Shanghai"


def pattern(key: str, lang: str) -> re.Pattern[str]:
    """A regex of the UI string ``key`` with every ``{field}`` matching any text."""
    parts = re.split(r"\{[a-z_]+\}", t(key, lang))
    return re.compile(".+".join(re.escape(p) for p in parts))


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_audit_a_tenant_in_browser(
    dashboard_server: str,  # noqa: F811
    dash_engine: MemoryEngine,
    tmp_path: Path,
    lang: str,
) -> None:
    from playwright.sync_api import expect

    tenant = new_tenant("braud")
    s = Scope.of(tenant)
    (mid,) = dash_engine.write(s, "Ann's favourite tea is sencha").memory_ids
    dash_engine.write(s, "Bob walks the dog at seven")
    dash_engine.update(
        s, mid, expected_version=1, content="Ann's favourite tea is gyokuro", reason="fix"
    )
    update_id = dash_engine.history(s, mid).items[-1].id

    with browser_page(width=1440, height=1400, timezone_id=TZ, accept_downloads=True) as page:
        page.goto(f"{dashboard_server}/audit?tenant={tenant}&lang={lang}")
        expect(page.get_by_role("heading", name=t("audit.events_header", lang))).to_be_visible()
        # the browser's time zone, read by the server (st.context.timezone)
        expect(page.get_by_text(t("audit.timezone", lang, tz=TZ))).to_be_visible()
        expect(page.get_by_text(t("audit.filtered", lang, n=3))).to_be_visible()

        # filter the log by action: the count and the URL follow
        facet = page.get_by_test_id("stMultiSelect").filter(  # 操作 is also in 操作者
            has=page.get_by_text(t("audit.facet_action", lang), exact=True)
        )
        facet.click()
        page.get_by_role("option", name=f"{t('value.action.update', lang)} (1)").click()
        page.keyboard.press("Escape")
        expect(page.get_by_text(t("audit.filtered", lang, n=1))).to_be_visible()
        expect(page).to_have_url(re.compile(r"action=update"))

        # open the update: only the changed fields, the time in Shanghai and in UTC
        chooser = page.get_by_test_id("stSelectbox").filter(has_text=t("audit.pick_event", lang))
        chooser.click()
        page.get_by_role("option", name=re.compile(rf"^#{update_id} ")).click()
        expect(page).to_have_url(re.compile(rf"event={update_id}"))
        expect(page.get_by_text(pattern("audit.changed_only", lang))).to_be_visible()
        summary = page.get_by_text(pattern("audit.event_summary", lang))
        expect(summary).to_contain_text("UTC+08:00")
        page.screenshot(path=str(tmp_path / f"audit_diff_{lang}.png"), full_page=True)

        # export the filtered log: content as stored, UTC time, before/after values
        with page.expect_download() as dl:
            page.get_by_role("button", name=t("audit.export_csv", lang)).first.click()
        text = Path(dl.value.path()).read_text(encoding="utf-8-sig")
        (row,) = list(csv.DictReader(io.StringIO(text)))
        assert row["action"] == "update" and row["at"].endswith("+00:00")
        assert row["at_local"].endswith("UTC+08:00")
        assert row["content"] == "Ann's favourite tea is gyokuro"
        assert json.loads(row["before"])["content"] == "Ann's favourite tea is sencha"

        # a reload of the URL shows the same view
        page.reload()
        expect(page.get_by_text(t("audit.filtered", lang, n=1))).to_be_visible()
        expect(page.get_by_text(pattern("audit.changed_only", lang))).to_be_visible()

        # erase the memory: preview, typed confirmation, receipt
        page.get_by_label(t("audit.timeline_id", lang), exact=True).fill(str(mid))
        page.get_by_label(t("audit.timeline_id", lang), exact=True).press("Enter")
        expect(page.get_by_text(pattern("audit.erase_total", lang))).to_be_visible()
        erase = page.get_by_role("button", name=t("audit.erase_button", lang))
        expect(erase).to_be_disabled()
        page.get_by_label(t("audit.erase_reason", lang), exact=True).fill("user asked")
        page.get_by_label(t("audit.erase_reason", lang), exact=True).press("Enter")
        code = page.get_by_label(t("audit.erase_confirm", lang, code=str(mid)[:8]), exact=True)
        code.fill(str(mid)[:8])
        code.press("Enter")
        expect(erase).to_be_enabled()
        erase.click()
        expect(page.get_by_text(t("audit.erase_done_ok", lang))).to_be_visible()
        expect(page.get_by_text(pattern("audit.receipt_summary_ok", lang))).to_be_visible()
        expect(page.get_by_text(t("audit.erase_gone", lang))).to_be_visible()
        # the receipt's table lists the indexes re-queried (canvas cells: the grid keeps a
        # DOM copy of the rows in view only, so the read paths below them are checked in
        # the exported receipt)
        for check in ("row", "vector"):
            cell = page.get_by_text(receipts.check_label(check, lang), exact=True)
            cell.first.wait_for(state="attached")
        page.screenshot(path=str(tmp_path / f"audit_receipt_{lang}.png"), full_page=True)

        with page.expect_download() as dl:
            page.get_by_role("button", name=t("audit.receipt_json", lang)).click()
        receipt = json.loads(Path(dl.value.path()).read_text(encoding="utf-8"))
        assert receipt["ok"] is True and receipt["memory_id"] == str(mid)
        assert {c["name"] for c in receipt["checks"]} >= {"row", "vector", "search", "as_of"}

        # the receipt is a URL too: a reload opens it again
        page.reload()
        expect(page.get_by_text(pattern("audit.receipt_summary_ok", lang))).to_be_visible()

    proof = dash_engine.history(s, mid).items[-1]
    assert proof.action.value == "purge_proof" and proof.details == receipt
    assert "gyokuro" not in json.dumps(receipt) and "sencha" not in json.dumps(receipt)
