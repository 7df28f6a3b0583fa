"""Real browser (Playwright + Debian Chromium): on every page other than Memories (its own test:
test_browser_fix_memory.py), set a piece of view state the way a user does, see it in the URL,
reload the URL and find the same view: the language (Overview), a search with every score shown
(Query Replay), the retention formula (Retention), an event-log filter (Audit), a context
preview (Context Preview), a write trail (Write Inspector), a review decision (Conflicts), the
evaluation settings of a shared link (Write Evaluation) and the probe tenants (Isolation)."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine
from memory_engine.dashboard.i18n import t
from tests.dashboard.browser import browser_page, needs_chromium
from tests.dashboard.test_browser_write import journal_env

pytestmark = needs_chromium

__all__ = ["journal_env"]

ZH = "zh"


def _settle(page: Any) -> None:
    """Wait for the script run to end (Streamlit's running icon gone)."""
    page.locator("h1").first.wait_for(state="visible", timeout=60_000)
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidgetRunningIcon\"]')",
        timeout=60_000,
    )


def _reload(page: Any) -> None:
    url = page.url
    page.reload()
    _settle(page)
    assert page.url == url  # the reload kept the whole view in the URL


def _widget(page: Any, test_id: str, label: str) -> Any:
    return page.get_by_test_id(test_id).filter(has_text=label)


def _choice(page: Any, label: str) -> Any:
    """The shown choice of a selectbox: Streamlit 1.67 draws it as a combobox input's value."""
    return _widget(page, "stSelectbox", label).get_by_role("combobox")


