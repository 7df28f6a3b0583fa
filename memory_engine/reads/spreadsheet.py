"""CSV for spreadsheets: the bytes of the dashboard's CSV exports (memories, audit events).

Two things go wrong when such a file is opened in Excel or LibreOffice:

- encoding: without a byte-order mark, Excel on Windows decodes the file in the ANSI code page,
  so Chinese text turns into mojibake. The output starts with the UTF-8 BOM (``utf-8-sig``).
- formulas (CSV injection, OWASP): a cell starting with ``= + - @`` (also full-width, or after
  spaces and invisible characters), a tab, a carriage return or a line feed is evaluated;
  memory content can come from tool outputs and imports. Such a cell gets a leading
  apostrophe, which spreadsheets show as text and hide.

Nothing else changes; the JSON exports stay exact.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

__all__ = ["spreadsheet_csv", "spreadsheet_cell"]

#: A formula sign: ASCII, and the full-width forms (＝ ＋ － ＠) that spreadsheets in CJK
#: locales read as the ASCII sign; a cell starting with one (or with tab, CR or LF) is evaluated.
_FORMULA_SIGNS = "=+-@\uff1d\uff0b\uff0d\uff20\t\r\n"
#: What a spreadsheet may skip before the sign: spaces (ASCII, no-break, ideographic) and
#: invisible characters (zero-width space/joiners, word joiner, byte-order mark).
_SKIPPED = " \u00a0\u3000\u200b\u200c\u200d\u2060\ufeff"


def spreadsheet_cell(value: Any) -> Any:
    """One cell: lists and dicts as JSON, formula-like strings prefixed with ``'``.

    Formula-like: the first character other than a space or an invisible character is a
    formula sign (``= + - @``, full-width ``＝ ＋ － ＠``) or the cell starts with a tab, CR or LF.
    """
    if isinstance(value, (list, dict)):
        value = json.dumps(value, ensure_ascii=False)
    if isinstance(value, str) and value:
        if value[0] in _FORMULA_SIGNS or value.lstrip(_SKIPPED)[:1] in tuple(_FORMULA_SIGNS):
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
