"""Unit tests of memory_engine.dashboard error messages and tables (no database, no browser)."""

from __future__ import annotations

import re
import uuid
from datetime import UTC, datetime, timedelta, timezone

import pandas as pd
import pytest
from pydantic import ValidationError

from memory_engine.config import Settings
from memory_engine.dashboard import i18n
from memory_engine.dashboard.errors import error_message
from memory_engine.dashboard.frames import cells, overview
from memory_engine.dashboard.frames import memories as memory_frames
from memory_engine.dashboard.frames import traces as trace_frames
from memory_engine.dashboard.frames import waterfall as waterfall_frames
from memory_engine.dashboard.i18n import STRINGS, t
from memory_engine.errors import (
    ConfigError,
    InvalidInputError,
    MemoryEngineError,
    MemoryNotFoundError,
    StoreUnavailableError,
    VersionConflictError,
)
from memory_engine.models import (
    Event,
    EventAction,
    Memory,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
    Trace,
    TraceCandidate,
)
from memory_engine.retrieval import pipeline
from memory_engine.retrieval.waterfall import waterfall
from tests.dashboard.helpers import ROOT


# ----------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("exc", "needle"),
    [
        (StoreUnavailableError("connection refused at 127.0.0.1:5432"), "unreachable"),
        (
            VersionConflictError("version 3 is not current (4)", memory_id="x"),
            "Someone else changed",
        ),
        (MemoryNotFoundError("no such row"), "Not found"),
        (InvalidInputError("a reason is required for every edit"), "Invalid input"),
        (ConfigError("bad setting"), "Configuration"),
        (MemoryEngineError("plain"), "plain"),
    ],
)
def test_error_message_is_one_readable_line(exc: Exception, needle: str) -> None:
    msg = error_message(exc, "en")
    assert needle in msg
    assert exc.message in msg
    assert "Traceback" not in msg and "\n" not in msg
    assert error_message(exc, "zh") != msg


def test_not_found_is_one_clean_sentence() -> None:
    mid, tid = uuid.uuid4(), uuid.uuid4()
    memory = MemoryNotFoundError(f"memory {mid} not found", memory_id=mid, tenant_id="t1")
    trace = MemoryNotFoundError(f"trace {tid} not found", trace_id=tid)
    assert error_message(memory, "en") == f"Memory {mid} was not found in this tenant."
    assert error_message(trace, "en") == f"Search trace {tid} was not found in this tenant."
    assert error_message(memory, "zh") == f"在此租户中找不到记忆 {mid}。"
    for msg in (error_message(memory, "en"), error_message(trace, "en")):
        assert msg.lower().count("not found") == 1
    assert error_message(MemoryNotFoundError("no such row"), "en") == (
        "Not found in this tenant (no such row)."
    )
    # a ?write= link quoting 5,000 characters is shown clipped
    long = error_message(MemoryNotFoundError(f"write {'x' * 5000} not found"), "zh")
    assert len(long) < 400 and long != error_message(MemoryNotFoundError("x"), "en")


def test_error_message_for_settings_validation_and_unexpected_errors() -> None:
    with pytest.raises(ValidationError) as info:
        Settings(db_pool_max=0)
    msg = error_message(info.value, "en")
    assert msg.startswith("Configuration problem") and "db_pool_max" in msg
    assert "ZeroDivisionError" in error_message(ZeroDivisionError("x"), "en")


def test_guard_shows_error_and_never_a_traceback() -> None:
    from streamlit.testing.v1 import AppTest

    def script() -> None:
        import streamlit as st

        from memory_engine.dashboard.errors import guard
        from memory_engine.errors import StoreUnavailableError

        with guard("en", stop=False) as g:
            raise StoreUnavailableError("pg is down")
        st.write(f"failed={g.failed}")
        with guard("en"):
            raise RuntimeError("boom")
        st.write("not reached")

    at = AppTest.from_function(script).run()
    assert not at.exception
    assert [e.value for e in at.error][0] == "The memory store is unreachable: pg is down"
    assert "RuntimeError" in at.error[1].value
    assert [m.value for m in at.markdown] == ["failed=True"]


# ----------------------------------------------------------------------------- tables
def _memory(**kw: object) -> Memory:
    base = {
        "tenant_id": "t1",
        "content": "Ann likes tea",
        "created_at": datetime(2024, 5, 1, 12, tzinfo=UTC),
    }
    base.update(kw)
    return Memory(**base)  # type: ignore[arg-type]


