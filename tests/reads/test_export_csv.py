"""``engine.export(fmt="csv")`` is spreadsheet-safe on both stores (see tests/reads/
test_spreadsheet_csv.py); ``fmt="json"`` stays exact."""

from __future__ import annotations

import csv
import io
import json

from memory_engine import MemoryEngine, Scope

FORMULA = '=HYPERLINK("http://evil.invalid","我对花生过敏")'


def test_csv_export_has_bom_and_no_live_formula(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    engine.write(s, FORMULA)
    data, truncated = engine.export(s, fmt="csv")
    assert not truncated and data.startswith(b"\xef\xbb\xbf")
    (row,) = csv.DictReader(io.StringIO(data.decode("utf-8-sig")))
    assert row["content"] == "'" + FORMULA
    exact, _ = engine.export(s, fmt="json")
    assert json.loads(exact)[0]["content"] == FORMULA
