"""Page tests of the Memory Inspector with ``streamlit.testing.v1.AppTest`` (real engine + DB)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, MemoryStatus, Scope
from memory_engine.ui import state, tables
from memory_engine.ui.i18n import stage_label, t
from tests.dashboard.conftest import APP, new_tenant

MEMORIES = "pages/memories.py"
REPLAY = "pages/query_replay.py"
OVERVIEW = "pages/overview.py"


def run_app(*, page: str | None = None, **params: str) -> AppTest:
    """Run the app with URL ``params`` (``tenant``, ``lang``, ``memory``, ``trace``), then
    switch to ``page`` when given."""
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page).run()
    assert_clean(at)
    return at


def assert_clean(at: AppTest) -> None:
    """No uncaught exception (no traceback element) on the page."""
    assert not at.exception, [e.value for e in at.exception]


def texts(elements: Any) -> list[str]:
    return [str(e.value) for e in elements]


def button(at: AppTest, label: str) -> Any:
    """The one button (or form submit button) labelled ``label``."""
    found = [b for b in at.button if b.label == label]
    assert len(found) == 1, [b.label for b in at.button]
    return found[0]


#: A column that only one table of the app has (read-only st.dataframe elements carry no key).
TABLE_MARKERS = {
    "mi_table": "version",
    "mi_fields": "field",
    "mi_history": "before → after",
    "mi_diff": "before",
    "mi_candidates": "drop reason",
    "mi_timings": "stage",
    "mi_traces": "returned",
}


def table(at: AppTest, name: str) -> pd.DataFrame:
    """The displayed DataFrame of table ``name`` (see TABLE_MARKERS)."""
    marker = TABLE_MARKERS[name]
    found = [d.value for d in at.dataframe if marker in d.value.columns]
    if name == "mi_fields":
        found = [f for f in found if "value" in f.columns]
    assert len(found) == 1, (name, [list(d.value.columns) for d in at.dataframe])
    return found[0]


def has_table(at: AppTest, name: str) -> bool:
    return any(TABLE_MARKERS[name] in d.value.columns for d in at.dataframe)


def first_id(at: AppTest) -> str:
    return str(table(at, "mi_table")["id"].iloc[0])


def memories_table(at: AppTest) -> Any:
    """The Memories table element (its key is ``mi_table_<hash of the page>``)."""
    found = [d for d in at.dataframe if d.key and d.key.startswith("mi_table_")]
    assert len(found) == 1, [d.key for d in at.dataframe]
    return found[0]


def checked_rows(at: AppTest, element: Any) -> list[int]:
    """Rows the table shows checked (its selection state, default included)."""
    return list(at.session_state[element.key]["selection"]["rows"])


def click_rows(at: AppTest, element: Any, rows: list[int]) -> AppTest:
    """Rerun as after a click on a selectable ``st.dataframe`` (AppTest has no API for it): the
    browser sends the table's new selection as the widget's value, which runs ``on_select``."""
    widgets = at._tree.get_widget_states()
    widget = widgets.widgets.add()
    widget.id = element.proto.id
    widget.string_value = json.dumps({"selection": {"rows": rows, "columns": [], "cells": []}})
    at._run(widgets)
    assert_clean(at)
    return at


def shown_memory_id(at: AppTest) -> str | None:
    """Id of the memory whose detail is shown (None when no detail)."""
    if not has_table(at, "mi_fields"):
        return None
    fields = table(at, "mi_fields")
    return str(dict(zip(fields["field"], fields["value"], strict=True))["id"])


# ----------------------------------------------------------------------------- empty states
@pytest.mark.parametrize("page", [None, MEMORIES, REPLAY])
def test_no_tenant_shows_empty_state_on_every_page(
    dash_engine: MemoryEngine, page: str | None
) -> None:
    at = run_app(page=page)
    assert t("common.no_tenant", "en") in texts(at.info)
    assert "tenant" not in at.query_params
    assert not has_table(at, "mi_table") and not has_table(at, "mi_candidates")


def test_tenant_without_memories_says_how_to_ingest(dash_engine: MemoryEngine) -> None:
    tenant = new_tenant("empty")
    for page in (None, MEMORIES, REPLAY):
        at = run_app(page=page, tenant=tenant)
        hint = t("common.empty_tenant", "en", tenant=tenant)
        assert hint in texts(at.info), texts(at.info)
        assert f"memory-engine ingest FILE --tenant {tenant} --format locomo" in hint


def test_invalid_tenant_in_url_is_dropped_not_widened(
    dash_engine: MemoryEngine, make_tenant: Callable[..., str]
) -> None:
    tenant = make_tenant()
    at = run_app(tenant="not a tenant!")
    assert "tenant" not in at.query_params
    assert t("common.no_tenant", "en") in texts(at.info)
    # the sidebar says why, with the id format rule
    why = t("sidebar.tenant_url_invalid", "en", tenant="not a tenant!")
    assert texts(at.sidebar.error) == [why]
    assert "1-64 characters: letters, digits and _ . : -" in why
    at.switch_page(MEMORIES).run()
    assert why in texts(at.sidebar.error)  # still explained on the next page
    at.sidebar.selectbox(key="mi_w_tenant").set_value(tenant).run()
    assert_clean(at)
    assert at.query_params["tenant"] == tenant and not texts(at.sidebar.error)


def test_tenant_selector_lists_only_the_largest_tenants(
    dash_engine: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    counts = {f"bulk-{i:03d}": i + 1 for i in range(250)}  # bulk-249 is the largest
    monkeypatch.setattr(state, "cached_tenant_counts", lambda reason: counts)
    at = run_app(page=MEMORIES)
    options = at.sidebar.selectbox(key="mi_w_tenant").options
    assert len(options) == state.MAX_TENANT_OPTIONS == 200
    assert "bulk-249 (250)" in options and "bulk-050 (51)" in options
    assert not any(o.startswith("bulk-049") for o in options)
    note = t("sidebar.tenants_cut", "en", shown=200, total=250)
    assert note == "Showing the 200 largest of 250 tenants. Type any other tenant id below."
    assert note in texts(at.sidebar.caption)
    # a smaller tenant is reachable by typing its id, and is then listed too
    at.sidebar.text_input(key="mi_w_tenant_text").input("bulk-001").run()
    assert_clean(at)
    assert at.query_params["tenant"] == "bulk-001"
    selector = at.sidebar.selectbox(key="mi_w_tenant")
    assert len(selector.options) == 201 and selector.value == "bulk-001"
    assert "bulk-001 (2)" in selector.options
    small = {"a": 1, "b": 2}
    monkeypatch.setattr(state, "cached_tenant_counts", lambda reason: small)
    few = run_app()
    assert len(few.sidebar.selectbox(key="mi_w_tenant").options) == 2
    assert not any("largest" in c for c in texts(few.sidebar.caption))


def test_invalid_memory_or_trace_id_in_url_is_explained_and_dropped(
    make_tenant: Callable[..., str],
) -> None:
    tenant = make_tenant()
    at = run_app(page=MEMORIES, tenant=tenant, memory="42")
    assert texts(at.warning) == [t("common.invalid_id", "en", param="memory", value="42")]
    assert texts(at.warning)[0].startswith("The link's memory id '42' is not a valid id")
    assert "memory" not in at.query_params and at.query_params["tenant"] == tenant
    assert not has_table(at, "mi_fields") and len(table(at, "mi_table")) == 4
    replay = run_app(page=REPLAY, tenant=tenant, trace="not-a-trace", lang="zh")
    assert texts(replay.warning) == [
        t("common.invalid_id", "zh", param=t("common.param_trace", "zh"), value="not-a-trace")
    ]
    assert "trace" not in replay.query_params
    # without a tenant the id is still explained and dropped
    none = run_app(page=MEMORIES, memory="x")
    assert len(none.warning) == 1 and "memory" not in none.query_params


def test_store_unreachable_is_a_message_not_a_traceback(
    dash_engine: MemoryEngine, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(
        "MEMORY_DATABASE_URL", "postgresql://nobody@127.0.0.1:9/none?connect_timeout=2"
    )
    state.get_engine.clear()
    state.cached_tenant_counts.clear()
    try:
        at = run_app(tenant="acme")
        errors = texts(at.error)
        assert len(errors) == 1 and errors[0].startswith("The memory store is unreachable: ")
        assert "Traceback" not in errors[0]
        assert texts(at.sidebar.warning)[0].startswith("Tenant list unavailable: ")
        assert t("sidebar.store_unreachable", "en", name="postgres") in texts(at.sidebar.caption)
    finally:
        monkeypatch.undo()
        state.get_engine.clear()
        state.cached_tenant_counts.clear()


# ----------------------------------------------------------------------------- overview
def test_overview_with_data(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant(extra=3)
    at = run_app(tenant=tenant)
    assert [m.value for m in at.metric] == ["7"]
    charts = at.get("plotly_chart")
    assert len(charts) == 5  # tenants, by type, by status, by source, writes per day
    assert t("overview.tenant_header", "en", tenant=tenant) in texts(at.subheader)


def test_overview_button_switches_page_and_keeps_tenant(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    at = run_app(tenant=tenant)
    at.button(key="mi_open_memories").click().run()
    assert_clean(at)
    assert at.title[0].value == t("memories.title", "en")
    assert at.query_params["tenant"] == tenant
    assert t("common.current_tenant", "en", tenant=tenant) in texts(at.caption)


# ----------------------------------------------------------------------------- sidebar / URL
def test_sidebar_tenant_choice_survives_page_switches(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    other = make_tenant()
    at = run_app()
    selector = at.sidebar.selectbox(key="mi_w_tenant")
    assert tenant in selector.options[0] or any(tenant in o for o in selector.options)
    selector.set_value(tenant).run()
    assert at.query_params["tenant"] == tenant
    for page in (MEMORIES, REPLAY, OVERVIEW, MEMORIES):
        at.query_params.pop("tenant", None)  # a sidebar page switch drops the query string
        at.switch_page(page).run()
        assert_clean(at)
        assert at.query_params["tenant"] == tenant
        assert at.sidebar.selectbox(key="mi_w_tenant").value == tenant
    ids = set(table(at, "mi_table")["id"])
    own = {str(m.id) for m in state.get_engine().list(Scope.of(tenant)).items}
    assert ids == own
    assert not ids & {str(m.id) for m in state.get_engine().list(Scope.of(other)).items}


def test_typed_tenant_id_is_validated(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    at = run_app(page=MEMORIES)
    at.sidebar.text_input(key="mi_w_tenant_text").input("bad id!").run()
    assert any("bad id!" in e for e in texts(at.sidebar.error))
    assert "tenant" not in at.query_params
    at.sidebar.text_input(key="mi_w_tenant_text").input(tenant).run()
    assert_clean(at)
    assert at.query_params["tenant"] == tenant
    assert len(table(at, "mi_table")) == 4


def test_language_switch_shows_chinese(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    at = run_app(tenant=tenant)
    assert at.title[0].value == "Overview"
    at.sidebar.radio(key="mi_w_lang").set_value("zh").run()
    assert_clean(at)
    assert at.query_params["lang"] == "zh"
    assert at.title[0].value == "概览"
    assert at.sidebar.selectbox(key="mi_w_tenant").label == "租户"
    at.switch_page(MEMORIES).run()
    assert at.title[0].value == "记忆"
    assert "内容" in at.dataframe[0].value.columns
    zh = run_app(page=REPLAY, lang="zh")
    assert zh.title[0].value == "查询回放"
    assert t("common.no_tenant", "zh") in texts(zh.info)


# ----------------------------------------------------------------------------- memories
def test_memories_pagination_with_cursor_stack(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant(extra=26)  # 30 rows: pages of 25 + 5
    at = run_app(page=MEMORIES, tenant=tenant)
    assert t("memories.rows", "en", first=1, last=25, total=30) in texts(at.caption)
    page1 = list(table(at, "mi_table")["id"])
    assert len(page1) == 25 and at.button(key="mi_prev").disabled
    at.button(key="mi_next").click().run()
    assert_clean(at)
    assert t("memories.rows", "en", first=26, last=30, total=30) in texts(at.caption)
    page2 = list(table(at, "mi_table")["id"])
    assert len(page2) == 5 and not set(page1) & set(page2)
    assert at.button(key="mi_next").disabled
    at.button(key="mi_prev").click().run()
    assert list(table(at, "mi_table")["id"]) == page1


def test_memories_row_selection_belongs_to_its_page(make_tenant: Callable[..., str]) -> None:
    """Review finding: a selection on page 1 stayed checked on page 2 (same table key)."""
    tenant = make_tenant(extra=26)  # 30 rows: pages of 25 + 5
    at = run_app(page=MEMORIES, tenant=tenant)
    page1 = list(table(at, "mi_table")["id"])
    first = memories_table(at)
    assert checked_rows(at, first) == []
    click_rows(at, first, [1])
    assert at.query_params["memory"] == page1[1] and shown_memory_id(at) == page1[1]
    assert memories_table(at).key == first.key  # a click keeps the table (and its scroll)
    assert checked_rows(at, first) == [1]

    at.button(key="mi_next").click().run()
    assert_clean(at)
    page2 = list(table(at, "mi_table")["id"])
    second = memories_table(at)
    assert checked_rows(at, second) == []  # nothing checked on page 2
    assert second.key != first.key
    assert shown_memory_id(at) == page1[1]  # the detail still shows the memory chosen before
    click_rows(at, second, [1])  # a click on page 2 opens that memory
    assert at.query_params["memory"] == page2[1] and shown_memory_id(at) == page2[1]
    assert checked_rows(at, memories_table(at)) == [1]

    at.button(key="mi_prev").click().run()
    assert_clean(at)
    assert checked_rows(at, memories_table(at)) == []  # page 2's memory is not on page 1
    # choosing a memory in the selector checks its row; clicking it again closes the detail
    at.selectbox(key="mi_w_memory").set_value(page1[3]).run()
    assert_clean(at)
    assert shown_memory_id(at) == page1[3]
    assert checked_rows(at, memories_table(at)) == [3]
    click_rows(at, memories_table(at), [])
    assert "memory" not in at.query_params and shown_memory_id(at) is None
    # a shared link opens the page with the memory's row checked
    shared = run_app(page=MEMORIES, tenant=tenant, memory=page1[2])
    assert checked_rows(shared, memories_table(shared)) == [2]
    assert shown_memory_id(shared) == page1[2]


def test_memories_chinese_filters_have_chinese_placeholders(
    make_tenant: Callable[..., str],
) -> None:
    at = run_app(page=MEMORIES, tenant=make_tenant(), lang="zh")
    for key in ("mi_f_types", "mi_f_statuses", "mi_f_sources"):
        assert at.multiselect(key=key).proto.placeholder == "不限"
    en = run_app(page=MEMORIES, tenant=make_tenant())
    assert en.multiselect(key="mi_f_types").proto.placeholder == "Any (no filter)"


def test_memories_filters_and_facet_counts(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant(extra=2)
    at = run_app(page=MEMORIES, tenant=tenant)
    types = at.multiselect(key="mi_f_types")
    labels = [types.format_func(o) for o in ("episodic", "semantic", "procedural")]
    assert labels == ["episodic (3)", "semantic (2)", "procedural (1)"]
    types.set_value(["semantic"]).run()
    assert_clean(at)
    frame = table(at, "mi_table")
    assert set(frame["type"]) == {"semantic"} and len(frame) == 2
    # the type facet still counts every type; the source facet counts under the type filter
    assert at.multiselect(key="mi_f_types").format_func("episodic") == "episodic (3)"
    assert at.multiselect(key="mi_f_sources").format_func("manual") == "manual (2)"
    assert at.multiselect(key="mi_f_sources").format_func("conversation") == "conversation (0)"
    at.text_input(key="mi_f_text").input("tea").run()
    frame = table(at, "mi_table")
    assert list(frame["content"]) == ["Ann prefers green tea in the morning"]
    at.text_input(key="mi_f_text").input("no such words").run()
    assert t("memories.no_match", "en") in texts(at.info)
    # date range (UTC days, inclusive): rows were created today
    at.text_input(key="mi_f_text").input("").run()
    today = datetime.now(UTC).date()
    at.date_input(key="mi_f_dates").set_value(
        (today - timedelta(days=9), today - timedelta(days=1))
    )
    at.run()
    assert t("memories.no_match", "en") in texts(at.info)
    at.date_input(key="mi_f_dates").set_value((today, today)).run()
    assert_clean(at)
    assert len(table(at, "mi_table")) == 2  # still only the semantic ones


def test_memory_detail_shows_fields_and_history(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    at = run_app(page=MEMORIES, tenant=tenant)
    mid = first_id(at)
    at.selectbox(key="mi_w_memory").set_value(mid).run()
    assert_clean(at)
    assert at.query_params["memory"] == mid
    fields = table(at, "mi_fields")
    values = dict(zip(fields["field"], fields["value"], strict=True))
    assert values["id"] == mid and values["tenant_id"] == tenant and values["version"] == "1"
    history = table(at, "mi_history")
    assert list(history["action"]) == ["create"] and list(history["actor"]) == ["test"]
    assert t("common.all_rows", "en", total=1) in texts(at.caption)  # complete: no "?"
    assert not any("?" in c for c in texts(at.caption))
    # every time cell of the detail has the one format
    times = [v for v in table(at, "mi_fields")["value"] if str(v).endswith(" UTC")]
    assert times and all(len(v) == len("2024-05-01 09:00 UTC") for v in times), times
    assert all(len(v) == len("2024-05-01 09:00 UTC") for v in history["time (UTC)"])
    # a shared link (?memory=) opens the same memory directly
    again = run_app(page=MEMORIES, tenant=tenant, memory=mid)
    assert again.selectbox(key="mi_w_memory").value == mid
    # another tenant's id is "not found", never shown
    stranger = run_app(page=MEMORIES, tenant=make_tenant(), memory=mid)
    assert texts(stranger.error) == [f"Memory {mid} was not found in this tenant."]
    assert "memory" not in stranger.query_params
    assert not has_table(stranger, "mi_fields")


def test_edit_flow_preview_reason_and_version_check(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at = run_app(page=MEMORIES, tenant=tenant)
    mid = first_id(at)
    at.selectbox(key="mi_w_memory").set_value(mid).run()
    original = dash_engine.get(scope, mid)
    suffix = f"{mid}_1"
    at.text_area(key=f"mi_e_content_{suffix}").input(original.content + " (edited)")
    at.text_input(key=f"mi_e_tags_{suffix}").input("x, y")
    button(at, "Preview changes").click().run()
    assert_clean(at)
    diff = table(at, "mi_diff")
    assert list(diff["field"]) == ["content", "tags"]
    assert any("(edited)" in c.value for c in at.code)
    assert dash_engine.get(scope, mid).version == 1  # preview changes nothing

    button(at, "Save").click().run()  # no reason yet
    assert t("memories.reason_required", "en") in texts(at.error)
    assert dash_engine.get(scope, mid).version == 1

    at.text_input(key=f"mi_e_reason_{suffix}").input("fix wording")
    button(at, "Save").click().run()
    assert_clean(at)
    assert t("memories.saved", "en", version=2) in texts(at.success)
    saved = dash_engine.get(scope, mid)
    assert saved.content == original.content + " (edited)" and saved.tags == ("x", "y")
    assert saved.version == 2
    last = dash_engine.history(scope, mid).items[-1]
    assert (last.action.value, last.actor, last.reason) == ("update", "dashboard", "fix wording")
    # the form now edits version 2
    assert at.text_area(key=f"mi_e_content_{mid}_2").value == saved.content
    assert any(h == "update" for h in table(at, "mi_history")["action"])
    # a second, consecutive edit also reaches the database (FAILURES.md section 13)
    at.number_input(key=f"mi_e_importance_{mid}_2").set_value(0.9)
    at.text_input(key=f"mi_e_reason_{mid}_2").input("more important")
    button(at, "Save").click().run()
    assert_clean(at)
    again = dash_engine.get(scope, mid)
    assert (again.version, again.importance, again.content) == (3, 0.9, saved.content)


def test_edit_conflict_says_reload_not_traceback(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at = run_app(page=MEMORIES, tenant=tenant)
    mid = first_id(at)
    at.selectbox(key="mi_w_memory").set_value(mid).run()
    # someone else edits the memory after the form was shown (version 1 -> 2)
    dash_engine.update(scope, mid, expected_version=1, reason="other user", importance=0.9)
    suffix = f"{mid}_1"
    at.text_area(key=f"mi_e_content_{suffix}").input("my late change")
    at.text_input(key=f"mi_e_reason_{suffix}").input("mine")
    button(at, "Save").click().run()
    assert_clean(at)
    assert any(e.startswith("Someone else changed this memory; reload") for e in texts(at.error))
    current = dash_engine.get(scope, mid)
    assert current.version == 2 and current.content != "my late change"
    # reload: the form now starts from version 2 and saving works
    button(at, "Reload this memory").click().run()
    suffix = f"{mid}_2"
    at.text_area(key=f"mi_e_content_{suffix}").input("my late change")
    at.text_input(key=f"mi_e_reason_{suffix}").input("mine, after reload")
    button(at, "Save").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).content == "my late change"


def test_archive_restore_delete_with_reason(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at = run_app(page=MEMORIES, tenant=tenant)
    mid = first_id(at)
    at.selectbox(key="mi_w_memory").set_value(mid).run()
    at.button(key="mi_memories.archive").click().run()
    assert t("memories.reason_required", "en") in texts(at.error)
    assert dash_engine.get(scope, mid).status == MemoryStatus.ACTIVE
    at.text_input(key=f"mi_l_reason_{mid}_1").input("stale")
    at.button(key="mi_memories.archive").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).status == MemoryStatus.ARCHIVED
    at.text_input(key=f"mi_l_reason_{mid}_2").input("needed again")
    at.button(key="mi_memories.restore").click().run()
    assert dash_engine.get(scope, mid).status == MemoryStatus.ACTIVE
    at.text_input(key=f"mi_l_reason_{mid}_3").input("wrong")
    at.button(key="mi_memories.delete").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).status == MemoryStatus.DELETED
    actions = [(e.action.value, e.reason) for e in dash_engine.history(scope, mid).items]
    assert actions[-3:] == [("archive", "stale"), ("restore", "needed again"), ("delete", "wrong")]


def test_export_buttons_present(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    at = run_app(page=MEMORIES, tenant=tenant)
    downloads = at.get("download_button")
    assert len(downloads) == 2


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
    assert list(frame.columns) == [
        "id",
        "content",
        "type",
        "source",
        "time (UTC)",
        "cosine ↑",
        "bm25 ↑",
        "rrf (fused) ↑",
        "dense rank",
        "keyword rank",
        "fused rank",
        "final rank",
        "Δrank",
        "drop reason",
    ]
    assert len(frame) == 9  # every memory of the tenant is a dense candidate
    assert frame["content"].iloc[0] == "Ann is allergic to peanuts"
    assert list(frame["final rank"].iloc[:2]) == [1, 2]
    assert frame["final rank"].iloc[2:].isna().all()
    assert set(frame["drop reason"].iloc[2:]) == {"below top k"}
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
    frame = table(at, "mi_candidates")
    assert frame["cosine ↑"].isna().all() and frame["dense rank"].isna().all()
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
    expected = [s for s in tables.STAGE_ORDER if s in stored.timings_ms]
    assert expected == ["terms", "embed_query", "dense", "keyword", "fuse", "select", "total"]
    # (the stored payload is JSONB, whose key order is not the pipeline's)
    reopened = run_app(page=REPLAY, tenant=tenant, trace=trace_id)
    assert list(table(reopened, "mi_timings")["stage"]) == expected

    zh = run_app(page=REPLAY, tenant=tenant, trace=trace_id, lang="zh")
    timings = [d.value for d in zh.dataframe if "阶段" in d.value.columns]
    assert len(timings) == 1
    assert list(timings[0]["阶段"]) == [stage_label(s, "zh") for s in expected]
    assert list(timings[0]["阶段"])[:3] == ["提取查询词", "查询向量化", "向量检索"]

    # a keyword-only search for a query without keyword terms: a warning, no candidates
    submit_search(zh, "???", lang="zh", dense=False, keyword=True)
    assert texts(zh.warning) == [t("warning.no_keyword_terms", "zh")]

    # missing scores and ranks: numeric columns, shown as empty cells
    en = run_app(page=REPLAY, tenant=tenant)
    submit_search(en, "green tea", dense=False, keyword=True)
    candidates = [d for d in en.dataframe if "drop reason" in d.value.columns]
    assert len(candidates) == 1
    element = candidates[0]
    assert element.proto.HasField("placeholder") and element.proto.placeholder == ""
    frame = element.value
    assert frame["cosine ↑"].isna().all() and pd.api.types.is_float_dtype(frame["cosine ↑"])
    assert pd.api.types.is_integer_dtype(frame["dense rank"]) and frame["dense rank"].isna().all()
    assert not (frame.astype(str) == "None").any().any()
