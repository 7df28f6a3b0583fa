"""Write Evaluation page (AppTest, real engines): the labelled write-path set run for two
configurations, compared side by side, in English and Chinese."""

from __future__ import annotations

from collections.abc import Callable

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from memory_engine import InvalidInputError, MemoryEngine, Scope
from memory_engine.dashboard.frames.write_eval import METRICS, metrics_frame
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.write_eval import shipped_cases, uploaded_cases
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, button, run_app, texts
from tests.dashboard.test_app_auth import auth_app, hashes, sign_in  # noqa: F401 - fixtures

PAGE = "pages/write_eval.py"


def _frames(at: AppTest, column: str) -> list[pd.DataFrame]:
    return [d.value for d in at.dataframe if column in d.value.columns]


def test_two_configurations_run_and_show_side_by_side(dash_engine: MemoryEngine) -> None:
    tenant = new_tenant("weval")
    before = dash_engine.list(Scope.of(tenant), limit=1).total
    at = run_app(page=PAGE, tenant=tenant)
    assert [s.value for s in at.title] == ["Write Evaluation"]
    at.number_input(key="mi_we_limit").set_value(2)
    button(at, t("weval.run", "en")).click().run(timeout=300)
    assert_clean(at)
    (metrics,) = _frames(at, "metric")
    assert list(metrics["metric"]) == [t(f"weval.m_{k}", "en") for k in METRICS]
    row = dict(zip(metrics["metric"], metrics.index, strict=True))
    accuracy = metrics.loc[row["should-remember accuracy"]]
    # the first two development cases are chit-chat: the offline rules keep nothing of them
    assert accuracy["A"] == accuracy["B"] == 1.0 and accuracy["B − A"] == 0.0
    (cats,) = _frames(at, "category")
    assert set(cats["category"]) == {c.category for c in shipped_cases("dev")[:2]}
    captions = [c.value for c in at.caption]
    assert any(c.startswith("A: rules/rules, embedder minilm, 2 cases") for c in captions)
    assert t("weval.entity_note", "en") in captions
    # the suite ran in throwaway engines: the dashboard's store got nothing
    assert dash_engine.list(Scope.of(tenant), limit=1).total == before


def test_the_page_speaks_chinese(dash_engine: MemoryEngine) -> None:
    at = run_app(page=PAGE, lang="zh")
    assert [s.value for s in at.title] == ["写入评测"]
    assert t("weval.run", "zh") in [b.label for b in at.button]
    assert t("weval.intro", "zh") in [c.value for c in at.caption]


def test_metrics_frame_puts_b_minus_a_beside_both() -> None:
    a = {"cases": 4, "passed": 2, "fact_recall": 0.5, "polarity_errors": 3}
    b = {"cases": 4, "passed": 4, "fact_recall": 0.75, "polarity_errors": 0}
    frame = metrics_frame(a, b, "zh")
    rows = {r["指标"]: r for r in frame.to_dict("records")}
    assert rows["事实召回率"]["B − A"] == 0.25
    assert rows["极性错误"]["B − A"] == -3.0
    assert rows["通过的用例"]["A"] == 0.5 and rows["通过的用例"]["B"] == 1.0
    assert pd.isna(rows["事实精确率"]["B − A"])


def test_uploaded_cases_are_read_like_the_shipped_ones() -> None:
    line = (
        '{"id": "u-1", "lang": "zh", "category": "fact", "observed_at": "2026-03-10T09:00:00+00:00",'
        ' "turns": [{"role": "user", "text": "我叫阿明", "expect": {"facts": [{"terms": ["阿明"]}]}}]}'
    )
    (case,) = uploaded_cases((line + "\n\n").encode())
    assert case.id == "u-1" and case.turns[0].should_remember
    with pytest.raises(InvalidInputError, match="line 2"):
        uploaded_cases((line + "\n{oops").encode())


def test_a_viewer_cannot_start_a_run(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
) -> None:
    """A run may call a paid LLM: it needs the editor role."""
    at = sign_in(auth_app(make_tenant(extra=0)), "vera")
    at.switch_page(PAGE).run()
    assert_clean(at)
    assert button(at, t("weval.run", "en")).disabled
    assert t("weval.not_allowed", "en") in texts(at.caption)
