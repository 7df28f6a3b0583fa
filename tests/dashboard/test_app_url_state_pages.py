"""Page tests (AppTest, real engine + PostgreSQL): every page other than Memories shows the
view its URL describes (a reload or a shared link is a new session with the same URL), and a
change made on the page is written back to the URL. Values a page cannot use are dropped from
the URL and the default is shown."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable
from datetime import timedelta

from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope, waterfall, why_not
from memory_engine.dashboard.frames.retrieval import stage_name
from memory_engine.dashboard.i18n import t
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import REPLAY, assert_clean, button, run_app, texts
from tests.dashboard.test_app_replay_waterfall import QUERY, recall_tenant

RETENTION = "pages/retention.py"
AUDIT = "pages/audit.py"
CONTEXT = "pages/context_preview.py"
CONFLICTS = "pages/conflicts.py"
WRITE_EVAL = "pages/write_eval.py"
ISOLATION = "pages/isolation.py"
OVERVIEW = "pages/overview.py"
WRITE = "pages/write_inspector.py"


def test_overview_link_keeps_tenant_and_language(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    at = run_app(page=OVERVIEW, tenant=tenant, lang="zh")
    assert [x.value for x in at.title] == [t("overview.title", "zh")]
    assert t("overview.tenant_header", "zh", tenant=tenant) in texts(at.subheader)
    assert at.query_params["tenant"] == tenant and at.query_params["lang"] == "zh"


def test_retention_what_if_and_memory_from_the_url(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    memories = dash_engine.list(Scope.of(tenant)).items
    target = str(memories[-1].id)
    at = run_app(
        page=RETENTION,
        tenant=tenant,
        preset="weighted",
        half="12",
        floor="0.25",
        bottom="0.3",
        purge="45",
        memory=target,
    )
    assert at.selectbox(key="mi_ret_preset").value == "weighted"
    assert at.slider(key="mi_ret_half_weighted").value == 12.0
    assert at.slider(key="mi_ret_floor_weighted").value == 0.25
    assert at.slider(key="mi_ret_bottom").value == 0.3
    assert at.slider(key="mi_ret_purge").value == 45.0
    assert at.selectbox(key="mi_ret_memory").value == target
    # a change on the page goes to the URL; back at the default it leaves the URL
    at.slider(key="mi_ret_bottom").set_value(0.5).run()
    assert at.query_params["bottom"] == "0.5"
    at.slider(key="mi_ret_half_weighted").set_value(30.0).run()
    assert at.query_params["half"] == "30"
    # another preset starts from its own defaults
    at.selectbox(key="mi_ret_preset").set_value("decay").run()
    assert_clean(at)
    assert "half" not in at.query_params and "floor" not in at.query_params
    # out of range, not a number, an unknown memory: dropped, the defaults shown
    bad = run_app(page=RETENTION, tenant=tenant, half="999", weight="x", memory="nope")
    assert "half" not in bad.query_params and "weight" not in bad.query_params
    assert "memory" not in bad.query_params
    assert bad.selectbox(key="mi_ret_memory").value in {str(m.id) for m in memories}
    assert (
        bad.slider(key="mi_ret_half_decay").value == dash_engine.retention_params().half_life_days
    )


def test_query_replay_trace_candidate_and_why_not_from_the_url(dash_engine: MemoryEngine) -> None:
    tenant, (older, newer) = recall_tenant(dash_engine)
    result = dash_engine.search(Scope.of(tenant), QUERY, k=3)
    at = run_app(
        page=REPLAY,
        tenant=tenant,
        lang="zh",
        trace=str(result.trace.id),
        all="1",
        cand=str(newer),
        why=str(older),
    )
    assert at.text_input(key="mi_q_query").value == QUERY
    assert at.toggle(key="mi_wf_all").value is True
    assert at.selectbox(key="mi_wf_pick").value == str(newer)
    assert at.selectbox(key="mi_why_pick").value == str(older)
    asked = why_not(result.trace, older)
    verdict = t("why.verdict", "zh", verdict=t(f"why.v.{asked.verdict}", "zh"),
                stage=stage_name(asked.stage, "zh"))  # fmt: skip
    assert verdict in texts(at.markdown)
    # picking another candidate writes it to the URL
    at.selectbox(key="mi_wf_pick").set_value(str(older)).run()
    assert at.query_params["cand"] == str(older)
    at.toggle(key="mi_wf_all").set_value(False).run()
    assert "all" not in at.query_params
    # a candidate id of no candidate of this trace: dropped, the first returned one shown
    stale = run_app(page=REPLAY, tenant=tenant, trace=str(result.trace.id), cand=str(uuid.uuid4()))
    assert "cand" not in stale.query_params
    first = next(c for c in waterfall(result.trace).candidates)
    assert stale.selectbox(key="mi_wf_pick").value == str(first.memory_id)


def test_audit_as_of_fields_and_compared_search_from_the_url(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    memory = dash_engine.list(scope).items[0]
    dash_engine.update(scope, memory.id, expected_version=memory.version,
                       content="Ann is allergic to peanuts and cashews", reason="user said",
                       actor="test")  # fmt: skip
    update = next(
        e for e in dash_engine.events(scope, limit=50).items if e.action.value == "update"
    )
    trace = dash_engine.search(scope, "allergic", k=2).trace
    at = run_app(
        page=AUDIT,
        tenant=tenant,
        event=str(update.id),
        fields="1",
        asof="2024-05-01",
        asof_time="10:30",
        cmp=str(trace.id),
    )
    assert at.selectbox(key="mi_audit_event").value == update.id
    assert at.toggle(key="mi_audit_all_fields").value is True
    assert str(at.date_input(key="mi_audit_asof_day").value) == "2024-05-01"
    assert str(at.time_input(key="mi_audit_asof_time").value) == "10:30:00"
    assert at.selectbox(key="mi_audit_trace").value == str(trace.id)
    parts = re.split(r"\{[a-z_]+\}", t("audit.compare_summary", "en"))
    summary = re.compile(r"\d+".join(re.escape(p) for p in parts))
    assert any(summary.fullmatch(c) for c in texts(at.caption))  # the comparison is shown
    at.toggle(key="mi_audit_all_fields").set_value(False).run()
    assert "fields" not in at.query_params
    other_day = memory.created_at.date() - timedelta(days=3)  # not today, the default
    at.date_input(key="mi_audit_asof_day").set_value(other_day).run()
    assert at.query_params["asof"] == other_day.isoformat()
    at.date_input(key="mi_audit_asof_day").set_value(memory.created_at.date()).run()
    assert "asof" not in at.query_params  # today is the default: the URL leaves it out


def test_context_preview_link_shows_the_same_preview(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    pasted = "user: I am cooking for Ann tonight\nassistant: Noted, what will you cook?"
    at = run_app(page=CONTEXT, tenant=tenant)
    at.text_area(key="mi_c_paste").input(pasted)
    at.text_input(key="mi_c_query").input("Is Ann allergic to anything?")
    at.number_input(key="mi_c_budget").set_value(900)
    button(at, t("ctx.run", "en")).click().run()
    assert_clean(at)
    assert at.query_params["q"] == "Is Ann allergic to anything?"
    assert at.query_params["budget"] == "900" and at.query_params["paste"] == pasted
    shown = [d.value for d in at.dataframe if d.key == "mi_c_memories"] or [
        d.value for d in at.dataframe if "messages" in d.value.columns
    ]
    assert shown
    # the same URL in a new session: the form filled and the same preview computed
    again = run_app(page=CONTEXT, **url_of(at))
    assert again.text_input(key="mi_c_query").value == "Is Ann allergic to anything?"
    assert again.text_area(key="mi_c_paste").value == pasted
    assert again.number_input(key="mi_c_budget").value == 900
    metrics = {m.label: m.value for m in again.metric}
    assert metrics == {m.label: m.value for m in at.metric}
    contents = [" ".join(texts(a.code)) for a in (at, again)]
    assert contents[0] == contents[1] and "Ann is allergic to peanuts" in contents[1]


def url_of(at: AppTest) -> dict[str, str]:
    """The page's URL parameters (the last value of a repeated one)."""
    params = {}
    for name in at.query_params:
        value = at.query_params[name]
        params[name] = str(value[-1] if isinstance(value, list) else value)
    return params


