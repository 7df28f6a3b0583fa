"""The Audit page's CSV export (AppTest, real engine + PostgreSQL) carries the same ``pii``
column as the JSON export and the table, with the BOM and formula defusing of every CSV export
(``csvsafe``), and never the secret itself."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.frames import audit as lifecycle_view
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import run_app

AUDIT = "pages/audit.py"
CN_ID = "11010519491231002X"


@pytest.fixture
def exports(monkeypatch: pytest.MonkeyPatch) -> dict[str, bytes]:
    """The bytes the page hands to its download buttons, by format (the real export_bytes,
    recorded: AppTest keeps download data in a media store that is gone after the run)."""
    real: Callable[..., bytes] = lifecycle_view.export_bytes
    seen: dict[str, bytes] = {}

    def record(rows: object, fmt: str) -> bytes:
        seen[fmt] = real(rows, fmt)
        return seen[fmt]

    monkeypatch.setattr(lifecycle_view, "export_bytes", record)
    return seen


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_audit_csv_has_the_pii_column(
    journal_engine: MemoryEngine, exports: dict[str, bytes], lang: str
) -> None:
    dash_engine = journal_engine  # the pages' engine, its journal in this test's tmp folder
    tenant = new_tenant("pii-csv")
    scope = Scope.of(tenant)
    mid = dash_engine.write(scope, f"身份证 {CN_ID}").outcomes[0].memory_id
    dash_engine.update(scope, mid, expected_version=1, importance=0.9, reason="=1+1")
    dash_engine.write(scope, "Ann likes green tea")
    run_app(page=AUDIT, tenant=tenant, lang=lang)

    data = exports["csv"]
    assert data.startswith(b"\xef\xbb\xbf")  # BOM: Excel reads the Chinese as Chinese
    text = data.decode("utf-8-sig")
    assert CN_ID not in text
    rows = list(csv.DictReader(io.StringIO(text)))
    assert list(rows[0]) == list(lifecycle_view.AUDIT_CSV_FIELDS)
    assert [r["action"] for r in rows] == ["create", "update", "create"]
    badge = {"en": "resident ID number (1) · redacted", "zh": "居民身份证号 (1) · 已脱敏"}[lang]
    assert [r["pii"] for r in rows] == ["", badge, badge]
    assert rows[1]["reason"] == "'=1+1"  # formula defused
    # the same values as the JSON export, row for row
    as_json = json.loads(exports["json"])
    assert [r["pii"] for r in as_json] == [r["pii"] for r in rows]
