"""Golden-set import on Query Replay (AppTest, real engine + DB): an uploaded file is imported
once. A file stays in the uploader across reruns, so a second import on the next rerun
overwrote the set, e.g. dropping the run that rerun had just recorded."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.widgets import golden as golden_ui
from memory_engine.retrieval.explain import returned_ids
from memory_engine.retrieval.golden import GoldenStore
from tests.dashboard.helpers import REPLAY, assert_clean, run_app, texts
from tests.dashboard.test_app_replay import submit_search


def test_imported_set_keeps_its_runs_while_the_file_stays_in_the_uploader(
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(golden_ui, "store_for", lambda engine, scope: GoldenStore(tmp_path, scope))
    tenant = make_tenant(extra=2)
    scope = Scope.of(tenant)
    at = run_app(page=REPLAY, tenant=tenant, lang="zh")
    submit_search(at, "peanut allergy", lang="zh", k=2)
    trace = dash_engine.get_trace(scope, uuid.UUID(at.query_params["trace"]))
    case = {"query": "花生过敏", "expected": [str(returned_ids(trace)[0])], "k": 5}
    payload = json.dumps({"name": "imported", "cases": [case]}, ensure_ascii=False)
    at.file_uploader(key="mi_gold_import").set_value(
        ("imported.json", payload.encode(), "application/json")
    ).run()
    assert_clean(at)
    assert t("gold.imported", "zh", name="imported", n=1) in texts(at.success)
    assert at.selectbox(key="mi_gold_pick").options == ["imported"]  # listed at once
    store = GoldenStore(tmp_path, scope)
    at.button(key="mi_gold_run").click().run()  # the file is still in the uploader
    assert_clean(at)
    assert len(store.load("imported").runs) == 1
    at.button(key="mi_gold_run").click().run()
    assert len(store.load("imported").runs) == 2
