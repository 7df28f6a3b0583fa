"""CSV for spreadsheets: the bytes of the dashboard's CSV exports (memories, audit events).

Two things go wrong when such a file is opened in Excel or LibreOffice:

- encoding: without a byte-order mark, Excel on Windows decodes the file in the ANSI code page,
  so Chinese text turns into mojibake. The output starts with the UTF-8 BOM (``utf-8-sig``).
- formulas (CSV injection, OWASP): a cell starting with ``= + - @``, a tab or a carriage return
  is evaluated; memory content can come from tool outputs and imports. Such a cell gets a
  leading apostrophe, which spreadsheets show as text and hide.

Nothing else changes; the JSON exports stay exact.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["spreadsheet_csv", "spreadsheet_cell"]

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value: Any) -> Any:
    """One cell: lists and dicts as JSON, formula-like strings prefixed with ``'``."""
    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def spreadsheet_csv(rows: Iterable[Mapping[str, Any]], fields: Sequence[str]) -> bytes:
    """``rows`` (only ``fields``, in that order) as CSV bytes: UTF-8 with BOM, a header row."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=list(fields), extrasaction="ignore")
    writer.writeheader()
    for row in rows:
        writer.writerow({k: spreadsheet_cell(row.get(k)) for k in fields})
    return buf.getvalue().encode("utf-8-sig")
