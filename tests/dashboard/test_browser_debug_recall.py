"""Real-browser journey "debug a recall", in English and 中文: search on Query Replay, see the
order explained (the deciding score column, a candidate's score waterfall chart with the fusion
actually used), open another candidate's waterfall (in the URL: a reload shows it again), the
memory block the agent gets, the block accounting with the near misses, the rule that cut them
and what would include them, and a stale-fact warning whose link opens the older memory's
history on the Memories page."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from memory_engine import MemoryEngine
from memory_engine.dashboard.frames.cells import short_id
from memory_engine.dashboard.i18n import t
from tests.dashboard.browser import browser_page, needs_chromium
from tests.dashboard.test_app_replay_waterfall import NEWER, OLDER, QUERY, recall_tenant

pytestmark = needs_chromium


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_debug_a_recall_in_browser(
    dashboard_server: str,  # noqa: F811
    dash_engine: MemoryEngine,
    tmp_path: Path,
    lang: str,
) -> None:
    from playwright.sync_api import expect

    tenant, (older, newer) = recall_tenant(dash_engine)

    with browser_page(width=1440, height=2400) as page:
        page.goto(f"{dashboard_server}/query_replay?tenant={tenant}&lang={lang}")
        box = page.get_by_label(t("replay.query", lang), exact=True)
        box.fill(QUERY)
        page.get_by_label(t("replay.k", lang)).fill("3")  # 10 memories: 7 just miss
        page.get_by_role("button", name=t("replay.run", lang)).click()
        expect(page).to_have_url(re.compile(r"trace="))

        # the order explained: the deciding score's caption and the waterfall chart
        expect(page.get_by_text(t("replay.waterfall", lang), exact=False).first).to_be_visible()
        base = t("wf.base.session", lang)
        caption = t("replay.order_caption", lang, base=base, fusion="zscore")
        expect(page.get_by_text(caption)).to_be_visible()
        charts = page.get_by_test_id("stPlotlyChart")
        expect(charts).to_have_count(2)  # timings and the waterfall
        waterfall_chart = charts.nth(0)
        fusion_tick = t("wf.stage.fuse", lang, name="zscore")
        expect(waterfall_chart.get_by_text(fusion_tick).first).to_be_attached()
        expect(
            waterfall_chart.get_by_text(t("wf.stage.leg", lang, name="dense")).first
        ).to_be_attached()

        # another candidate's waterfall: picked in the details panel, kept in the URL
        details = page.get_by_test_id("stSelectbox").filter(
            has_text=t("replay.pick_candidate", lang)
        )
        details.click()
        page.get_by_role("option", name=re.compile(re.escape(NEWER[:40]))).click()
        expect(page).to_have_url(re.compile(rf"cand={newer}"))
        full = f"{t('replay.full_content', lang)}: {NEWER}"
        expect(page.get_by_text(full, exact=True)).to_be_visible()
        url = page.url
        page.reload()
        expect(page.get_by_text(full, exact=True)).to_be_visible()
        # the shown choice (Streamlit 1.67 draws it as the combobox input's value)
        expect(details.get_by_role("combobox")).to_have_value(re.compile(re.escape(NEWER[:40])))
        expect(page.get_by_test_id("stPlotlyChart")).to_have_count(2)
        assert page.url == url

        # the memory block the agent gets: the three returned memories, fenced as data
        block = page.get_by_test_id("stCode").filter(has_text=OLDER)
        expect(block).to_have_count(1)
        expect(block).to_contain_text(NEWER)

        # the block accounting: the summary, the near misses' rule and what would include
        # the first two (table cells are drawn on a canvas: their DOM copy is attached)
        expect(page.get_by_text(t("replay.accounting", lang))).to_be_visible()
        expect(
            page.get_by_text(re.compile(re.escape(t("wf.rule.k", lang)) + r" × \d+"))
        ).to_be_visible()
        for needed in (4, 5):
            need = page.get_by_text(t("wf.need.k", lang, value=needed), exact=True)
            need.first.wait_for(state="attached")

        # the stale-fact warning, and one click to the older memory's history
        expect(page.get_by_text(t("replay.stale_header", lang))).to_be_visible()
        warning = page.get_by_test_id("stAlert").filter(has_text="Priya")
        expect(warning).to_have_count(1)
        expect(warning).to_contain_text(t("stale.where_rank", lang, rank=2))
        page.screenshot(path=str(tmp_path / f"debug_recall_{lang}.png"), full_page=True)
        link = page.get_by_role("link", name=re.compile(re.escape(t("stale.older_history", lang))))
        link.click()
        expect(page).to_have_url(re.compile(rf"/memories\?.*memory={older}"))
        # the memory is selected: its detail heading (and its history below) is shown
        heading = t("memories.detail", lang, short_id=short_id(str(older)))
        expect(page.get_by_text(heading, exact=True).first).to_be_visible()
