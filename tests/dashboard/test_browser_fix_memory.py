"""Real browser, English and 中文: the "fix a bad memory" journey on the Memories page.

Find the memory with a filter, page to it, reload (filter and page come back from the URL),
step back (the back button walks the views), open it and reload (the same memory is shown),
preview the fix (the diff), save it with a reason (the history shows the edit, also after a
reload), delete it (the page asks first), undo the delete from the flash message, then archive
two rows of a page in one bulk action (the table shows them archived). What the user sees is
asserted, and the database is read back.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, MemoryFilter, MemoryStatus, Scope
from memory_engine.dashboard.i18n import t
from tests.dashboard.browser import browser_page, needs_chromium, pick_option, streamlit_server

pytestmark = needs_chromium


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_fix_a_bad_memory(
    lang: str,
    dashboard_env: dict[str, str],
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant(extra=26)  # 26 conversation notes: pages of 25 + 1
    scope = Scope.of(tenant)
    notes = MemoryFilter(text_contains="Conversation note")
    first_page = dash_engine.list(scope, filters=notes, limit=25)
    (target,) = dash_engine.list(
        scope, filters=notes, limit=25, cursor=first_page.next_cursor
    ).items
    number = re.search(r"number (\d+)", target.content).group(1)  # type: ignore[union-attr]
    fixed = f"Conversation note number {number} about the vegetable garden"
    bulk = [m for m in first_page.items[:2]]

    def rows(first: int, last: int) -> str:
        return t("memories.rows", lang, first=first, last=last, total=26)

    with (
        streamlit_server(dashboard_env, tmp_path) as url,
        browser_page(width=1400, height=1200) as page,
    ):
        page.goto(f"{url}/memories?tenant={tenant}&lang={lang}")
        expect(
            page.get_by_text(t("memories.rows", lang, first=1, last=25, total=30))
        ).to_be_visible()

        # find it by a filter, then page to it: both land in the URL
        search = page.get_by_label(t("memories.filter_text", lang), exact=True)
        search.fill("Conversation note")
        search.press("Enter")
        expect(page.get_by_text(rows(1, 25))).to_be_visible()
        expect(page).to_have_url(re.compile(r"q=Conversation(\+|%20)note"))
        page.get_by_role("button", name=t("memories.next", lang)).click()
        expect(page.get_by_text(rows(26, 26))).to_be_visible()
        expect(page).to_have_url(re.compile(r"page=2"))

        # a reload shows the same view; back walks to the page before
        page.reload()
        expect(page.get_by_text(rows(26, 26))).to_be_visible()
        expect(page.get_by_label(t("memories.filter_text", lang), exact=True)).to_have_value(
            "Conversation note"
        )
        page.go_back()
        expect(page.get_by_text(rows(1, 25))).to_be_visible()
        page.go_forward()
        expect(page.get_by_text(rows(26, 26))).to_be_visible()

        # open it, fix its content with a reason
        chooser = page.get_by_test_id("stSelectbox").filter(has_text=t("memories.select", lang))
        pick_option(page, chooser, f"number {number}", f"number {number}")
        expect(page).to_have_url(re.compile(f"memory={target.id}"))
        heading = page.get_by_role(
            "heading", name=t("memories.detail", lang, short_id=str(target.id)[:8])
        )
        expect(heading).to_be_visible()

        # a reload of that URL shows the same view: filter, page and the memory
        page.reload()
        expect(heading).to_be_visible()
        expect(page.get_by_text(rows(26, 26))).to_be_visible()
        expect(page.get_by_label(t("memories.filter_text", lang), exact=True)).to_have_value(
            "Conversation note"
        )
        form = page.get_by_test_id("stForm")
        content = form.get_by_label(t("memories.content", lang))
        expect(content).to_have_value(target.content)

        # preview the fix: the diff shows the old and the new line
        content.fill(fixed)
        form.get_by_label(t("memories.reason", lang)).fill("wrong garden")
        form.get_by_role("button", name=t("memories.preview", lang), exact=True).click()
        diff = page.get_by_test_id("stCode")
        expect(diff).to_contain_text(f"-{target.content}")
        expect(diff).to_contain_text(f"+{fixed}")
        assert dash_engine.get(scope, target.id).version == 1  # a preview changes nothing
        form.get_by_role("button", name=t("memories.save", lang), exact=True).click()
        expect(page.get_by_text(t("memories.saved", lang, version=2))).to_be_visible()
        # the reason typed for the edit is still there for the next action
        expect(
            page.locator(".st-key-mi_lifecycle").get_by_label(t("memories.lifecycle_reason", lang))
        ).to_have_value("wrong garden")

        # the history shows the edit with its reason; a reload shows the fixed content
        history_reason = page.locator("td[role=gridcell]", has_text="wrong garden")
        expect(history_reason.first).to_be_attached()
        page.reload()
        expect(
            page.get_by_test_id("stForm").get_by_label(t("memories.content", lang))
        ).to_have_value(fixed)
        expect(history_reason.first).to_be_attached()
        expect(
            page.locator("td[role=gridcell]", has_text=t("value.action.update", lang)).first
        ).to_be_attached()
        page.screenshot(path=str(tmp_path / f"fix_memory_edited_{lang}.png"), full_page=True)

        # delete: the page asks first (a reload started a new session: type the reason)
        lifecycle = page.locator(".st-key-mi_lifecycle")
        lifecycle.get_by_label(t("memories.lifecycle_reason", lang)).fill("wrong garden")
        lifecycle.get_by_role("button", name=t("memories.delete", lang), exact=True).click()
        expect(page.get_by_text(t("memories.confirm_yes", lang))).to_be_visible()
        assert dash_engine.get(scope, target.id).status is MemoryStatus.ACTIVE
        page.get_by_role("button", name=t("memories.confirm_yes", lang)).click()
        deleted = t("value.status.deleted", lang)
        expect(
            page.get_by_text(t("memories.status_changed", lang, status=deleted, version=3))
        ).to_be_visible()
        expect(page.get_by_text(t("memories.deleted_note", lang))).to_be_visible()
        assert dash_engine.get(scope, target.id).status is MemoryStatus.DELETED
        page.screenshot(path=str(tmp_path / f"fix_memory_deleted_{lang}.png"), full_page=True)

        # undo it from the flash message
        undo = t("memories.undo", lang, action=t("value.action.delete", lang))
        page.get_by_role("button", name=undo).first.click()  # the flash message's
        expect(
            page.get_by_text(t("memories.undone", lang, n=1, action=t("value.action.delete", lang)))
        ).to_be_visible()
        restored = dash_engine.get(scope, target.id)
        assert (restored.status, restored.content) == (MemoryStatus.ACTIVE, fixed)

        # back to page 1, archive two rows in one bulk action
        page.get_by_role("button", name=t("memories.prev", lang)).click()
        expect(page.get_by_text(rows(1, 25))).to_be_visible()
        panel = page.locator(".st-key-mi_bulk")
        picker = panel.get_by_test_id("stMultiSelect")
        for memory in bulk:
            pick_option(page, picker, str(memory.id)[:8], str(memory.id)[:8], multi=True)
        apply = panel.get_by_role("button", name=t("memories.bulk_apply", lang, n=2))
        expect(apply).to_be_enabled()
        apply.click()
        expect(page.get_by_text(t("memories.archived_n", lang, n=2))).to_be_visible()
        archived = t("value.status.archived", lang)
        table = page.get_by_test_id("stDataFrame").first
        for memory in bulk:  # the table shows both rows archived
            row = table.locator("tr", has_text=str(memory.id))
            expect(row.locator("td[role=gridcell]", has_text=archived)).to_be_attached()
        page.screenshot(path=str(tmp_path / f"fix_memory_bulk_{lang}.png"), full_page=True)

    assert {dash_engine.get(scope, m.id).status for m in bulk} == {MemoryStatus.ARCHIVED}
    for memory in bulk:
        last = dash_engine.history(scope, memory.id).items[-1]
        assert (last.action.value, last.reason) == ("archive", "wrong garden")
