"""The URL codecs of ``memory_engine.dashboard.url_state`` (no Streamlit run needed)."""

from __future__ import annotations

from datetime import date, time

import pytest

from memory_engine import MemoryStatus
from memory_engine.dashboard import url_state
from memory_engine.dashboard.state import CursorStack


def test_list_choices_round_trip_and_drop_unknown_values() -> None:
    codec = url_state.choices(MemoryStatus)
    assert codec.encode(["active", "archived"]) == "active,archived"
    assert codec.decode("archived,bogus,active,archived") == ["archived", "active"]
    assert codec.encode([]) == "" and codec.default == []


def test_single_choice_refuses_unknown_value() -> None:
    codec = url_state.one_of(lambda: [25, 50, 100], 25)
    assert codec.decode("50") == 50 and codec.encode(50) == "50"
    assert codec.encode(25) == ""  # the default is not written: clean links
    with pytest.raises(ValueError):
        codec.decode("7")


def test_page_number_and_date_range() -> None:
    page = url_state.positive_int()
    assert page.decode("3") == 3 and page.encode(1) == "" and page.encode(4) == "4"
    for bad in ("0", "-2", "x"):
        with pytest.raises(ValueError):
            page.decode(bad)
    dates = url_state.DATES
    span = (date(2024, 5, 1), date(2024, 5, 31))
    assert dates.encode(span) == "2024-05-01..2024-05-31"
    assert dates.decode("2024-05-01..2024-05-31") == span
    assert dates.decode("2024-05-02") == (date(2024, 5, 2),)
    with pytest.raises(ValueError):
        dates.decode("2024-05-31..2024-05-01")


def test_search_settings_of_a_trace_fill_the_form() -> None:
    config = {"k": 7, "legs": ["keyword"], "min_score": 0.01, "token_budget": 300}
    assert url_state.search_settings("花生过敏", config) == {
        "query": "花生过敏",
        "k": 7,
        "min_score": 0.01,
        "token_budget": 300,
        "dense": False,
        "keyword": True,
    }
    partial = url_state.search_settings("q", {"k": "seven"})
    assert partial["k"] is None and partial["dense"] is None


def test_cursor_stack_seeks_a_page_from_the_url() -> None:
    store: dict[str, object] = {}
    pages = {None: "c1", "c1": "c2", "c2": None}  # three pages
    calls: list[object] = []

    def next_of(cursor: str | None) -> str | None:
        calls.append(cursor)
        return pages[cursor]

    stack = CursorStack(store, "k", "sig")
    assert stack.seek(2, next_of) == 2 and stack.cursor == "c2" and calls == [None, "c1"]
    assert stack.seek(0, next_of) == 0 and stack.cursor is None
    calls.clear()
    assert stack.seek(9, next_of) == 2  # beyond the last page: stops at the last one
    assert calls == [None, "c1", "c2"]


def test_numbers_flags_ids_and_moments() -> None:
    half = url_state.number(1.0, 365.0, 30.0)
    assert half.decode("12") == 12.0 and half.encode(12.0) == "12" and half.encode(30.0) == ""
    assert url_state.number(0.0, 1.0, 0.2).encode(0.35) == "0.35"
    for bad in ("999", "-1", "nan", "inf", "x"):
        with pytest.raises(ValueError):
            half.decode(bad)
    whole = url_state.number(2, 6, 3, whole=True)
    assert whole.decode("5") == 5 and isinstance(whole.decode("5"), int)
    with pytest.raises(ValueError):
        whole.decode("4.5")
    assert url_state.FLAG.decode("1") is True and url_state.FLAG.encode(False) == ""
    with pytest.raises(ValueError):
        url_state.FLAG.decode("maybe")
    some = "0b7e3d1c-6c2f-4b8e-9a53-2f7d1f1c0a11"
    assert url_state.UUID_TEXT.decode(some.upper()) == some
    with pytest.raises(ValueError):
        url_state.UUID_TEXT.decode("not-an-id")
    today = date(2026, 5, 1)
    assert url_state.day(today).encode(today) == "" and url_state.day(today).decode(
        "2024-02-29"
    ) == date(2024, 2, 29)
    at = url_state.time_of_day(time(23, 59, 59))
    assert at.encode(time(23, 59)) == "" and at.encode(time(9, 30)) == "09:30"
    assert at.decode("09:30") == time(9, 30)
    prompt = url_state.text("You are helpful.", max_chars=10)
    assert prompt.encode("You are helpful.") == "" and prompt.encode("Be brief") == "Be brief"
    assert prompt.encode("x" * 11) == ""  # too long for a link: not written
    assert prompt.decode("  ") == "You are helpful."
    actors = url_state.many_of(lambda: ["api", "dashboard"])
    assert actors.decode("dashboard,bogus,api") == ["dashboard", "api"]


def test_text_with_control_characters_is_dropped_not_searched() -> None:
    """A link carrying ``%00`` (NUL, refused by PostgreSQL) or another control character in a
    text parameter is garbage: the default is used; Chinese, markup, tabs and line breaks stay."""
    prompt = url_state.text("You are helpful.")
    for codec, default in ((url_state.TEXT, ""), (prompt, "You are helpful.")):
        for bad in ("\x00", "abc\x00def", "\x1b[31mred", "x\x7f"):
            with pytest.raises(ValueError):
                codec.decode(bad)
        assert codec.decode("  我住在北京 <b>x</b> ") == "我住在北京 <b>x</b>"
        assert codec.decode("user: hi\n\tassistant: 你好") == "user: hi\n\tassistant: 你好"
        assert codec.decode("   ") == default
