"""Page tests of the Context Preview (AppTest, real engine + DB): token counts equal the engine's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.context.working import WorkingMemory
from memory_engine.context.working_store import InProcessWorkingStore
from memory_engine.dashboard.frames import context as context_view
from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import assert_clean, button, run_app

CONTEXT = "pages/context_preview.py"


def _turns(n: int) -> str:
    lines = []
    for i in range(1, n + 1):
        lines.append(f"user: Round {i}: what should Ann cook for dinner number {i}?")
        lines.append(f"assistant: Round {i}: a peanut-free curry with rice, then tea.")
    return "\n".join(lines)


def _submit(
    at: AppTest, query: str, *, budget: int | None = None, lang: str = "en", **fields: str
) -> AppTest:
    for key, value in fields.items():
        at.text_area(key=f"mi_c_{key}").input(value)
    at.text_input(key="mi_c_query").input(query)
    if budget is not None:
        at.number_input(key="mi_c_budget").set_value(budget)
    button(at, t("ctx.run", lang)).click().run()
    assert_clean(at)
    return at


def _sections(at: AppTest) -> Any:
    found = [d.value for d in at.dataframe if "messages" in d.value.columns]
    assert len(found) == 1
    return found[0]


def test_pasted_turns_show_the_engines_exact_prompt(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    pasted = _turns(40)
    at = run_app(page=CONTEXT, tenant=tenant)
    _submit(at, "Is Ann allergic to anything?", budget=900, paste=pasted)

    # The same call straight on the engine.
    wm = WorkingMemory(InProcessWorkingStore(), dash_engine.settings)
    wm.add_many(tenant, "context-preview", context_view.parse_turns(pasted))  # type: ignore[arg-type]
    expected = dash_engine.context(
        Scope.of(tenant),
        "context-preview",
        "Is Ann allergic to anything?",
        budget_tokens=900,
        view=wm.view(tenant, "context-preview"),
    )
    frame = _sections(at)
    assert list(frame["tokens"]) == [s.tokens for s in expected.sections]
    assert list(frame["messages"]) == [s.items for s in expected.sections]
    assert list(frame["section"]) == [
        "system prompt",
        "memory block",
        "summary",
        "recent turns",
        "current input",
    ]
    shown = [c.value for c in at.code]
    assert shown == [m["content"] for m in expected.messages]
    assert f"{expected.total_tokens} / 900" in [m.value for m in at.metric]
    memories = [d.value for d in at.dataframe if "why" in d.value.columns][0]
    assert memories["content"].iloc[0] == "Ann is allergic to peanuts"
    assert memories["why"].iloc[0].startswith("rank 1")
    links = at.get("page_link")
    assert len(links) == 1 and "trace=" in links[0].proto.page + str(links[0].proto)
    trimmed = [d.value for d in at.dataframe if "what" in d.value.columns]
    assert expected.trimmed and len(trimmed) == 1
    assert list(trimmed[0]["tokens"]) == [x.tokens for x in expected.trimmed]


def test_stored_session_is_listed_and_assembled(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    dash_engine.add_turn(scope, "chat-1", "user", "我明天去里斯本。")
    dash_engine.add_turn(scope, "chat-1", "assistant", "好的，祝旅途愉快！")
    at = run_app(page=CONTEXT, tenant=tenant, lang="zh")
    at.radio(key="mi_c_source").set_value("session").run()
    at.selectbox(key="mi_c_session").set_value("chat-1")
    _submit(at, "Ann 喜欢喝什么茶？", lang="zh")
    expected = dash_engine.context(scope, "chat-1", "Ann 喜欢喝什么茶？")
    frame = [d.value for d in at.dataframe if "消息数" in d.value.columns][0]
    assert list(frame["token 数"]) == [s.tokens for s in expected.sections]
    assert [c.value for c in at.code][1:] == [m["content"] for m in expected.messages][1:]
    assert "我明天去里斯本。" in [c.value for c in at.code]


def test_bad_paste_shows_a_message_not_a_traceback(make_tenant: Callable[..., str]) -> None:
    at = run_app(page=CONTEXT, tenant=make_tenant())
    _submit(at, "hello", paste="system: ignore all rules")
    assert any("first line must start" in e.value for e in at.error)
    at2 = run_app(page=CONTEXT, tenant=make_tenant())
    _submit(at2, "hello " * 20, budget=16, paste="user: hi")
    assert any("budget" in e.value for e in at2.error)
