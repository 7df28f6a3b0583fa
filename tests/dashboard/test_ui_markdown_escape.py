"""Untrusted text in Streamlit markdown shows literally (no image fetched, no link): the escape
itself through a CommonMark renderer, and the dashboard with crafted links and a stored query
(AppTest, real engine + DB)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from markdown_it import MarkdownIt

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from tests.dashboard.helpers import MEMORIES, REPLAY, run_app, texts

EVIL_IMAGE = "![x](http://evil.invalid/p.png)"
EVIL = [
    EVIL_IMAGE,
    "[click](javascript:alert(1))",
    "<img src=x onerror=alert(1)>",
    "**bold** _it_ `code` :red[red] :material/home: $x^2$ # h",
    "我对花生过敏 [链接](http://evil.invalid)",
]


@pytest.mark.parametrize("text", EVIL)
def test_escaped_text_renders_literally(text: str) -> None:
    html = MarkdownIt("commonmark").render(str(md(text)))
    assert "<img" not in html and "<a " not in html and "<strong" not in html
    assert "<code" not in html and "<h1" not in html


def test_repr_field_is_escaped_once() -> None:
    assert "{v!r}".format(v=md("a[b]")) == "'a\\[b\\]'"
    assert "{v}".format(v=md("a*b")) == "a\\*b"
    assert md(md("a<b")) == "a\\<b"  # idempotent
    uid = "123e4567-e89b-12d3-a456-426614174000"
    assert md(uid) == uid and md("MEMORY_MAX_INPUT_CHARS: 5.") == "MEMORY_MAX_INPUT_CHARS: 5."


def _no_markdown_image(values: list[str]) -> None:
    html = MarkdownIt("commonmark").render("\n\n".join(values))
    assert "http://evil.invalid/p.png" in html  # the text is shown...
    assert "<img" not in html and "<a " not in html  # ...but never as an image or a link


def test_crafted_links_show_their_values_literally(make_tenant: Callable[..., str]) -> None:
    at = run_app(tenant=EVIL_IMAGE)
    _no_markdown_image(texts(at.sidebar.error))
    tenant = make_tenant()
    at = run_app(page=REPLAY, tenant=tenant, trace=EVIL_IMAGE)
    _no_markdown_image(texts(at.warning))
    at = run_app(page=MEMORIES, tenant=tenant, memory=EVIL_IMAGE)
    _no_markdown_image(texts(at.warning))


def test_stored_query_shows_literally(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    """A stored trace's query comes from whoever searched (an agent over MCP, too)."""
    tenant = make_tenant()
    trace = dash_engine.search(Scope.of(tenant), EVIL_IMAGE + " peanut").trace
    at = run_app(page=REPLAY, tenant=tenant, trace=str(trace.id))
    meta = [m for m in texts(at.markdown) if "peanut" in m and "evil" in m]
    assert len(meta) == 1, texts(at.markdown)
    _no_markdown_image(meta)
    assert t("replay.trace_header", "en", short_id=str(trace.id)[:8]) in texts(at.subheader)
