"""Page tests of the Memory Inspector (AppTest, real engine + DB): the memories page
(pagination, filters, detail, edit, archive/restore/delete, export).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from memory_engine import MemoryEngine, MemoryStatus, Scope
from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import (
    MEMORIES,
    assert_clean,
    button,
    checked_rows,
    click_rows,
    first_id,
    has_table,
    memories_table,
    run_app,
    shown_memory_id,
    table,
    texts,
)


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
    assert (last.action.value, last.actor, last.reason) == (
        "update",
        "dashboard:local",
        "fix wording",
    )
    # the form now edits version 2
    assert at.text_area(key=f"mi_e_content_{mid}_2").value == saved.content
    assert any(h == "update" for h in table(at, "mi_history")["action"])
    # a second, consecutive edit also reaches the database (docs/architecture.md#f13-dashboard)
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
    # delete asks first: nothing changes until the confirmation
    assert dash_engine.get(scope, mid).status == MemoryStatus.ACTIVE
    assert any(w.startswith(f"Delete memory {mid[:8]}") for w in texts(at.warning))
    at.button(key="mi_delete_confirm_yes").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).status == MemoryStatus.DELETED
    actions = [(e.action.value, e.reason) for e in dash_engine.history(scope, mid).items]
    assert actions[-3:] == [("archive", "stale"), ("restore", "needed again"), ("delete", "wrong")]


def test_export_buttons_present(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant()
    at = run_app(page=MEMORIES, tenant=tenant)
    downloads = at.get("download_button")
    assert len(downloads) == 2