def test_every_page_shows_the_same_view_after_a_reload(
    journal_env: Path,  # noqa: F811 - the server's write journal (conflicts)
    dashboard_server: str,  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
) -> None:
    from playwright.sync_api import expect

    tenant = make_tenant(extra=3)
    base = f"{dashboard_server}/{{}}?tenant={tenant}&lang={ZH}"
    with browser_page(width=1440, height=1600) as page:
        # Overview: the language chosen in the sidebar
        page.goto(f"{dashboard_server}/overview?tenant={tenant}&lang=en")
        _settle(page)
        page.get_by_test_id("stSidebar").get_by_text("中文", exact=True).click()
        expect(page).to_have_url(re.compile(r"lang=zh"))
        _settle(page)
        _reload(page)
        expect(page.get_by_role("heading", name=t("overview.title", ZH))).to_be_visible()
        expect(page.get_by_text(t("overview.tenant_header", ZH, tenant=tenant))).to_be_visible()

        # Query Replay: a search, every score and rank shown
        page.goto(base.format("query_replay"))
        _settle(page)
        page.get_by_label(t("replay.query", ZH), exact=True).fill("green tea")
        page.get_by_role("button", name=t("replay.run", ZH)).click()
        expect(page).to_have_url(re.compile(r"trace=[0-9a-f-]{36}"))
        _settle(page)
        _widget(page, "stCheckbox", t("replay.show_all", ZH)).click()
        expect(page).to_have_url(re.compile(r"all=1"))
        _settle(page)
        _reload(page)
        expect(page.get_by_label(t("replay.query", ZH), exact=True)).to_have_value("green tea")
        expect(
            _widget(page, "stCheckbox", t("replay.show_all", ZH)).locator("input")
        ).to_be_checked()

        # Retention: the what-if formula
        page.goto(base.format("retention"))
        _settle(page)
        weighted = t("retention.preset_weighted", ZH)
        _widget(page, "stSelectbox", t("retention.preset", ZH)).click()
        page.get_by_role("option", name=weighted).click()
        expect(page).to_have_url(re.compile(r"preset=weighted"))
        _settle(page)
        _reload(page)
        expect(_choice(page, t("retention.preset", ZH))).to_have_value(weighted)

        # Audit: a filter of the event log
        page.goto(base.format("audit"))
        _settle(page)
        facet = page.get_by_test_id("stMultiSelect").filter(
            has=page.get_by_text(t("audit.facet_action", ZH), exact=True)
        )
        facet.click()
        page.get_by_role("option").first.click()
        page.keyboard.press("Escape")
        expect(page).to_have_url(re.compile(r"action="))
        _settle(page)
        count = re.escape(t("audit.filtered", ZH, n=999)).replace("999", r"\d+")
        shown = page.get_by_text(re.compile(count)).inner_text()
        _reload(page)
        expect(page.get_by_text(shown, exact=True)).to_be_visible()
        expect(facet).to_contain_text(re.compile(r"\(\d+\)"))  # the chosen facet value

        # Context Preview: a pasted conversation and an input, previewed
        page.goto(base.format("context_preview"))
        _settle(page)
        form = page.get_by_test_id("stForm")
        form.get_by_label(t("ctx.paste", ZH), exact=True).fill(
            "user: I am cooking for Ann tonight\nassistant: What will you cook?"
        )
        form.get_by_label(t("ctx.query", ZH), exact=True).fill("Is Ann allergic?")
        form.get_by_role("button", name=t("ctx.run", ZH)).click()
        expect(page).to_have_url(re.compile(r"q=Is"))
        expect(page.get_by_role("heading", name=t("ctx.sections", ZH))).to_be_visible()
        total = page.get_by_test_id("stMetricValue").first.inner_text()
        _settle(page)
        _reload(page)
        expect(form.get_by_label(t("ctx.query", ZH), exact=True)).to_have_value("Is Ann allergic?")
        expect(page.get_by_role("heading", name=t("ctx.sections", ZH))).to_be_visible()
        expect(page.get_by_test_id("stMetricValue").first).to_have_text(total)

        # Write Inspector: two real writes (the second supersedes), the last trail shown
        page.goto(base.format("write_inspector"))
        _settle(page)
        form = page.get_by_test_id("stForm")
        form.get_by_text(t("write.dry_run", ZH)).click()  # untick: real writes
        before = page.url
        for text in ("以后周四汇报", "改成周五汇报"):
            form.get_by_label(t("write.text", ZH), exact=True).fill(text)
            form.get_by_role("button", name=t("write.run", ZH)).click()
            expect(page).not_to_have_url(before)  # a new trail: its write id in the URL
            expect(page).to_have_url(re.compile(r"write=[0-9a-f-]{36}"))
            _settle(page)
            before = page.url
        write_id = re.search(r"write=([0-9a-f-]{36})", page.url).group(1)  # type: ignore[union-attr]
        _reload(page)
        expect(page.get_by_text(write_id).first).to_be_visible()
        expect(_choice(page, t("write.open", ZH))).to_have_value(
            re.compile(re.escape(write_id[:8]))
        )

        # Conflicts: the review decision of the supersede just made
        page.goto(base.format("conflicts"))
        _settle(page)
        reject = t("conflicts.reject", ZH)
        page.get_by_test_id("stRadio").get_by_text(reject).click()
        expect(page).to_have_url(re.compile(r"decision=reject"))
        _settle(page)
        _reload(page)
        expect(page.get_by_role("radio", name=reject)).to_be_checked()

        # Write Evaluation: a shared link with the settings of an evaluation
        page.goto(base.format("write_eval") + "&split=heldout&limit=2&model_b=my-model")
        _settle(page)
        _reload(page)
        expect(_choice(page, t("weval.split", ZH))).to_have_value(t("weval.split_heldout", ZH))
        expect(page.get_by_label(t("weval.limit", ZH))).to_have_value("2")
        expect(page.get_by_label(t("weval.model", ZH)).nth(1)).to_have_value("my-model")

        # Isolation: the number of probe tenants, moved with the keyboard
        page.goto(base.format("isolation"))
        _settle(page)
        slider = page.get_by_role("slider")
        slider.focus()
        page.keyboard.press("ArrowRight")
        expect(page).to_have_url(re.compile(r"tenants=4"))
        _settle(page)
        _reload(page)
        expect(page.get_by_role("slider")).to_have_value("4")  # an input of type range
        page.screenshot(path=str(tmp_path / "isolation_reloaded.png"), full_page=True)
