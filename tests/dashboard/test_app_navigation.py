"""Page tests of the Memory Inspector (AppTest, real engine + DB): empty states, overview,
sidebar and URL state.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard import state
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import empty_tenant_hint
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import (
    MEMORIES,
    OVERVIEW,
    REPLAY,
    assert_clean,
    has_table,
    run_app,
    table,
    texts,
)


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
        hint = empty_tenant_hint(tenant, "en")
        assert hint in texts(at.info), texts(at.info)
        # the command, then every import format (it named only locomo before)
        assert f"memory-engine ingest FILE --tenant {tenant} --format FORMAT" in hint
        assert all(f"- `{fmt}`" in hint for fmt in ("openai", "locomo", "text"))


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
