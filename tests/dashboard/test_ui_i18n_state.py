"""Unit tests of memory_engine.dashboard i18n and URL/session state (no database, no browser)."""

from __future__ import annotations

import re
import string
import uuid
from datetime import UTC, date, datetime, timedelta

import pytest

from memory_engine.dashboard import i18n, state
from memory_engine.dashboard.i18n import STRINGS, t
from memory_engine.models import (
    MemorySource,
    MemoryStatus,
    MemoryType,
)
from memory_engine.retrieval import pipeline
from tests.dashboard.helpers import ROOT


# ----------------------------------------------------------------------------- i18n
def _fields(text: str) -> set[str]:
    return {name.split("!")[0] for _, name, _, _ in string.Formatter().parse(text) if name}


def test_every_string_has_english_and_chinese_with_same_placeholders() -> None:
    for key, entry in STRINGS.items():
        assert set(entry) == set(i18n.LANGS), key
        assert all(entry[lang].strip() for lang in i18n.LANGS), key
        assert _fields(entry["en"]) == _fields(entry["zh"]), key


def test_t_formats_and_falls_back_to_english() -> None:
    assert t("common.truncated", "en", shown=5, total=9) == "Showing the first 5 of 9 rows."
    assert "5" in t("common.truncated", "zh", shown=5, total=9)
    assert t("nav.memories", "fr") == "Memories"
    with pytest.raises(KeyError):
        t("no.such.key", "en")


def test_every_pipeline_drop_reason_has_a_label() -> None:
    reasons = [v for k, v in vars(pipeline).items() if k.startswith("DROP_")]
    assert reasons
    for reason in reasons:
        assert f"drop.{reason}" in STRINGS
        assert i18n.drop_label(reason, "zh") != reason
    assert i18n.drop_label(None, "en") == ""
    assert i18n.drop_label("new_reason", "en") == "new_reason"


def test_every_key_used_by_app_and_pages_exists() -> None:
    sources = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
    used: set[str] = set()
    for path in sources:
        used |= set(re.findall(r"""\bt\(\s*["']([a-z_]+\.[a-z_.]+)["']""", path.read_text("utf-8")))
        # the page preamble's title and caption keys: open_page("x.title", caption_key="x.intro")
        used |= set(
            re.findall(
                r"""(?:open_page\(|caption_key=)\s*["']([a-z_]+\.[a-z_.]+)["']""",
                path.read_text("utf-8"),
            )
        )
        used |= set(
            re.findall(
                r"""["']((?:memories|overview|replay|nav|col)\.[a-z_]+)["']""",
                path.read_text("utf-8"),
            )
        )
    assert len(used) > 40
    missing = sorted(k for k in used if k not in STRINGS)
    assert not missing, missing


# ----------------------------------------------------------------------------- state
def test_url_schema_is_documented() -> None:
    assert state.URL_PARAMS == ("tenant", "lang", "memory", "trace")
    assert state.GLOBAL_PARAMS == ("tenant", "lang")
    doc = state.__doc__ or ""
    for name in state.URL_PARAMS:
        assert f"``{name}``" in doc


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("acme", "acme"),
        (" t-1.a:b_c ", "t-1.a:b_c"),
        (["x", "y"], "y"),
        ("", None),
        (None, None),
        ("a b", None),
        ("x" * 65, None),
        ("租户", None),
        ([], None),
        (3, None),
    ],
)
def test_parse_tenant(value: object, expected: str | None) -> None:
    assert state.parse_tenant(value) == expected


def test_parse_lang_and_uuid() -> None:
    assert state.parse_lang("zh") == "zh"
    assert state.parse_lang("de") == "en"
    assert state.parse_lang(None) == "en"
    assert state.parse_lang(["en", "zh"]) == "zh"
    uid = uuid.uuid4()
    assert state.parse_uuid(str(uid)) == uid
    assert state.parse_uuid("nope") is None
    assert state.parse_uuid(None) is None


def test_tenant_options_sorted_and_include_typed_tenant() -> None:
    assert state.tenant_options({"b": 1, "a": 2}, None) == ["a", "b"]
    assert state.tenant_options({"b": 1, "a": 2}, "a") == ["a", "b"]
    assert state.tenant_options({"b": 1}, "zz") == ["b", "zz"]
    assert state.tenant_options({}, None) == []