def test_conflicts_pick_and_decision_from_the_url(journal_engine: MemoryEngine) -> None:
    tenant = new_tenant("conflict")
    scope = Scope.of(tenant)
    journal_engine.write(scope, "以后周四汇报", mode="extract")
    journal_engine.write(scope, "改成周五汇报", mode="extract")
    item = journal_engine.list_conflicts(scope, limit=5)["items"][0]
    key = f"{item['write_id']}:{item['old_id']}"
    at = run_app(page=CONFLICTS, tenant=tenant, lang="zh", conflict=key, decision="reject")
    assert at.selectbox(key="mi_c_pick").value == key
    assert at.radio(key="mi_c_decision").value == "reject"
    at.radio(key="mi_c_decision").set_value("accept").run()
    assert "decision" not in at.query_params  # the default
    bad = run_app(page=CONFLICTS, tenant=tenant, conflict="no:such", decision="maybe")
    assert "conflict" not in bad.query_params and "decision" not in bad.query_params
    assert bad.selectbox(key="mi_c_pick").value == key


def test_write_eval_configurations_from_the_url() -> None:
    at = run_app(
        page=WRITE_EVAL, split="heldout", limit="3", model_b="my-model", provider_a="rules"
    )
    assert at.selectbox(key="mi_we_split").value == "heldout"
    assert at.number_input(key="mi_we_limit").value == 3
    assert at.text_input(key="mi_we_model_B").value == "my-model"
    assert at.selectbox(key="mi_we_provider_A").value == "rules"
    # the form's values reach the URL when it is run
    at.selectbox(key="mi_we_split").set_value("dev")
    at.number_input(key="mi_we_limit").set_value(1)
    button(at, t("weval.run", "en")).click().run()
    assert_clean(at)
    assert "split" not in at.query_params and at.query_params["limit"] == "1"
    assert at.query_params["model_b"] == "my-model"


