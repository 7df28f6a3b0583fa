"""Page tests (AppTest, real engine + PostgreSQL) of "debug a recall" on Query Replay: the
candidates table shows the deciding score and the rank movement, the details panel the whole
score waterfall of a candidate, the block accounting its near misses with the rule that cut
each, and a stale-fact warning links to both memories' history; the Conflicts page lists the
same stale fact in its report. In English and 中文."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pandas as pd
import pytest

from memory_engine import MemoryEngine, MemoryType, Scope, WriteRequest
from memory_engine.dashboard import state
from memory_engine.dashboard.i18n import t
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import REPLAY, assert_clean, run_app, texts
from tests.dashboard.test_app_replay import submit_search

OLDER = "Priya lives in Paris and works at ACME."
NEWER = "Priya moved to Berlin last month."
QUERY = "where does Priya live Paris"


def recall_tenant(engine: MemoryEngine) -> tuple[str, list[uuid.UUID]]:
    """A tenant with an older and a newer fact about Priya and eight conversation notes;
    returns the tenant and the two facts' ids (older first)."""
    tenant = new_tenant("recall")
    start = datetime(2023, 1, 1, tzinfo=UTC)
    facts = [
        WriteRequest(text=OLDER, memory_type=MemoryType.SEMANTIC, entities=("Priya",), observed_at=start),
        WriteRequest(text=NEWER, memory_type=MemoryType.SEMANTIC, entities=("Priya",),
                     observed_at=start + timedelta(days=480)),
    ]  # fmt: skip
    notes = [
        WriteRequest(text=f"The team lunch number {i} was at a pizza place in Paris.",
                     observed_at=start + timedelta(days=i))
        for i in range(8)
    ]  # fmt: skip
    results = engine.write_many(Scope.of(tenant), [*facts, *notes], actor="test")
    assert all(r.ok for r in results)
    state.cached_tenant_counts.clear()
    return tenant, [results[0].memory_ids[0], results[1].memory_ids[0]]


def _frame(at: object, column: str) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if column in d.value.columns]  # type: ignore[attr-defined]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]  # type: ignore[attr-defined]
    return found[0]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_debug_a_recall_on_query_replay(dash_engine: MemoryEngine, lang: str) -> None:
    tenant, (older, newer) = recall_tenant(dash_engine)
    at = run_app(page=REPLAY, tenant=tenant, lang=lang)
    submit_search(at, QUERY, lang=lang, k=3)

    # the default table: final rank, content in full, the deciding score, the movement
    table = _frame(at, t("wf.col.movement", lang))
    assert list(table.columns)[:4] == [
        t("col.final_rank", lang), t("col.content", lang), t("wf.col.deciding", lang), t("wf.col.movement", lang)
    ]  # fmt: skip
    assert list(table[t("col.content", lang)].iloc[:2]) == [OLDER, NEWER]
    assert table[t("wf.col.deciding", lang)].iloc[0] >= table[t("wf.col.deciding", lang)].iloc[1]
    fused = t("wf.col.fused", lang, fusion="zscore")
    assert not any("rrf (" in c for c in table.columns)

    # the details panel: the whole waterfall of the first returned candidate
    steps = _frame(at, t("wf.col.contribution", lang))
    stages = list(steps[t("wf.col.stage", lang)])
    # one step per leg, in the trace's order (the multilingual dense_ml leg runs by default)
    assert stages[0] == t("wf.stage.leg", lang, name="dense")
    assert t("wf.stage.leg", lang, name="keyword") in stages
    assert t("wf.stage.fuse", lang, name="zscore") in stages and stages[-1] == t(
        "wf.stage.final", lang
    )
    assert len(at.get("plotly_chart")) == 2  # timings and the waterfall
    # every score and rank, the fused column named after the fusion used
    at.toggle(key="mi_wf_all").set_value(True).run()
    assert fused in _frame(at, t("col.drop", lang)).columns

    # block accounting: the 3 lines with tokens, the near misses with their rule
    lines = _frame(at, t("wf.acc.needs", lang))
    assert (lines[t("wf.acc.rule", lang)].str.startswith(t("wf.rule.k", lang))).all()
    assert list(lines[t("wf.acc.needs", lang)].iloc[:2]) == [
        t("wf.need.k", lang, value=4), t("wf.need.k", lang, value=5)
    ]  # fmt: skip
    captions = " ".join(texts(at.caption))
    assert (
        t("replay.miss_summary", lang, n=len(lines), rules=f"{t('wf.rule.k', lang)} × {len(lines)}")
        in captions
    )
    totals = _frame(at, t("wf.acc.candidates", lang))
    assert list(totals[t("wf.acc.candidates", lang)])[-1] == 3

    # the stale-fact warning: both scores, links to both histories
    (warning,) = texts(at.warning)
    assert "Priya" in warning and t("stale.where_rank", lang, rank=2) in warning
    links = [link.proto.page for link in at.get("page_link")]
    assert links.count("memories") == 2  # the pages' url paths
    params = [link.proto.query_string for link in at.get("page_link")]
    assert any(f"memory={older}" in p for p in params) and any(
        f"memory={newer}" in p for p in params
    )
    assert_clean(at)


def test_conflicts_page_reports_stale_facts_of_recent_searches(dash_engine: MemoryEngine) -> None:
    tenant, (older, newer) = recall_tenant(dash_engine)
    dash_engine.search(Scope.of(tenant), QUERY, k=3)
    for lang in ("en", "zh"):
        at = run_app(page="pages/conflicts.py", tenant=tenant, lang=lang)
        report = _frame(at, t("stale.col.older_score", lang))
        row = report.iloc[0]
        assert (row[t("stale.col.older", lang)], row[t("stale.col.current", lang)]) == (
            OLDER,
            NEWER,
        )
        assert row[t("stale.col.older_score", lang)] > row[t("stale.col.current_score", lang)]
        assert row[t("stale.col.kind", lang)] == t("stale.kind.same_entity", lang, entity="Priya")
        pages = [link.proto.page for link in at.get("page_link")]
        assert pages.count("memories") == 2 and "query_replay" in pages
    quiet = run_app(page="pages/conflicts.py", tenant=new_tenant("quiet"))
    assert t("stale.report_empty", "en") in texts(quiet.info)
