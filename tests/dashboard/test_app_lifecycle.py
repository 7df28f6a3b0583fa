"""Retention and Audit pages (AppTest, real engine + PostgreSQL): the chart value of a memory
equals the engine's (frozen-clock case: importance 0.8, untouched 30 days -> 0.4), the next
maintenance counts, running maintenance from the page, the audit log, diff, as-of, timeline."""

from __future__ import annotations

from datetime import timedelta

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.models import EventAction, Memory, MemoryStatus, utcnow
from memory_engine.stores.base import NewMemory
from memory_engine.text import content_hash, tokenize
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, run_app, texts

RETENTION = "pages/retention.py"
AUDIT = "pages/audit.py"


def _seed(engine: MemoryEngine, tenant: str, text: str, importance: float, days_ago: int) -> str:
    when = utcnow() - timedelta(days=days_ago)
    memory = Memory(
        tenant_id=tenant,
        content=text,
        importance=importance,
        created_at=when,
        updated_at=when,
        content_hash=content_hash(text),
    )
    vec = engine.embedder.embed([text])[0]
    engine.store.insert(
        [
            NewMemory(
                memory=memory, embedding=tuple(float(x) for x in vec), terms=tuple(tokenize(text))
            )
        ],
        scope=Scope.of(tenant),
        actor="test",
    )
    return str(memory.id)


@pytest.fixture
def aged_tenant(dash_engine: MemoryEngine) -> tuple[str, str, str]:
    tenant = new_tenant("ret")
    target = _seed(dash_engine, tenant, "Ann's favourite tea is sencha", 0.8, 30)
    low = _seed(dash_engine, tenant, "it was cloudy that afternoon", 0.01, 200)
    _seed(dash_engine, tenant, "Ann's passport expires in 2031", 1.0, 1)
    return tenant, target, low


def test_retention_value_equals_engine_and_next_maintenance(
    dash_engine: MemoryEngine, aged_tenant: tuple[str, str, str]
) -> None:
    tenant, target, low = aged_tenant
    s = Scope.of(tenant)
    at = run_app(page=RETENTION, tenant=tenant)
    page_now = at.session_state["mi_ret_now"]
    table = next(d.value for d in at.dataframe if "accesses" in d.value.columns)
    row = table[table["id"] == target]
    shown = float(row["retention"].iloc[0])
    assert shown == dash_engine.retention(s, target, now=page_now)  # the same function
    assert shown == pytest.approx(0.4, abs=1e-5)  # 0.8 x 0.5^(30/30) + 0.1 x ln(1)
    assert list(table["id"])[0] == low  # lowest first
    plan = dash_engine.plan_maintenance(s, now=page_now)
    assert plan.counts() == {"archive": 1, "purge": 0, "expire": 0}
    assert t("retention.next", "en", **plan.counts()) in texts(at.info)

    at.selectbox(key="mi_ret_memory").set_value(target).run()
    assert_clean(at)
    assert at.metric[0].value == f"{dash_engine.retention(s, target, now=page_now):.4f}"
    assert at.metric[0].value == "0.4000"

    # what-if: half-life 1 day and the whole ranking: the 30- and 200-day-old memories fall
    # below the 0.05 floor, the 1-day-old one keeps 1.0 x 0.5 = 0.5
    at.slider(key="mi_ret_half_decay").set_value(1.0).run()
    at.slider(key="mi_ret_bottom").set_value(1.0).run()
    assert_clean(at)
    assert t("retention.next", "en", archive=2, purge=0, expire=0) in texts(at.info)


def test_run_maintenance_from_the_page(
    dash_engine: MemoryEngine, aged_tenant: tuple[str, str, str]
) -> None:
    tenant, target, low = aged_tenant
    s = Scope.of(tenant)
    at = run_app(page=RETENTION, tenant=tenant, lang="zh")
    assert at.button(key="mi_ret_run").disabled
    at.checkbox(key="mi_ret_confirm").check().run()
    at.button(key="mi_ret_run").click().run()
    assert_clean(at)
    assert t("retention.done", "zh", archive=1, purge=0, expire=0, skipped=0) in texts(at.success)
    assert dash_engine.get(s, low).status is MemoryStatus.ARCHIVED
    assert dash_engine.get(s, target).status is MemoryStatus.ACTIVE
    last = dash_engine.history(s, low).items[-1]
    assert (last.action, last.actor) == (EventAction.ARCHIVE, "dashboard:local")


def test_audit_page_log_diff_asof_timeline(
    dash_engine: MemoryEngine, aged_tenant: tuple[str, str, str]
) -> None:
    tenant, target, _ = aged_tenant
    s = Scope.of(tenant)
    dash_engine.update(
        s, target, expected_version=1, content="Ann's favourite tea is gyokuro", reason="fix"
    )
    at = run_app(page=AUDIT, tenant=tenant, memory=target)
    events = next(d.value for d in at.dataframe if "memory" in d.value.columns)
    assert list(events["action"]) == ["update", "create", "create", "create"]
    assert t("audit.loaded", "en", shown=4, total=4) in texts(at.caption)
    at.multiselect(key="mi_audit_action").set_value(["update"]).run()
    assert t("audit.filtered", "en", n=1) in texts(at.caption)
    update_id = int(
        next(d.value for d in at.dataframe if "memory" in d.value.columns)["id"].iloc[0]
    )
    at.selectbox(key="mi_audit_event").set_value(update_id).run()
    assert_clean(at)
    diff = next(d.value for d in at.dataframe if "field" in d.value.columns)
    first = diff.iloc[0]
    assert (first["before"], first["after"]) == (
        "Ann's favourite tea is sencha",
        "Ann's favourite tea is gyokuro",
    )
    asof = next(d.value for d in at.dataframe if "valid until" in d.value.columns)
    assert len(asof) == 3
    timeline = next(
        d.value
        for d in at.dataframe
        if "version" in d.value.columns and "reason" in d.value.columns
    )
    assert list(timeline["action"]) == ["create", "update"]
    assert [d.label for d in at.get("download_button")] == ["Export CSV", "Export JSON"]
    zh = run_app(page=AUDIT, tenant=tenant, lang="zh")
    assert_clean(zh)


def test_memory_detail_links_to_its_timeline(
    dash_engine: MemoryEngine, aged_tenant: tuple[str, str, str]
) -> None:
    tenant, target, _ = aged_tenant
    at = run_app(page="pages/memories.py", tenant=tenant, memory=target)
    links = [x for x in at.get("page_link") if x.proto.label == t("memories.timeline_link", "en")]
    assert len(links) == 1 and links[0].proto.page == "audit"
    assert f"memory={target}" in links[0].proto.query_string


def test_audit_compares_a_stored_search_then_and_now(dash_engine: MemoryEngine) -> None:
    tenant = new_tenant("cmp")
    s = Scope.of(tenant)
    (old,) = dash_engine.write(s, "The standup is at 9am").memory_ids
    trace = dash_engine.search(s, "when is the standup").trace
    (new,) = dash_engine.write(s, "The standup moved to 11am").memory_ids
    dash_engine.archive(s, old, expected_version=1)
    at = run_app(page=AUDIT, tenant=tenant)
    at.selectbox(key="mi_audit_trace").set_value(str(trace.id)).run()
    assert_clean(at)
    summary = t("audit.compare_summary", "en", entered=1, left=1, moved=0, unchanged=0, erased=0)
    assert summary in texts(at.caption)
    frame = next(d.value for d in at.dataframe if "rank then" in d.value.columns)
    assert dict(zip(frame["id"], frame["change"], strict=True)) == {
        str(new): "entered",
        str(old): "left",
    }