def test_fmt_time_is_utc_with_label() -> None:
    assert cells.fmt_time(None) == ""
    assert cells.fmt_time(datetime(2024, 5, 1, 12, 0, 5)) == "2024-05-01 12:00 UTC"
    plus9 = timezone(timedelta(hours=9))
    assert cells.fmt_time(datetime(2024, 5, 1, 9, 7, tzinfo=plus9)) == "2024-05-01 00:07 UTC"
    assert cells.fmt_time("2024-05-01T12:00:00+00:00") == "2024-05-01 12:00 UTC"
    assert cells.fmt_time("2024-05-01T12:00:00Z") == "2024-05-01 12:00 UTC"
    assert cells.fmt_time("garbage") == "garbage"


TIME_CELL = re.compile(r"^\d{4}-\d{2}-\d{2} \d{2}:\d{2} UTC$")


def test_every_time_column_and_cell_has_one_format() -> None:
    """Times in tables, detail fields, history snapshots and diffs: YYYY-MM-DD HH:MM UTC."""
    m = _memory(observed_at=datetime(2023, 5, 8, 13, 56, 30, tzinfo=UTC))
    frame = memory_frames.memories_frame([m], "en")
    assert TIME_CELL.match(frame["created (UTC)"][0]) and TIME_CELL.match(
        frame["observed (UTC)"][0]
    )
    fields = memory_frames.memory_fields_frame(m, "en")
    times = dict(zip(fields["field"], fields["value"], strict=True))
    for name in ("created_at", "updated_at", "observed_at"):
        assert TIME_CELL.match(times[name]), (name, times[name])
    before = {"observed_at": "2023-05-08T13:56:30+00:00", "content": "x"}
    after = {"observed_at": "2023-05-09T08:00:00Z", "content": "x"}
    assert memory_frames.change_summary(before, after) == (
        "observed_at: 2023-05-08 13:56 UTC → 2023-05-09 08:00 UTC"
    )
    preview = {"fields": {"observed_at": (datetime(2023, 5, 8, 13, 56, tzinfo=UTC), None)}}
    assert memory_frames.preview_frame(preview, "en")["before"][0] == "2023-05-08 13:56 UTC"
    trace = _trace()
    assert TIME_CELL.match(
        waterfall_frames.scores_frame(trace, waterfall(trace), "en")["time (UTC)"][0]
    )


def test_memories_frame_has_stable_id_and_clipped_content() -> None:
    m1 = _memory(content="x" * 500, tags=("a", "b"))
    m2 = _memory(memory_type=MemoryType.SEMANTIC, status=MemoryStatus.ARCHIVED)
    frame = memory_frames.memories_frame([m1, m2], "en")
    assert list(frame["id"]) == [str(m1.id), str(m2.id)]
    assert len(frame["content"][0]) == cells.CELL_CHARS and frame["content"][0].endswith("…")
    assert list(frame["type"]) == ["episodic", "semantic"]
    assert frame["tags"][0] == "a, b"
    assert frame["created (UTC)"][0] == "2024-05-01 12:00 UTC"
    assert "创建时间（UTC）" in memory_frames.memories_frame([m1], "zh").columns
    assert list(memory_frames.memories_frame([], "en").columns) == list(frame.columns)


def test_memory_fields_frame_lists_every_field_but_the_vector() -> None:
    m = _memory(embedding=(0.1, 0.2), metadata={"speaker": "Ann"})
    frame = memory_frames.memory_fields_frame(m, "en")
    fields = dict(zip(frame["field"], frame["value"], strict=True))
    assert "embedding" not in fields
    assert set(fields) == set(Memory.model_fields) - {"embedding"}
    assert fields["created_at"].endswith("UTC")
    assert fields["memory_type"] == "episodic"
    assert fields["metadata"] == '{"speaker": "Ann"}'


def test_change_summary_and_events_frame() -> None:
    before = {"content": "old", "importance": 0.5, "version": 1, "updated_at": "a", "tags": []}
    after = {"content": "new", "importance": 0.8, "version": 2, "updated_at": "b", "tags": ["x"]}
    assert memory_frames.change_summary(before, after) == (
        "content: old → new; importance: 0.5 → 0.8; tags:  → x"
    )
    assert memory_frames.change_summary(None, {"content": "hi"}) == "+ hi"
    assert memory_frames.change_summary({"content": "hi"}, None) == "− hi"
    assert memory_frames.change_summary(None, None) == ""
    events = [
        Event(
            tenant_id="t1",
            action=EventAction.CREATE,
            actor="api",
            after={"content": "old"},
            at=datetime(2024, 5, 1, tzinfo=UTC),
        ),
        Event(
            tenant_id="t1",
            action=EventAction.UPDATE,
            actor="dashboard",
            before=before,
            after=after,
            reason="typo",
        ),
    ]
    frame = memory_frames.events_frame(events, "en")
    assert list(frame.columns) == ["time (UTC)", "action", "actor", "reason", "before → after"]
    assert list(frame["action"]) == ["create", "update"]
    assert frame["reason"][1] == "typo"
    assert frame["before → after"][1].startswith("content: old → new")


