"""The Memories page and the entity index (AppTest, real engine + DB): the entity filter lists
the tenant's entities with counts and narrows the table to one normalised entity; the detail
view lists the memory's entities; both in English and Chinese."""

from __future__ import annotations

from memory_engine import MemoryEngine, MemorySource, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.write.raw import WriteRequest
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import MEMORIES, assert_clean, run_app, table, texts


def _tenant_with_entities(engine: MemoryEngine) -> tuple[str, list[str]]:
    tenant = new_tenant("dashent")
    requests = [
        WriteRequest(text="ACME approved the budget", entities=("ACME",)),
        WriteRequest(text="Met with ACME today", entities=("ＡＣＭＥ Inc.",)),
        WriteRequest(text="acme sent the contract", entities=("acme", "Priya")),
        WriteRequest(text="用户的儿子下个月生日", entities=("用户的儿子",)),
        WriteRequest(text="Unrelated note about the garden"),
    ]
    requests = [r.model_copy(update={"source": MemorySource.MANUAL}) for r in requests]
    results = engine.write_many(Scope.of(tenant), requests, actor="test")
    assert all(r.ok for r in results), [r.error for r in results]
    return tenant, [str(r.memory_ids[0]) for r in results]


def test_entity_filter_narrows_to_one_normalised_entity(dash_engine: MemoryEngine) -> None:
    tenant, ids = _tenant_with_entities(dash_engine)
    at = run_app(page=MEMORIES, tenant=tenant)
    box = at.selectbox(key="mi_f_entity")
    assert box.label == t("memories.filter_entity", "en")
    assert box.proto.placeholder == t("memories.filter_any", "en")
    assert list(box.options) == [
        "ACME (3)",  # the display name first seen, one entity for every spelling
        "Priya (1)",
        "用户的儿子 (1)",
    ]
    assert len(table(at, "mi_table")) == 5
    box.set_value("acme").run()
    assert_clean(at)
    assert sorted(table(at, "mi_table")["content"]) == sorted(
        ["ACME approved the budget", "Met with ACME today", "acme sent the contract"]
    )
    at.selectbox(key="mi_f_entity").set_value("用户的儿子").run()
    assert list(table(at, "mi_table")["content"]) == ["用户的儿子下个月生日"]


def test_detail_lists_the_memory_entities(dash_engine: MemoryEngine) -> None:
    tenant, ids = _tenant_with_entities(dash_engine)
    at = run_app(page=MEMORIES, tenant=tenant, memory=ids[2])
    assert_clean(at)
    shown = texts(at.markdown)
    assert f"**{t('memories.entities', 'en')}**" in shown
    assert "ACME · Priya" in shown  # the entities' display names, in the order it names them
    plain = run_app(page=MEMORIES, tenant=tenant, memory=ids[4])
    assert t("memories.entities_empty", "en") in texts(plain.caption)


def test_entity_views_in_chinese(dash_engine: MemoryEngine) -> None:
    tenant, ids = _tenant_with_entities(dash_engine)
    at = run_app(page=MEMORIES, tenant=tenant, lang="zh", memory=ids[3])
    assert_clean(at)
    box = at.selectbox(key="mi_f_entity")
    assert box.label == "实体" and box.proto.placeholder == "不限"
    assert "ACME（3）" in list(box.options)
    assert "**实体**" in texts(at.markdown) and "用户的儿子" in texts(at.markdown)
    plain = run_app(page=MEMORIES, tenant=tenant, lang="zh", memory=ids[4])
    assert "这条记忆没有关联实体。" in texts(plain.caption)
