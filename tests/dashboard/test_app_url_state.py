"""Page tests (AppTest, real engine + DB): view state in the URL. The Memories filters, page
number and user/agent/session filters are written to the URL and restored from it (a reload
is a new run with the same URL); a ``?trace=`` link fills the Query Replay form."""

from __future__ import annotations

from collections.abc import Callable

from memory_engine import MemoryEngine, MemorySource, Scope, WriteRequest
from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import MEMORIES, REPLAY, assert_clean, run_app, table, texts


def open_url(**params: str):  # noqa: ANN201 - an AppTest
    """The Memories page opened with URL ``params`` (``page`` here is the page number)."""
    from streamlit.testing.v1 import AppTest

    from tests.dashboard.conftest import APP

    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    at.switch_page(MEMORIES).run()
    assert_clean(at)
    return at


def test_memories_filters_and_page_survive_a_reload(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant(extra=26)  # 26 conversation notes + 4 manual facts
    at = run_app(page=MEMORIES, tenant=tenant)
    at.multiselect(key="mi_f_sources").set_value(["conversation"]).run()
    assert at.query_params["source"] == "conversation"
    at.button(key="mi_next").click().run()
    assert_clean(at)
    assert at.query_params["page"] == "2"
    assert t("memories.rows", "en", first=26, last=26, total=26) in texts(at.caption)
    shown = list(table(at, "mi_table")["id"])
    # a reload (a new session with the same URL) shows the same filter and page
    again = open_url(tenant=tenant, source="conversation", page="2")
    assert again.multiselect(key="mi_f_sources").value == ["conversation"]
    assert t("memories.rows", "en", first=26, last=26, total=26) in texts(again.caption)
    assert list(table(again, "mi_table")["id"]) == shown
    # a filter change goes back to page 1
    again.text_input(key="mi_f_text").input("garden").run()
    assert again.query_params["q"] == "garden" and "page" not in again.query_params
    assert t("memories.rows", "en", first=1, last=25, total=26) in texts(again.caption)
    # a link beyond the last page shows the last one and says so; bad values are dropped
    beyond = open_url(tenant=tenant, page="9", status="bogus")
    assert t("memories.page_beyond", "en", asked=9, pages=2) in texts(beyond.warning)
    assert beyond.query_params["page"] == "2" and "status" not in beyond.query_params


def test_memories_user_agent_session_filters(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    for user, agent, session in (("u1", "a1", "s1"), ("u1", "a2", "s2"), ("u2", "a1", "s3")):
        (result,) = dash_engine.write_many(
            Scope.of(tenant, user_id=user, agent_id=agent, session_id=session),
            [WriteRequest(text=f"note of {user} {agent} {session}", source=MemorySource.MANUAL)],
            actor="test",
        )
        assert result.ok, result.error
    at = run_app(page=MEMORIES, tenant=tenant, user="u1")
    assert sorted(table(at, "mi_table")["content"]) == ["note of u1 a1 s1", "note of u1 a2 s2"]
    at.text_input(key="mi_f_agent").input("a2").run()
    assert at.query_params["agent"] == "a2"
    assert list(table(at, "mi_table")["content"]) == ["note of u1 a2 s2"]
    session = run_app(page=MEMORIES, tenant=tenant, session="s3")
    assert list(table(session, "mi_table")["content"]) == ["note of u2 a1 s3"]
    bad = run_app(page=MEMORIES, tenant=tenant, user="no spaces!")
    assert any("is not a valid id" in w for w in texts(bad.warning))
    assert len(table(bad, "mi_table")) == 7  # that filter is off


def test_trace_link_fills_the_search_form(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    result = dash_engine.search(
        Scope.of(tenant), "green tea", k=3, legs=["keyword"], token_budget=300
    )
    at = run_app(page=REPLAY, tenant=tenant, trace=str(result.trace.id))
    assert at.text_input(key="mi_q_query").value == "green tea"
    assert at.number_input(key="mi_q_k").value == 3
    assert at.number_input(key="mi_q_budget").value == 300
    assert at.checkbox(key="mi_q_keyword").value is True
    assert at.checkbox(key="mi_q_dense").value is False
    assert t("replay.past_click", "en") in texts(at.caption)