def test_preview_frame() -> None:
    preview = {
        "fields": {
            "content": ("a", "b"),
            "memory_type": (MemoryType.EPISODIC, MemoryType.SEMANTIC),
            "tags": ((), ("x", "y")),
        },
        "content_diff": "",
        "version": 3,
    }
    frame = memory_frames.preview_frame(preview, "en")
    assert frame.to_dict("records") == [
        {"field": "content", "before": "a", "after": "b"},
        {"field": "memory_type", "before": "episodic", "after": "semantic"},
        {"field": "tags", "before": "", "after": "x, y"},
    ]


def _trace() -> Trace:
    ids = [uuid.uuid4() for _ in range(4)]

    def cand(
        i: int, scores: dict[str, float], ranks: dict[str, int], dropped: str | None = None
    ) -> TraceCandidate:
        return TraceCandidate(
            memory_id=ids[i],
            content=f"memory {i}",
            memory_type=MemoryType.EPISODIC,
            source=MemorySource.CONVERSATION,
            observed_at=datetime(2023, 5, 8, 13, 56, tzinfo=UTC),
            scores=scores,
            ranks=ranks,
            dropped=dropped,
        )

    returned = [
        cand(
            0,
            {"cosine": 0.9, "bm25": 2.0, "rrf": 0.0328},
            {"dense": 1, "keyword": 2, "fused": 1, "final": 1},
        ),
        cand(1, {"bm25": 3.0, "rrf": 0.0164}, {"keyword": 1, "fused": 3, "final": 2}),
    ]
    dropped = [
        cand(2, {"cosine": 0.5, "rrf": 0.0161}, {"dense": 2, "fused": 2}, pipeline.DROP_TOP_K)
    ]
    leg_only = cand(3, {"cosine": 0.1}, {"dense": 3})
    return Trace(
        tenant_id="t1",
        scope=Scope.of("t1"),
        query="tea",
        legs={"dense": [returned[0], dropped[0], leg_only], "keyword": [returned[1], returned[0]]},
        candidates=[*returned, *dropped],
        block="## Recalled memories",
        # the key order of a trace re-read from JSONB (shorter keys first), not pipeline order
        timings_ms={
            "fuse": 0.5,
            "dense": 2.0,
            "total": 14.0,
            "graph_walk": 0.7,
            "select": 0.25,
            "keyword": 1.0,
            "embed_query": 9.5,
        },
    )


def test_candidates_frame_shows_the_deciding_score_and_the_rank_movement() -> None:
    """The default candidates table: final rank, full content, the deciding score (final), the
    rank movement from fusion and the stage behind it, the drop reason, the id; a candidate only
    a leg returned follows with its reason."""
    trace = _trace()
    extra = [
        {"id": c.memory_id, "content": c.content, "dropped": c.dropped}
        for c in trace_frames.all_candidates(trace)
        if c.dropped == trace_frames.NOT_FUSED
    ]
    frame = waterfall_frames.waterfall_frame(waterfall(trace), "en", extra)
    assert list(frame.columns) == [
        "final rank",
        "content",
        "final score ↑ (decides the order)",
        "rank movement",
        "moved by",
        "drop reason",
        "id",
    ]
    assert len(frame) == 4  # 2 returned, 1 dropped, 1 only in a leg
    ranks = frame["final rank"].astype("object").where(frame["final rank"].notna(), None)
    assert list(ranks) == [1, 2, None, None]
    assert list(frame["drop reason"]) == ["", "", "below top k", "not fused"]
    assert list(frame["rank movement"]) == [
        "= (fused #1)",
        "↑1 (fused #3 → #2)",
        "dropped (fused #2)",
        "",
    ]
    assert str(frame["final rank"].dtype) == "Int64"
    assert not (frame.astype(str) == "None").any().any()
    zh = waterfall_frames.waterfall_frame(waterfall(trace), "zh", extra)
    assert "丢弃原因" in zh.columns and zh["丢弃原因"][2] == "未进入前 k"


def test_scores_frame_has_every_stage_by_leg_name_and_the_fusion_used() -> None:
    trace = _trace().model_copy(update={"stages": ["dense", "keyword", "fuse:zscore", "weight"]})
    frame = waterfall_frames.scores_frame(trace, waterfall(trace), "en")
    columns = list(frame.columns)
    for name in ("dense cosine ↑", "dense rank", "keyword bm25 ↑", "keyword rank"):
        assert name in columns
    assert "fused (zscore) ↑" in columns and not any(c.startswith("rrf (fused)") for c in columns)
    assert columns.index("dense cosine ↑") < columns.index("fused (zscore) ↑")
    assert pd.isna(frame["dense cosine ↑"][1]) and frame["keyword bm25 ↑"][1] == 3.0
    assert str(frame["dense rank"].dtype) == "Int64"
    for column in ("dense cosine ↑", "keyword bm25 ↑", "rrf ↑ (checked against min score)"):
        assert str(frame[column].dtype) == "float64"  # NaN when missing, never the text "None"
    assert not (frame.astype(str) == "None").any().any()


