"""Query Replay retrieval tools (AppTest, real engine + DB): "why not X?", comparing two
configurations, relevance labels."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest

from memory_engine import InvalidInputError, MemoryEngine, Scope
from memory_engine.dashboard.frames.retrieval import metrics
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.widgets import golden as golden_ui
from memory_engine.retrieval.explain import returned_ids
from memory_engine.retrieval.golden import GoldenStore, parse_golden
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
    # B with retention weighting on (fresh memories of importance < 1 lose a little)
    at.number_input(key="mi_cmp_retention").set_value(0.5)
    button(at, t("cmp.run", "zh")).click().run()
    assert_clean(at)
    assert len([m for m in texts(at.markdown) if m.startswith("前 3 重合度")]) == 1


def test_relevance_metrics_of_labels() -> None:
    m = metrics(["a", "b", "c"], {"b"}, 3)
    assert m["p"] == 1 / 3 and m["mrr"] == 0.5 and 0 < m["ndcg"] < 1
    assert metrics(["a"], set(), 1) == {"p": 0.0, "mrr": 0.0, "ndcg": 0.0}


def test_golden_set_save_run_export_import(
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # the app keeps golden sets under <data_dir>/golden; this test keeps them in its tmp dir
    monkeypatch.setattr(golden_ui, "store_for", lambda engine, scope: GoldenStore(tmp_path, scope))
    tenant = make_tenant(extra=2)
    scope = Scope.of(tenant)
    at = run_app(page=REPLAY, tenant=tenant)
    submit_search(at, "peanut allergy", k=2)
    trace = dash_engine.get_trace(scope, uuid.UUID(at.query_params["trace"]))
    top = returned_ids(trace)[0]
    at.text_input(key="mi_gold_name").input("allergies")
    button(at, t("gold.save", "en")).click().run()
    assert_clean(at)
    assert t("gold.saved", "en", name="allergies", n=1) in texts(at.success)
    store = GoldenStore(tmp_path, scope)
    assert store.names() == ["allergies"]
    assert store.load("allergies").cases[0].expected == [top]
    # run it twice: two stored runs with recall 100% (the top memory is returned)
    for _ in range(2):
        at.button(key="mi_gold_run").click().run()
        assert_clean(at)
    runs = _frame_with(at, t("gold.recall", "en"))
    assert list(runs[t("gold.recall", "en")]) == [100.0, 100.0]
    assert len(store.load("allergies").runs) == 2
    # another tenant sees none of it
    assert GoldenStore(tmp_path, Scope.of(make_tenant())).names() == []
    # export -> import under a new name round-trips; malformed JSON is a typed error
    exported = store.load("allergies").model_dump_json()
    renamed = parse_golden(exported).model_copy(update={"name": "copy"})
    store.save(renamed)
    assert store.names() == ["allergies", "copy"]
    with pytest.raises(InvalidInputError):
        parse_golden('{"name": "x", "cases": []}')
    with pytest.raises(InvalidInputError):
        store.load("../etc")
