"""Helpers shared by the dashboard tests: AppTest page helpers and the repository root."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd
from streamlit.testing.v1 import AppTest

from tests.dashboard.conftest import APP

ROOT = Path(__file__).resolve().parents[2]

MEMORIES = "pages/memories.py"
REPLAY = "pages/query_replay.py"
OVERVIEW = "pages/overview.py"


def run_app(*, page: str | None = None, **params: str) -> AppTest:
    """Run the app with URL ``params`` (``tenant``, ``lang``, ``memory``, ``trace``), then
    switch to ``page`` when given."""
    at = AppTest.from_file(APP, default_timeout=90)
    for key, value in params.items():
        at.query_params[key] = value
    at.run()
    if page:
        at.switch_page(page).run()
    assert_clean(at)
    return at


def assert_clean(at: AppTest) -> None:
    """No uncaught exception (no traceback element) on the page."""
    assert not at.exception, [e.value for e in at.exception]


def texts(elements: Any) -> list[str]:
    return [str(e.value) for e in elements]


def button(at: AppTest, label: str) -> Any:
    """The one button (or form submit button) labelled ``label``."""
    found = [b for b in at.button if b.label == label]
    assert len(found) == 1, [b.label for b in at.button]
    return found[0]


#: A column that only one table of the app has (read-only st.dataframe elements carry no key).
TABLE_MARKERS = {
    "mi_table": "version",
    "mi_fields": "field",
    "mi_history": "before → after",
    "mi_diff": "before",
    "mi_candidates": "drop reason",
    "mi_timings": "stage",
    "mi_traces": "returned",
}


def table(at: AppTest, name: str) -> pd.DataFrame:
    """The displayed DataFrame of table ``name`` (see TABLE_MARKERS)."""
    marker = TABLE_MARKERS[name]
    found = [d.value for d in at.dataframe if marker in d.value.columns]
    if name == "mi_fields":
        found = [f for f in found if "value" in f.columns]
    if name == "mi_timings":  # the waterfall and block-accounting tables have a stage column too
        found = [f for f in found if len(f.columns) == 2]
    assert len(found) == 1, (name, [list(d.value.columns) for d in at.dataframe])
    return found[0]


def has_table(at: AppTest, name: str) -> bool:
    return any(TABLE_MARKERS[name] in d.value.columns for d in at.dataframe)


def first_id(at: AppTest) -> str:
    return str(table(at, "mi_table")["id"].iloc[0])


def memories_table(at: AppTest) -> Any:
    """The Memories table element (its key is ``mi_table_<hash of the page>``)."""
    found = [d for d in at.dataframe if d.key and d.key.startswith("mi_table_")]
    assert len(found) == 1, [d.key for d in at.dataframe]
    return found[0]


def checked_rows(at: AppTest, element: Any) -> list[int]:
    """Rows the table shows checked (its selection state, default included)."""
    return list(at.session_state[element.key]["selection"]["rows"])


def click_rows(at: AppTest, element: Any, rows: list[int]) -> AppTest:
    """Rerun as after a click on a selectable ``st.dataframe`` (AppTest has no API for it): the
    browser sends the table's new selection as the widget's value, which runs ``on_select``."""
    widgets = at._tree.get_widget_states()
    widget = widgets.widgets.add()
    widget.id = element.proto.id
    widget.string_value = json.dumps({"selection": {"rows": rows, "columns": [], "cells": []}})
    at._run(widgets)
    assert_clean(at)
    return at


def shown_memory_id(at: AppTest) -> str | None:
    """Id of the memory whose detail is shown (None when no detail)."""
    if not has_table(at, "mi_fields"):
        return None
    fields = table(at, "mi_fields")
    return str(dict(zip(fields["field"], fields["value"], strict=True))["id"])
