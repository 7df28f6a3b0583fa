"""Page tests of the Memory Inspector (AppTest, real engine + DB): the query replay page."""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

import pandas as pd
from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.frames import traces
from memory_engine.dashboard.i18n import stage_label, t
from tests.dashboard.helpers import REPLAY, assert_clean, button, run_app, table, texts


# ----------------------------------------------------------------------------- query replay
def submit_search(at: AppTest, query: str, lang: str = "en", **fields: Any) -> AppTest:
    at.text_input(key="mi_q_query").input(query)
    for key, value in fields.items():
        if key in ("dense", "keyword"):
            at.checkbox(key=f"mi_q_{key}").set_value(value)
        else:
            at.number_input(key=f"mi_q_{key}").set_value(value)
    button(at, t("replay.run", lang)).click().run()
    assert_clean(at)
    return at


def test_query_replay_shows_every_candidate(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant(extra=5)
    at = run_app(page=REPLAY, tenant=tenant)
    submit_search(at, "peanut allergy", k=2)
    frame = table(at, "mi_candidates")
    assert list(frame.columns) == [  # the deciding score and the movement by default
        "final rank",
        "content",
        "final score ↑ (decides the order)",
        "rank movement",
        "moved by",
        "drop reason",
        "id",
    ]
    assert len(frame) == 9  # every memory of the tenant is a dense candidate
    assert frame["content"].iloc[0] == "Ann is allergic to peanuts"
    assert list(frame["final rank"].iloc[:2]) == [1, 2]
    assert frame["final rank"].iloc[2:].isna().all()
    # unrelated memories are cut by the relevance floor (no padding), the others by k
    assert set(frame["drop reason"].iloc[2:]) <= {"below top k", "below relevance floor"}
    trace_id = at.query_params["trace"]
    trace = dash_engine.get_trace(Scope.of(tenant), uuid.UUID(trace_id))
    assert [c.value for c in at.code][0] == trace.block
    assert "<memory_data>" in trace.block
    timings = table(at, "mi_timings")
    assert {"dense", "keyword", "total"} <= set(timings["stage"])
    past = table(at, "mi_traces")
    assert list(past["id"]) == [trace_id]


def test_query_replay_legs_threshold_and_reopen(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    at = run_app(page=REPLAY, tenant=tenant)
    submit_search(at, "nothing", dense=False, keyword=False)
    assert t("replay.need_leg", "en") in texts(at.error)
    submit_search(at, "green tea", dense=False, keyword=True)
    at.toggle(key="mi_wf_all").set_value(True).run()  # every score and rank
    frame = table(at, "mi_candidates")
    assert "keyword bm25 ↑" in frame.columns
    assert not [c for c in frame.columns if c.startswith("dense")]  # no dense leg ran
    assert list(frame["content"]) == ["Ann prefers green tea in the morning"]
    first_trace = at.query_params["trace"]
    submit_search(at, "Ann", dense=True, keyword=True, min_score=0.5)
    frame = table(at, "mi_candidates")
    assert frame["final rank"].isna().all()
    assert set(frame["drop reason"]) == {"below min score"}
    # open the first search again from the list of past searches (URL: ?trace=)
    at.selectbox(key="mi_w_trace").set_value(first_trace).run()
    assert_clean(at)
    assert at.query_params["trace"] == first_trace
    assert list(table(at, "mi_candidates")["content"]) == ["Ann prefers green tea in the morning"]
    # re-run it with its stored configuration: a new trace, same result
    button(at, "Re-run with its configuration").click().run()
    assert_clean(at)
    assert at.query_params["trace"] != first_trace
    assert list(table(at, "mi_candidates")["content"]) == ["Ann prefers green tea in the morning"]
    assert len(table(at, "mi_traces")) == 3
    # a shared link with the trace id opens it; another tenant's trace id is "not found"
    shared = run_app(page=REPLAY, tenant=tenant, trace=first_trace)
    assert table(shared, "mi_candidates")["content"].tolist() == [
        "Ann prefers green tea in the morning"
    ]
    stranger = run_app(page=REPLAY, tenant=make_tenant(), trace=first_trace)
    assert texts(stranger.error) == [f"Search trace {first_trace} was not found in this tenant."]
    assert "trace" not in stranger.query_params


def test_reopened_trace_in_chinese_pipeline_order_labels_and_empty_cells(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    """Review findings: JSONB stage order, English stage names and warnings in 中文, "None"
    cells for missing scores."""
    tenant = make_tenant()
    at = run_app(page=REPLAY, tenant=tenant)
    submit_search(at, "??? green tea", dense=True, keyword=True)
    trace_id = at.query_params["trace"]
    stored = dash_engine.get_trace(Scope.of(tenant), uuid.UUID(trace_id))
    expected = [s for s in traces.STAGE_ORDER if s in stored.timings_ms]
    assert [s for s in expected if not s.endswith("dense_ml")] == [
        "expand",
        "terms",
        "embed_query",
        "dense",
        "keyword",
        "fuse",
        "session",
        "weight",
        "dedupe",
        "select",
        "total",
    ]
    # (the stored payload is JSONB, whose key order is not the pipeline's)
    reopened = run_app(page=REPLAY, tenant=tenant, trace=trace_id)
    # the multilingual leg's stages (dense_ml, embed_query:dense_ml) follow the known ones
    extra = [s for s in stored.timings_ms if s not in expected]
    assert set(extra) <= {"dense_ml", "embed_query:dense_ml"}
    shown = list(table(reopened, "mi_timings")["stage"])
    assert shown[: len(expected)] == expected and sorted(shown[len(expected) :]) == sorted(extra)

    zh = run_app(page=REPLAY, tenant=tenant, trace=trace_id, lang="zh")
    timings = [
        d.value for d in zh.dataframe if "阶段" in d.value.columns and len(d.value.columns) == 2
    ]
    assert len(timings) == 1
    zh_stages = list(timings[0]["阶段"])
    assert zh_stages[: len(expected)] == [stage_label(s, "zh") for s in expected]
    assert list(timings[0]["阶段"])[:4] == ["查询扩展", "提取查询词", "查询向量化", "向量检索"]

    # a keyword-only search for a query without keyword terms: a warning, no candidates
    submit_search(zh, "???", lang="zh", dense=False, keyword=True)
    assert texts(zh.warning) == [t("warning.no_keyword_terms", "zh")]

    # missing scores and ranks: numeric columns, shown as empty cells
    en = run_app(page=REPLAY, tenant=tenant)
    submit_search(en, "green tea", dense=True, keyword=True)
    en.toggle(key="mi_wf_all").set_value(True).run()
    candidates = [d for d in en.dataframe if "drop reason" in d.value.columns]
    assert len(candidates) == 1
    element = candidates[0]
    assert element.proto.HasField("placeholder") and element.proto.placeholder == ""
    frame = element.value
    bm25, rank = frame["keyword bm25 ↑"], frame["keyword rank"]
    assert bm25.isna().any() and pd.api.types.is_float_dtype(bm25)  # dense-only candidates
    assert pd.api.types.is_integer_dtype(rank) and rank.isna().any()
    assert not (frame.astype(str) == "None").any().any()