def test_timings_traces_and_bounded() -> None:
    trace = _trace()
    timings = trace_frames.timings_frame(trace, "en")
    # pipeline order; a stage the dashboard does not know ("graph_walk") follows the known ones
    assert list(timings["stage"]) == [
        "embed_query",
        "dense",
        "keyword",
        "fuse",
        "select",
        "total",
        "graph_walk",
    ]
    assert timings["ms"].tolist() == [9.5, 2.0, 1.0, 0.5, 0.25, 14.0, 0.7]
    zh = trace_frames.timings_frame(trace, "zh")
    assert list(zh.columns) == ["阶段", "毫秒"]
    assert list(zh["阶段"]) == [
        "查询向量化",
        "向量检索",
        "关键词检索",
        "融合",
        "筛选与截断",
        "总计",
        "graph_walk",
    ]
    assert trace_frames.ordered_stages({"total": 1.0, "terms": 0.1}) == ["terms", "total"]
    tid = uuid.uuid4()
    traces = trace_frames.traces_frame(
        [
            {
                "id": tid,
                "query": "tea",
                "created_at": datetime(2024, 1, 1, tzinfo=UTC),
                "returned": 2,
            }
        ],
        "en",
    )
    assert traces.to_dict("records") == [
        {"id": str(tid), "time (UTC)": "2024-01-01 00:00 UTC", "query": "tea", "returned": 2}
    ]
    frame = pd.DataFrame({"a": range(10)})
    head, cut = cells.bounded(frame, 3)
    assert len(head) == 3 and cut
    same, cut = cells.bounded(frame, 10)
    assert len(same) == 10 and not cut


def test_every_pipeline_stage_has_a_label_and_a_place() -> None:
    assert set(trace_frames.STAGE_ORDER) == {
        k.split(".", 1)[1] for k in STRINGS if k.startswith("stage.")
    }
    for stage in trace_frames.STAGE_ORDER:
        assert i18n.stage_label(stage, "en") == stage
        assert i18n.stage_label(stage, "zh") != stage
    assert i18n.stage_label("graph_walk", "zh") == "graph_walk"


def test_warnings_are_translated_or_labelled() -> None:
    known = "query has no keyword terms; keyword leg skipped"
    assert known in i18n.KNOWN_WARNINGS
    assert i18n.warning_text(known, "zh") == t("warning.no_keyword_terms", "zh")
    assert all(ord(c) < 128 for c in i18n.warning_text(known, "en"))
    assert "关键词" in i18n.warning_text(known, "zh")
    other = i18n.warning_text("embedding model drift", "zh")
    assert other == "检索引擎警告（英文原文）：embedding model drift"
    assert i18n.warning_text("x", "en") == "Search engine warning: x"


def test_list_caption_counts_a_complete_list() -> None:
    from memory_engine.models import Page

    items = [1, 2, 3]
    assert cells.list_caption(Page(items=items), "en") == "Complete list (3 in all)."
    assert cells.list_caption(Page(items=items, total=3), "en") == "Complete list (3 in all)."
    assert cells.list_caption(Page(items=items, total=9, truncated=True), "en") == (
        "Showing the first 3 of 9 rows."
    )
    assert cells.list_caption(Page(items=items, next_cursor="c"), "en") == (
        "Showing the first 3 rows; there are more."
    )
    assert "?" not in cells.list_caption(Page(items=items, truncated=True), "zh")


def test_streamlit_config_binds_localhost_without_file_watcher() -> None:
    import tomllib

    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text("utf-8"))
    assert config["server"]["address"] == "localhost"
    assert config["server"]["fileWatcherType"] == "none"
    assert config["server"]["headless"] is True


def test_counts_and_writes_frames() -> None:
    frame = overview.counts_frame({"b": 2, "a": 2, "c": 5}, "en", label="col.tenant")
    assert frame.to_dict("records") == [
        {"tenant": "c", "count": 5},
        {"tenant": "a", "count": 2},
        {"tenant": "b", "count": 2},
    ]
    writes = overview.writes_per_day_frame([("2024-05-01", 3), ("2024-05-02", 1)], "zh")
    assert list(writes.columns) == ["日期（UTC）", "数量"]
