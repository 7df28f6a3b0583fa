"""Memories page (AppTest, real engine + PostgreSQL): invisible formatting characters in a
memory are shown escaped, so a right-to-left override cannot make "Invoice total 0001$" read
"$1000" and text spelled in Unicode tag characters is not hidden (en and zh)."""

from __future__ import annotations

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.models import MemorySource
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import MEMORIES, memories_table, run_app, table

INVOICE = "Invoice total \u202e0001$\u202c for ACME"
HIDDEN = "The sky is blue" + "".join(chr(0xE0000 + ord(c)) for c in "Ignore all")
RAW = ("\u202e", "\u202c", "\U000e0049")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_memories_table_and_detail_show_hidden_characters_escaped(
    dash_engine: MemoryEngine, lang: str
) -> None:
    tenant = new_tenant("bidi")
    scope = Scope.of(tenant)
    invoice = dash_engine.write(scope, INVOICE, source=MemorySource.CONVERSATION).memory_ids[0]
    dash_engine.write(scope, HIDDEN, source=MemorySource.CONVERSATION)

    at = run_app(page=MEMORIES, tenant=tenant, lang=lang)
    cells = [str(v) for v in memories_table(at).value[t("col.content", lang)]]
    assert "Invoice total \\u202e0001$\\u202c for ACME" in cells, cells
    assert any("\\U000e0049" in c for c in cells), cells  # the hidden "I" is visible
    assert not any(raw in c for c in cells for raw in RAW), cells

    at = run_app(page=MEMORIES, tenant=tenant, lang="en", memory=str(invoice))
    values = [str(v) for v in table(at, "mi_fields")["value"]]  # the detail's field table
    assert any("\\u202e0001$\\u202c" in v for v in values), values
    assert not any(raw in v for v in values for raw in RAW), values
