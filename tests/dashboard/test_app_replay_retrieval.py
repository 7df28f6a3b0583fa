"""Query Replay retrieval tools (AppTest, real engine + DB): "why not X?", comparing two
configurations, relevance labels."""

from __future__ import annotations

import uuid
from collections.abc import Callable

import pandas as pd

from memory_engine import MemoryEngine, Scope
from memory_engine.ui.i18n import t
from memory_engine.ui.relevance import metrics
from tests.dashboard.helpers import REPLAY, assert_clean, button, run_app, table, texts
from tests.dashboard.test_app_replay import submit_search


def _frame_with(at: object, column: str) -> pd.DataFrame:
    found = [d.value for d in at.dataframe if column in d.value.columns]  # type: ignore[attr-defined]
    assert len(found) == 1, [list(d.value.columns) for d in at.dataframe]  # type: ignore[attr-defined]
    return found[0]


def test_why_not_explains_a_cut_candidate_and_a_stranger(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant(extra=3)
    at = run_app(page=REPLAY, tenant=tenant)
    submit_search(at, "peanut allergy", k=1)
    frame = table(at, "mi_candidates")
    trace = dash_engine.get_trace(Scope.of(tenant), uuid.UUID(at.query_params["trace"]))
    cut = next(c for c in trace.candidates if c.dropped == "below_top_k")
    at.text_input(key="mi_why_id").input(str(cut.memory_id)).run()
    assert_clean(at)
    verdict = t("why.v.below_top_k", "en")
    assert any(verdict in m for m in texts(at.markdown)), texts(at.markdown)
    scores = _frame_with(at, t("why.last_kept", "en"))
    assert "final ↑" in list(scores[t("why.score", "en")])
    row = scores[scores[t("why.score", "en")] == "final ↑"].iloc[0]
    assert row[t("why.this", "en")] <= row[t("why.last_kept", "en")]
    assert len(frame) >= 2
    # an id no leg returned, and text that is not an id
    at.text_input(key="mi_why_id").input("00000000-0000-0000-0000-000000000001").run()
    assert any(t("why.v.not_recalled", "en") in m for m in texts(at.markdown))
    at.text_input(key="mi_why_id").input("not-an-id").run()
    assert texts(at.warning)[-1] == t("why.bad_id", "en", value="not-an-id")


def test_compare_two_configurations_and_relevance_labels(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant(extra=6)
    at = run_app(page=REPLAY, tenant=tenant, lang="zh")
    submit_search(at, "garden note", lang="zh", k=3)
    at.selectbox(key="mi_cmp_fusion").set_value("zscore")
    at.number_input(key="mi_cmp_dense").set_value(0.0)  # B: keyword leg only decides
    button(at, t("cmp.run", "zh")).click().run()
    assert_clean(at)
    summary = [m for m in texts(at.markdown) if m.startswith("前 3 重合度")]
    assert len(summary) == 1, texts(at.markdown)
    frame = _frame_with(at, t("cmp.rank_b", "zh"))
    changes = set(frame[t("cmp.change", "zh")])
    assert changes <= {t(f"cmp.{c}", "zh") for c in ("entered", "left", "moved", "same")}
    assert frame[t("cmp.rank_a", "zh")].notna().sum() == 3
    assert frame[t("cmp.rank_b", "zh")].notna().sum() == 3
    # relevance labels: nothing labelled yet -> zeros, shown in Chinese
    assert any(c.startswith("P@3：0.00") for c in texts(at.caption)), texts(at.caption)


def test_relevance_metrics_of_labels() -> None:
    m = metrics(["a", "b", "c"], {"b"}, 3)
    assert m["p"] == 1 / 3 and m["mrr"] == 0.5 and 0 < m["ndcg"] < 1
    assert metrics(["a"], set(), 1) == {"p": 0.0, "mrr": 0.0, "ndcg": 0.0}