def test_isolation_tenants_from_the_url() -> None:
    at = run_app(page=ISOLATION, tenants="5")
    assert at.slider(key="mi_iso_tenants").value == 5
    at.slider(key="mi_iso_tenants").set_value(2).run()
    assert at.query_params["tenants"] == "2"
    assert run_app(page=ISOLATION, tenants="60").slider(key="mi_iso_tenants").value == 3


def test_write_inspector_trail_from_the_url(journal_engine: MemoryEngine) -> None:
    tenant = new_tenant("write")
    result = journal_engine.write(Scope.of(tenant), "以后周四汇报", mode="extract")
    at = run_app(page=WRITE, tenant=tenant, write=str(result.write_id))
    assert at.selectbox(key="mi_w_pick").value == str(result.write_id)
    done = t("write.status.done", "en")
    assert t("write.trail_of", "en", write_id=result.write_id, status=done) in texts(at.subheader)


def test_unknown_tenant_values_never_leak_into_another_view(
    make_tenant: Callable[..., str],
) -> None:
    """A page's parameters belong to its tenant: a tenant change drops them."""
    tenant, other = make_tenant(), make_tenant()
    at = run_app(page=RETENTION, tenant=tenant, bottom="0.3")
    at.selectbox(key="mi_w_tenant").set_value(other).run()
    assert_clean(at)
    assert at.query_params["tenant"] == other and "bottom" not in at.query_params
