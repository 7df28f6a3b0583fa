"""Page tests of safe editing on the Memories page (AppTest, real engine + DB): delete asks for
confirmation, archive and delete can be undone (flash message or history), purge needs the
typed id, the reason persists, a deleted memory is read-only, bulk actions with one reason.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_engine import MemoryEngine, MemoryStatus, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.errors import MemoryNotFoundError
from tests.dashboard.helpers import MEMORIES, assert_clean, memories_table, run_app, table, texts


def _open(tenant: str, **params: str):  # noqa: ANN202 - an AppTest
    at = run_app(page=MEMORIES, tenant=tenant, **params)
    mid = str(memories_table(at).value.iloc[0, 0])  # the id column (its header is translated)
    at.selectbox(key="mi_w_memory").set_value(mid).run()
    assert_clean(at)
    return at, mid


def test_archive_undo_from_the_flash_message(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at, mid = _open(tenant)
    at.text_input(key=f"mi_l_reason_{mid}_1").input("stale")
    at.button(key="mi_memories.archive").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).status is MemoryStatus.ARCHIVED
    assert t("memories.status_changed", "en", status="archived", version=2) in texts(at.success)
    # the reason stays for the next action, the panel is still there
    assert at.text_input(key=f"mi_l_reason_{mid}_2").value == "stale"
    assert at.button(key="mi_memories.restore").disabled is False
    at.button(key="mi_undo").click().run()
    assert_clean(at)
    now = dash_engine.get(scope, mid)
    assert (now.status, now.version) == (MemoryStatus.ACTIVE, 3)
    last = dash_engine.history(scope, mid).items[-1]
    assert (last.action.value, last.reason) == ("restore", "undo of archive: stale")
    assert t("memories.undone", "en", n=1, action="archive") in texts(at.success)
    # the edit form follows the new version, not a stale one
    assert not any("is now at version" in w for w in texts(at.warning))


def test_delete_confirm_then_undo_from_history_returns_to_archived(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at, mid = _open(tenant)
    dash_engine.archive(scope, mid, expected_version=1, reason="old")
    at.run()  # someone else archived it: the page offers to reload
    at.button(key="mi_reload").click().run()  # the page shows version 2 (archived)
    at.text_input(key=f"mi_l_reason_{mid}_2").input("wrong fact")
    at.button(key="mi_memories.delete").click().run()
    assert dash_engine.get(scope, mid).status is MemoryStatus.ARCHIVED  # not yet
    at.button(key="mi_delete_confirm_no").click().run()  # cancel: nothing happens
    assert dash_engine.get(scope, mid).status is MemoryStatus.ARCHIVED
    assert not any(w.startswith("Delete memory") for w in texts(at.warning))
    at.button(key="mi_memories.delete").click().run()
    at.button(key="mi_delete_confirm_yes").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).status is MemoryStatus.DELETED
    assert t("memories.status_changed", "en", status="deleted", version=3) in texts(at.success)
    # a deleted memory is read-only: the form and archive/delete are disabled, with the reason
    assert t("memories.deleted_note", "en") in texts(at.info)
    assert at.text_area(key=f"mi_e_content_{mid}_3").disabled
    assert at.button(key="mi_memories.archive").disabled
    assert at.button(key="mi_memories.delete").disabled
    assert at.button(key="mi_memories.restore").disabled is False
    at.run()  # the flash (and its Undo) is gone; the history still offers the undo
    assert not [b for b in at.button if b.key == "mi_undo"]
    at.button(key="mi_history_undo").click().run()
    assert_clean(at)
    assert dash_engine.get(scope, mid).status is MemoryStatus.ARCHIVED  # as before the delete
    actions = [(e.action.value, e.reason) for e in dash_engine.history(scope, mid).items]
    assert actions[-2:] == [
        ("restore", "undo of delete: wrong fact"),
        ("archive", "undo of delete: wrong fact"),
    ]


def test_purge_needs_the_typed_id(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at, mid = _open(tenant)
    at.text_input(key=f"mi_l_reason_{mid}_1").input("erasure request")
    assert at.button(key="mi_memories.purge").disabled
    at.text_input(key=f"mi_purge_confirm_{mid}").input("wrong").run()
    assert at.button(key="mi_memories.purge").disabled
    at.text_input(key=f"mi_purge_confirm_{mid}").input(mid[:8]).run()
    assert not at.button(key="mi_memories.purge").disabled
    at.button(key="mi_memories.purge").click().run()
    assert_clean(at)
    with pytest.raises(MemoryNotFoundError):
        dash_engine.get(scope, mid)
    assert t("memories.purged", "en", id=mid[:8]) in texts(at.success)
    assert "memory" not in at.query_params


def test_bulk_archive_undo_retag_and_confirmed_delete(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at = run_app(page=MEMORIES, tenant=tenant)
    ids = list(table(at, "mi_table")["id"])[:2]
    assert at.button(key="mi_bulk_apply").disabled  # nothing selected
    at.multiselect(key="mi_bulk_ids").set_value(ids).run()
    at.selectbox(key="mi_bulk_action").set_value("archive").run()
    at.text_input(key="mi_bulk_reason").input("duplicates").run()
    at.button(key="mi_bulk_apply").click().run()
    assert_clean(at)
    assert {dash_engine.get(scope, i).status for i in ids} == {MemoryStatus.ARCHIVED}
    assert t("memories.archived_n", "en", n=2) in texts(at.success)
    assert at.multiselect(key="mi_bulk_ids").value == []  # the selection is cleared
    for i in ids:
        last = dash_engine.history(scope, i).items[-1]
        assert (last.action.value, last.reason, last.actor) == (
            "archive",
            "duplicates",
            "dashboard:local",
        )
    at.button(key="mi_undo").click().run()
    assert {dash_engine.get(scope, i).status for i in ids} == {MemoryStatus.ACTIVE}
    # retag: add one tag, remove another, same reason field (kept)
    at.button(key="mi_bulk_all").click().run()
    assert len(at.multiselect(key="mi_bulk_ids").value) == 4
    at.selectbox(key="mi_bulk_action").set_value("retag").run()
    assert at.text_input(key="mi_bulk_reason").value == "duplicates"
    at.text_input(key="mi_bulk_add").input("reviewed")
    at.text_input(key="mi_bulk_remove").input("food").run()
    at.button(key="mi_bulk_apply").click().run()
    assert_clean(at)
    tags = {m.content: m.tags for m in dash_engine.list(scope, limit=10).items}
    assert tags["Ann prefers green tea in the morning"] == ("reviewed",)
    assert all("reviewed" in v for v in tags.values())
    # bulk delete asks first
    at.multiselect(key="mi_bulk_ids").set_value(ids).run()
    at.selectbox(key="mi_bulk_action").set_value("delete").run()
    at.button(key="mi_bulk_apply").click().run()
    assert {dash_engine.get(scope, i).status for i in ids} == {MemoryStatus.ACTIVE}
    assert t("memories.confirm_delete_many", "en", n=2) in texts(at.warning)
    at.button(key="mi_bulk_confirm_yes").click().run()
    assert_clean(at)
    assert {dash_engine.get(scope, i).status for i in ids} == {MemoryStatus.DELETED}


def test_bulk_reports_memories_it_could_not_change(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    at = run_app(page=MEMORIES, tenant=tenant)
    ids = list(table(at, "mi_table")["id"])[:2]
    at.multiselect(key="mi_bulk_ids").set_value(ids).run()
    at.selectbox(key="mi_bulk_action").set_value("restore").run()
    at.text_input(key="mi_bulk_reason").input("bring back").run()
    at.button(key="mi_bulk_apply").click().run()  # both are active: nothing to restore
    assert_clean(at)
    assert t("memories.restored_n", "en", n=0) in "".join(texts(at.warning))
    assert sum("was not changed" in w for w in "".join(texts(at.warning)).split("\n")) == 2
    assert [dash_engine.get(scope, i).version for i in ids] == [1, 1]


def test_chinese_flash_and_confirmation(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    at, mid = _open(tenant, lang="zh")
    at.text_input(key=f"mi_l_reason_{mid}_1").input("过时")
    at.button(key="mi_memories.archive").click().run()
    assert_clean(at)
    assert "记忆状态已变为已归档（版本 2）。" in texts(at.success)
    assert [b.label for b in at.button if b.key == "mi_undo"] == ["撤销归档"]
    at.button(key="mi_memories.delete").click().run()
    assert any(w.startswith(f"确定删除记忆 {mid[:8]}") for w in texts(at.warning))
    assert [b.label for b in at.button if b.key == "mi_delete_confirm_yes"] == ["确认删除"]
