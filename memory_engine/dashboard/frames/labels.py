"""Labels of chart categories in the UI language.

Charts group by stored enum values (``semantic``, ``archived``, ``update`` ...); shown as they
are, a Chinese page had English legends and axis categories. ``value_label`` turns one value
into its ``value.<kind>.<value>`` string; ``translated`` does so for a frame column.
"""

from __future__ import annotations

import pandas as pd

from memory_engine.dashboard.i18n import label

__all__ = ["KINDS", "date_axis", "translated", "value_label"]


#: Kinds of category values with strings ``value.<kind>.<value>`` (see ``i18n/labels.py``).
KINDS = ("type", "status", "source", "action")


def value_label(kind: str, value: str, lang: str) -> str:
    """The label of a stored ``value`` of ``kind`` in ``lang``; unknown values as they are.

    Raises:
        ValueError: ``kind`` is not one of ``KINDS``.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown value kind {kind!r}")
    return label(f"value.{kind}.{value}", lang, str(value))


#: Tick and hover formats of a date axis (d3 time format) by language: plotly's default
#: shows English month names ("May 1, 2026").
DATE_FORMATS = {
    "en": {"tickformat": "%Y-%m-%d", "hoverformat": "%Y-%m-%d %H:%M"},
    "zh": {"tickformat": "%Y年%-m月%-d日", "hoverformat": "%Y年%-m月%-d日 %H:%M"},
}


def date_axis(lang: str) -> dict[str, str]:
    """``update_xaxes``/``update_yaxes`` arguments of a date axis in ``lang`` (numeric dates,
    no month names)."""
    return dict(DATE_FORMATS.get(lang, DATE_FORMATS["en"]))


def translated(frame: pd.DataFrame, column: str, kind: str, lang: str) -> pd.DataFrame:
    """A copy of ``frame`` whose ``column`` holds ``value_label`` of each value."""
    out = frame.copy()
    out[column] = [value_label(kind, str(v), lang) for v in out[column]]
    return out
