"""Charts speak the page's language: category values (memory type, status, source, event
action) and axis titles of the Overview, Retention and Audit charts in Chinese on a zh page
(AppTest, real engine + DB; the figure spec sent to the browser is inspected)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.frames.labels import KINDS, translated, value_label
from memory_engine.dashboard.i18n import STRINGS, t
from memory_engine.models import EventAction, MemorySource, MemoryStatus, MemoryType
from tests.dashboard.helpers import run_app

RETENTION = "pages/retention.py"
AUDIT = "pages/audit.py"
ENUMS = {"type": MemoryType, "status": MemoryStatus, "source": MemorySource, "action": EventAction}


def _categories(spec: dict[str, Any], axis: str) -> set[str]:
    return {str(v) for trace in spec["data"] for v in (trace.get(axis) or [])}


def test_every_enum_value_has_a_label_in_both_languages() -> None:
    assert set(ENUMS) == set(KINDS)
    for kind, enum in ENUMS.items():
        for member in enum:
            entry = STRINGS[f"value.{kind}.{member.value}"]
            assert entry["en"].strip() and entry["zh"].strip(), (kind, member)
    assert value_label("type", "semantic", "zh") == "语义"
    assert value_label("status", "not-a-status", "zh") == "not-a-status"
    with pytest.raises(ValueError):
        value_label("colour", "red", "zh")


def test_zh_overview_charts_show_chinese_categories(make_tenant: Callable[..., str]) -> None:
    tenant = make_tenant(extra=2)
    at = run_app(tenant=tenant, lang="zh")
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert len(specs) == 5  # tenants, by type, by status, by source, writes per day
    by_type, by_status, by_source = (_categories(s, "y") for s in specs[1:4])
    zh_types = {value_label("type", m.value, "zh") for m in MemoryType}
    assert by_type and by_type <= zh_types, by_type
    assert by_status == {"活跃"}
    assert by_source == {"手动", "对话"}
    raw = {m.value for e in ENUMS.values() for m in e}
    every = "".join(json.dumps(s, ensure_ascii=False) for s in specs)
    for value in ("semantic", "episodic", "active", "manual", "conversation"):
        assert f'"{value}"' not in every, value
    assert not (by_type | by_status | by_source) & raw
    # the writes chart's axes are titled in Chinese
    layout = specs[4]["layout"]
    assert layout["xaxis"]["title"]["text"] == t("col.day", "zh")
    assert layout["yaxis"]["title"]["text"] == t("col.count", "zh")


def test_zh_retention_and_audit_charts(
    make_tenant: Callable[..., str], dash_engine: MemoryEngine
) -> None:
    tenant = make_tenant()
    at = run_app(page=RETENTION, tenant=tenant, lang="zh")
    specs = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    hist, curves = specs[0], specs[1]
    assert hist["layout"]["yaxis"]["title"]["text"] == "记忆数"
    assert hist["layout"]["xaxis"]["title"]["text"] == t("col.retention", "zh")
    names = {trace["name"] for trace in curves["data"]}
    assert names and all(n.split(" (")[0] in {"情景", "语义", "程序"} for n in names), names
    assert curves["layout"]["legend"]["title"]["text"] == t("col.type", "zh")

    # "Ann flew to Lisbon on 12 May" has a valid_from: its validity band is drawn too (the
    # snapshot holds it as ISO text; it used to be compared with a datetime and crash)
    target = next(m for m in dash_engine.list(Scope.of(tenant)).items if m.valid_from)
    audit = run_app(page=AUDIT, tenant=tenant, lang="zh", memory=str(target.id))
    (timeline,) = [
        json.loads(c.proto.spec)
        for c in audit.get("plotly_chart")
        if "mi_audit_timeline" in c.proto.id
    ]
    assert _categories(timeline, "y") == {"创建"}
    assert len(timeline["layout"]["shapes"]) == 1
    assert timeline["layout"]["annotations"][0]["text"] == t("audit.validity", "zh")
    assert timeline["layout"]["yaxis"]["title"]["text"] == t("col.action", "zh")


def test_translated_keeps_other_columns() -> None:
    import pandas as pd

    frame = pd.DataFrame({"value": ["semantic", "odd"], "count": [2, 1]})
    out = translated(frame, "value", "type", "zh")
    assert list(out["value"]) == ["语义", "odd"] and list(out["count"]) == [2, 1]
    assert list(frame["value"]) == ["semantic", "odd"]  # the input is not changed
