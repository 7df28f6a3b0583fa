"""The Write Inspector shows raw ingests (memories stored one per turn, without the extract
pipeline) with their source, and labels dry runs as dry runs (they were shown as "skipped")."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_engine import MemoryEngine, MemorySource, Scope, WriteRequest
from memory_engine.dashboard.frames.writes import is_dry_run, raw_ingests_frame, status_label
from memory_engine.dashboard.i18n import t
from memory_engine.models import Event, EventAction
from memory_engine.write.ingest import Turn
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import run_app

PAGE = "pages/write_inspector.py"


def _create(content: str, *, source: str = "conversation", ref: str = "", meta: dict | None = None,
            actor: str = "ingest", session: str = "s1") -> Event:  # fmt: skip
    return Event(
        tenant_id="t",
        action=EventAction.CREATE,
        actor=actor,
        reason="ingest",
        at=datetime(2026, 5, 1, tzinfo=UTC),
        after={"content": content, "source": source, "source_ref": ref, "session_id": session,
               "metadata": meta or {}},
    )  # fmt: skip


def test_raw_runs_group_consecutive_creates_and_skip_extracted_ones() -> None:
    events = [
        _create("c", ref="D1:3"),
        _create("b", ref="D1:2"),
        _create("extracted", meta={"write_id": "w1"}),  # from the extract pipeline: not raw
        _create("a", ref="D1:1", session="s0"),
        _create("doc", source="import", ref="p0", actor="api"),
    ]
    frame = raw_ingests_frame(events, "en")
    assert list(frame["memories"]) == [3, 1]
    assert list(frame["source"]) == ["conversation", "import"]
    assert list(frame["turns"]) == ["D1:1 → D1:3", "p0"]
    assert list(frame["sessions"]) == [2, 1]
    zh = raw_ingests_frame(events, "zh")
    assert list(zh[t("wcol.source", "zh")]) == ["对话", "导入"]


def test_dry_run_label() -> None:
    dry = {"status": "skipped", "result": {"dry_run": True, "actions": []}}
    planned = {"status": "skipped", "result": {"actions": [{"action": "create", "planned": True}]}}
    skipped = {"status": "skipped", "result": {"reason": "[small_talk] hi"}}
    assert is_dry_run(dry) and is_dry_run(planned) and not is_dry_run(skipped)
    assert [status_label(r, "en") for r in (dry, planned, skipped)] == ["dry run"] * 2 + ["skipped"]
    assert status_label(dry, "zh") == "试运行"


def test_write_inspector_lists_a_raw_ingest_and_a_dry_run(journal_engine: MemoryEngine) -> None:
    tenant = new_tenant("raw")
    scope = Scope.of(tenant)
    journal_engine.ingest(
        scope,
        [
            Turn(speaker="Ann", text="I moved to Lisbon", turn_id="D1:1", session_id="s1"),
            Turn(speaker="Bob", text="Nice!", turn_id="D1:2", session_id="s1"),
        ],
    )
    journal_engine.write_extract(
        scope, WriteRequest(text="我对花生过敏", source=MemorySource.MANUAL), dry_run=True
    )
    at = run_app(page=PAGE, tenant=tenant)
    raw = next(d.value for d in at.dataframe if "turns" in d.value.columns)
    assert list(raw["memories"]) == [2] and list(raw["source"]) == ["conversation"]
    assert list(raw["turns"]) == ["D1:1 → D1:2"]
    history = next(d.value for d in at.dataframe if "write id" in d.value.columns)
    assert list(history["status"]) == ["dry run"]
    assert list(history["source"]) == ["manual"]
    assert t("write.no_history", "en") not in [c.value for c in at.caption]
