"""The shown memory's rules (``dashboard.selection``): a rerun the browser sent before it had
the page's last URL change keeps the user's choice; reloads, back/forward and links win."""

from __future__ import annotations

from memory_engine.dashboard.selection import Picked, pick, settle


def test_a_new_session_and_a_history_step_take_the_url() -> None:
    assert settle(None, "a", history=False) == (Picked("a"), False)
    assert settle(Picked("b", frozenset({"a"})), "a", history=True) == (Picked("a"), False)


def test_a_late_rerun_with_the_url_from_before_the_pick_keeps_the_pick() -> None:
    picked = pick(Picked(None), "m1", None)  # picked m1 while the URL had no memory
    # the pick's own run reads the URL the pick wrote: the stale values are kept
    record, rewrite = settle(picked, "m1", history=False)
    assert (record, rewrite) == (Picked("m1", frozenset({None})), False)
    record, rewrite = settle(record, None, history=False)  # a rerun sent before it caught up
    assert (record.shown, rewrite) == ("m1", True)
    record, rewrite = settle(record, "m1", history=False)  # the browser has caught up
    assert (record, rewrite) == (Picked("m1"), False)
    # from now on the URL wins again: e.g. a link from another page without a memory
    assert settle(record, None, history=False) == (Picked(None), False)


def test_switching_memories_marks_the_old_one_stale() -> None:
    record, _ = settle(pick(Picked("m1"), "m2", "m1"), "m2", history=False)
    assert settle(record, "m1", history=False) == (record, True)
    assert settle(record, "m3", history=False) == (Picked("m3"), False)  # another link


def test_closing_the_memory_marks_it_stale() -> None:
    # closed while the browser's query string still lacked the memory it showed
    record, _ = settle(pick(Picked("m1", frozenset({None})), None, None), None, history=False)
    assert record == Picked(None, frozenset({"m1"}))
    assert settle(record, "m1", history=False) == (record, True)
    assert settle(record, None, history=False) == (Picked(None), False)