def test_tenant_options_are_bounded_to_the_largest_tenants() -> None:
    counts = {"small": 1, "big": 50, "mid": 7, "tie-b": 7, "tie-a": 7}
    # the 3 largest (ties by id), listed by id; the current tenant is kept when cut off
    assert state.tenant_options(counts, None, limit=3) == ["big", "mid", "tie-a"]
    assert state.tenant_options(counts, "small", limit=3) == ["big", "mid", "tie-a", "small"]
    assert state.tenant_options(counts, "typed", limit=3)[-1] == "typed"
    many = {f"t{i:04d}": i for i in range(1000)}
    options = state.tenant_options(many, None)
    assert len(options) == state.MAX_TENANT_OPTIONS == 200
    assert min(options) == "t0800" and max(options) == "t0999"


def test_table_key_changes_with_every_part() -> None:
    key = state.table_key("mi_table", "sig", None, "a,b", 0)
    assert key.startswith("mi_table_") and key == state.table_key("mi_table", "sig", None, "a,b", 0)
    others = {
        state.table_key("mi_table", "sig2", None, "a,b", 0),  # filters
        state.table_key("mi_table", "sig", "cursor-2", "a,b", 0),  # page
        state.table_key("mi_table", "sig", None, "a,c", 0),  # rows shown
        state.table_key("mi_table", "sig", None, "a,b", 1),  # picked elsewhere
    }
    assert key not in others and len(others) == 4


def test_url_id_drops_an_invalid_id_from_the_url() -> None:
    from streamlit.testing.v1 import AppTest

    def script() -> None:
        import streamlit as st

        from memory_engine.dashboard import state

        st.write(repr(state.url_id("memory")))
        st.write(repr(state.url_id("trace")))

    good = uuid.uuid4()
    at = AppTest.from_function(script)
    at.query_params["memory"] = "not-a-uuid"
    at.query_params["trace"] = str(good)
    at.run()
    assert not at.exception
    assert [m.value for m in at.markdown] == [
        repr((None, "not-a-uuid")),
        repr((good, None)),
    ]
    assert "memory" not in at.query_params and at.query_params["trace"] == str(good)
    empty = AppTest.from_function(script).run()
    assert [m.value for m in empty.markdown] == [repr((None, None))] * 2


def test_build_filter_dates_are_inclusive_utc_days() -> None:
    f = state.build_filter(
        types=["semantic"],
        statuses=["active", "archived"],
        sources=["manual"],
        text="  peanut ",
        dates=(date(2024, 5, 1), date(2024, 5, 3)),
    )
    assert f.memory_types == (MemoryType.SEMANTIC,)
    assert f.statuses == (MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED)
    assert f.sources == (MemorySource.MANUAL,)
    assert f.text_contains == "peanut"
    assert f.created_from == datetime(2024, 5, 1, tzinfo=UTC)
    assert f.created_to is not None
    assert (
        f.created_to < datetime(2024, 5, 4, tzinfo=UTC) <= f.created_to + timedelta(microseconds=1)
    )
    one_day = state.build_filter(dates=(date(2024, 5, 1),))
    assert one_day.created_from == datetime(2024, 5, 1, tzinfo=UTC)
    assert one_day.created_to is not None and one_day.created_to.date() == date(2024, 5, 1)
    empty = state.build_filter(text="   ")
    assert empty.text_contains is None and empty.created_from is None and empty.memory_types == ()


def test_without_facet_clears_only_that_facet() -> None:
    f = state.build_filter(types=["semantic"], statuses=["active"], sources=["manual"], text="x")
    assert state.without_facet(f, "memory_type").memory_types == ()
    assert state.without_facet(f, "memory_type").statuses == (MemoryStatus.ACTIVE,)
    assert state.without_facet(f, "status").statuses == ()
    assert state.without_facet(f, "source").sources == ()
    assert state.without_facet(f, "source").text_contains == "x"


def test_parse_tags() -> None:
    assert state.parse_tags("a, b,,a , 食物，过敏") == ["a", "b", "食物", "过敏"]
    assert state.parse_tags("  ") == []


def test_cursor_stack_push_pop_bounds_and_reset() -> None:
    store: dict[str, object] = {}
    stack = state.CursorStack(store, "k", "sig1")
    assert stack.cursor is None and stack.page_index == 0
    assert stack.bounds(25, 25) == (1, 25)
    assert stack.bounds(25, 0) == (0, 0)
    stack.pop()
    assert stack.page_index == 0
    stack.push("c1")
    stack.push(None)  # last page: no-op
    assert stack.cursor == "c1" and stack.page_index == 1
    assert stack.bounds(25, 7) == (26, 32)
    again = state.CursorStack(store, "k", "sig1")  # next run, same filters: kept
    assert again.cursor == "c1"
    again.pop()
    assert again.cursor is None
    again.push("c1")
    changed = state.CursorStack(store, "k", "sig2")  # filters changed: back to page 1
    assert changed.cursor is None and changed.page_index == 0
