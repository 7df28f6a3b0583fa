"""Page tests of the Write Inspector (AppTest, real engine + DB, offline rules LLM; the
tokens and cost test uses the stub's chat endpoint through the real ``openai`` client)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest
from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.llm.openai_compat import OpenAICompatLLM
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, button, run_app
from tests.support.openai_stub import OpenAIStub

PAGE = "pages/write_inspector.py"


def run_pipeline(at: AppTest, text: str, *, dry: bool, lang: str = "en") -> AppTest:
    at.text_area(key="mi_w_text").input(text)
    at.checkbox(key="mi_w_dry").set_value(dry)
    button(at, t("write.run", lang)).click().run()
    assert_clean(at)
    return at


def test_write_inspector_dry_then_real(journal_engine: MemoryEngine) -> None:
    tenant = new_tenant("write")
    scope = Scope.of(tenant)
    at = run_app(page=PAGE, tenant=tenant)
    assert [s.value for s in at.title] == ["Write Inspector"]
    assert t("write.no_history", "en") in [c.value for c in at.caption]

    run_pipeline(at, "我周五下午一般都有会，别给我排东西", dry=True)
    assert [s.value for s in at.success] == ["Remembered: matched: habit"]
    assert journal_engine.list(scope).items == []  # dry run: nothing stored
    actions = [d.value for d in at.dataframe if "action" in d.value.columns]
    assert list(actions[-1]["action"]) == ["create (dry run)"]
    dry_id = at.query_params["write"]

    run_pipeline(at, "我周五下午一般都有会，别给我排东西", dry=False)
    (mem,) = journal_engine.list(scope).items
    assert mem.content == "用户周五下午通常有会，不要安排事情"  # distilled (issue 15)
    assert at.query_params["write"] != dry_id
    shown = [d.value for d in at.dataframe if "action" in d.value.columns][-1]
    assert list(shown["action"]) == ["create"] and list(shown["memory"]) == [str(mem.id)]
    assert list(shown["detail"]) == [mem.content]

    run_pipeline(at, "你好", dry=False)
    # the skip reason is shown from its code, in the viewer's language
    skip = t("write.skip.small_talk", "en")
    assert [i.value for i in at.info] == [t("write.not_remembered", "en", reason=skip)]
    history = [d.value for d in at.dataframe if "write id" in d.value.columns]
    # the dry run is labelled as one (it was "skipped" before)
    assert len(history[0]) == 3 and list(history[0]["status"]) == ["skipped", "done", "dry run"]


def test_write_inspector_open_past_trail_in_chinese(journal_engine: MemoryEngine) -> None:
    tenant = new_tenant("write")
    scope = Scope.of(tenant)
    journal_engine.write(scope, "以后周四汇报", mode="extract")
    result = journal_engine.write(scope, "改成周五汇报", mode="extract")
    at = run_app(page=PAGE, tenant=tenant, lang="zh", write=str(result.write_id))
    assert [s.value for s in at.title] == ["写入检查"]
    headers = [h.value for h in at.subheader]
    done = t("write.status.done", "zh")  # the status in Chinese (it was the stored id)
    assert t("write.trail_of", "zh", write_id=result.write_id, status=done) in headers
    actions = [d.value for d in at.dataframe if "动作" in d.value.columns][-1]
    assert list(actions["动作"]) == ["创建", "取代"]  # action labels in Chinese (were the ids)
    run_pipeline(at, "   ", dry=True, lang="zh")
    assert [e.value for e in at.error] == [t("write.need_text", "zh")]


def test_conflicts_page_reject_restores(journal_engine: MemoryEngine) -> None:
    tenant = new_tenant("conflict")
    scope = Scope.of(tenant)
    thu = journal_engine.write(scope, "以后周四汇报", mode="extract").outcomes[0].memory_id
    journal_engine.write(scope, "改成周五汇报", mode="extract")
    at = run_app(page="pages/conflicts.py", tenant=tenant)
    (frame,) = [d.value for d in at.dataframe if "old memory" in d.value.columns]
    assert list(frame["old memory"]) == ["用户以后周四汇报"]
    assert list(frame["new memory"]) == ["用户的汇报改为周五"]
    assert list(frame["old status"]) == ["superseded"]
    button(at, t("conflicts.save", "en")).click().run()
    assert [e.value for e in at.error] == [t("conflicts.need_reason", "en")]
    at.radio(key="mi_c_decision").set_value("reject")
    at.text_input(key="mi_c_reason").input("both reports happen")
    button(at, t("conflicts.save", "en")).click().run()
    assert_clean(at)
    assert [s.value for s in at.success] == ["Review saved: Reject (restore the old memory)."]
    assert journal_engine.get(scope, thu).status == "active"
    zh = run_app(page="pages/conflicts.py", tenant=tenant, lang="zh")
    assert [s.value for s in zh.title] == ["冲突审核"]


@pytest.fixture
def stub_llm_engine(
    journal_engine: MemoryEngine, stub: OpenAIStub, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Callable[..., MemoryEngine]]:
    """Factory: ``make(input_price, output_price)`` -> the pages' engine with the stub's chat
    endpoint as its LLM (real ``openai`` client) and those prices per million tokens."""
    from memory_engine.dashboard import stores

    clients: list[OpenAICompatLLM] = []

    def make(price_in: float | None, price_out: float | None) -> MemoryEngine:
        settings = journal_engine.settings
        llm_settings = settings.llm.model_copy(
            update={"price_input_per_mtok": price_in, "price_output_per_mtok": price_out}
        )
        llm = OpenAICompatLLM(base_url=stub.base_url, model="stub-chat")
        clients.append(llm)
        engine = MemoryEngine(
            settings.model_copy(update={"llm": llm_settings}),
            store=journal_engine.store,
            embedder=journal_engine.embedder,
            journal=journal_engine.write_journal,
            llm=llm,
        )
        monkeypatch.setattr(stores, "engine_for", lambda store: engine)
        return engine

    yield make
    for llm in clients:
        llm.close()


ALLERGY = json.dumps(
    {"should_remember": True, "reason": "health", "facts": [{"content": "用户对花生过敏"}]},
    ensure_ascii=False,
)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_write_inspector_shows_tokens_and_cost_per_write_and_per_day(
    stub_llm_engine: Callable[..., MemoryEngine], stub: OpenAIStub, lang: str
) -> None:
    tenant = new_tenant("cost")
    scope = Scope.of(tenant)
    stub.chat_reply = ALLERGY
    result = stub_llm_engine(2.5, 10.0).write(scope, "我对花生过敏", mode="extract")
    prompt, completion = (sum(x) for x in zip(*stub.chat_usage, strict=True))
    cost = (prompt * 2.5 + completion * 10.0) / 1e6
    at = run_app(page=PAGE, tenant=tenant, lang=lang, write=str(result.write_id))
    col = {k: t(f"wcol.{k}", lang) for k in ("write_id", "day", "tokens_in", "tokens_out", "cost")}
    (history,) = [d.value for d in at.dataframe if col["write_id"] in d.value.columns]
    assert list(history[col["tokens_in"]]) == [prompt]
    assert list(history[col["tokens_out"]]) == [completion]
    assert list(history[col["cost"]]) == [pytest.approx(cost)]
    (per_day,) = [d.value for d in at.dataframe if col["day"] in d.value.columns]
    assert list(per_day[col["tokens_in"]]) == [prompt]
    assert list(per_day[col["cost"]]) == [pytest.approx(cost)]
    assert t("write.usage", lang) in [h.value for h in at.subheader]
    line = t(
        "write.usage_of_write",
        lang,
        prompt=prompt,
        completion=completion,
        requests=len(stub.chat_usage),
        cost=f"{cost:.6f}",
    )
    assert line in [c.value for c in at.caption]
    assert t("write.usage_unpriced", lang) not in [c.value for c in at.caption]


def test_write_inspector_without_prices_shows_tokens_and_how_to_get_the_cost(
    stub_llm_engine: Callable[..., MemoryEngine], stub: OpenAIStub
) -> None:
    tenant = new_tenant("noprice")
    stub.chat_reply = ALLERGY
    result = stub_llm_engine(None, None).write(Scope.of(tenant), "我对花生过敏", mode="extract")
    at = run_app(page=PAGE, tenant=tenant, write=str(result.write_id))
    (per_day,) = [d.value for d in at.dataframe if "day (UTC)" in d.value.columns]
    assert list(per_day["tokens in"]) == [stub.chat_usage[0][0]]
    assert per_day["cost"].isna().all()
    captions = [c.value for c in at.caption]
    assert t("write.usage_unpriced", "en") in captions
    assert any(c.endswith("cost " + t("write.cost_unpriced", "en")) for c in captions)
