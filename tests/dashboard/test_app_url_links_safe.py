"""Shared links are read, never acted on (AppTest, real engine + PostgreSQL): garbage in a
page's parameters shows the page with its defaults (no traceback, no engine error), and a
Context Preview link shows its preview without recording anything (no search trace, no access
counted) until the user presses Assemble."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import assert_clean, button, run_app, texts

CONTEXT = "pages/context_preview.py"

#: Free-text parameters of each page (a value reaching the engine as typed text).
TEXT_PARAMS = {
    "pages/memories.py": ("q", "user", "agent", "session"),
    CONTEXT: ("q", "paste", "system"),
}


@pytest.mark.parametrize("page", list(TEXT_PARAMS))
@pytest.mark.parametrize("lang", ["en", "zh"])
def test_control_characters_in_a_link_fall_back_to_the_defaults(
    page: str, lang: str, make_tenant: Callable[..., str]
) -> None:
    """``%00`` in a text parameter once stopped the page with PostgreSQL's NUL error."""
    tenant = make_tenant()
    params = dict.fromkeys(TEXT_PARAMS[page], "Ann\x00 我")
    at = run_app(page=page, tenant=tenant, lang=lang, src="paste", **params)
    assert not at.error, texts(at.error)
    for name in TEXT_PARAMS[page]:
        assert name not in at.query_params, name  # dropped from the link
    if page == CONTEXT:
        assert at.text_input(key="mi_c_query").value == ""
    else:
        assert any(d.key and d.key.startswith("mi_table_") for d in at.dataframe)


def test_a_context_preview_link_records_nothing_until_assembled(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    scope = Scope.of(tenant)
    before = {m.id: m.access_count for m in dash_engine.list(scope).items}
    link = {"src": "paste", "q": "Is Ann allergic to anything?", "paste": "user: 我在给Ann做饭"}
    for lang in ("en", "zh"):
        at = run_app(page=CONTEXT, tenant=tenant, lang=lang, **link)
        assert "Ann is allergic to peanuts" in " ".join(texts(at.code))  # the preview is shown
        assert t("ctx.link_not_recorded", lang) in texts(at.caption)
        assert t("ctx.trace_link", lang) not in [p.value for p in at.page_link]
    dash_engine.flush_accesses()
    assert dash_engine.list_traces(scope).items == []
    assert {m.id: m.access_count for m in dash_engine.list(scope).items} == before
    # Assemble records the search as before and links its trace
    button(at, t("ctx.run", "zh")).click().run()
    assert_clean(at)
    assert t("ctx.link_not_recorded", "zh") not in texts(at.caption)
    assert t("ctx.trace_link", "zh") in [p.value for p in at.page_link]
    assert len(dash_engine.list_traces(scope).items) == 1


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_audit_link_with_a_garbage_time_zone_or_event_shows_the_log(
    lang: str, make_tenant: Callable[..., str]
) -> None:
    """Once a traceback: ``?tz=`` too long for a file name, ``?event=²`` or 5,000 digits."""
    tenant = make_tenant()
    for tz, event in (("x" * 5000, "²"), ("Asia/Shanghai", "9" * 5000)):
        at = run_app(page="pages/audit.py", tenant=tenant, lang=lang, tz=tz, event=event)
        assert t("audit.events_header", lang) in texts(at.subheader)
        assert not at.error, texts(at.error)
