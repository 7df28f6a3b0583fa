"""Data helpers of the PII view (no Streamlit run, no database)."""

from __future__ import annotations

import uuid

import pandas as pd

from memory_engine.dashboard.frames import pii as pii_view
from memory_engine.models import Event, EventAction

REDACTED = {"policy": "redact", "kinds": ["cn_id", "secret"], "count": 3}


def test_summary_names_kinds_count_and_action_in_both_languages() -> None:
    assert pii_view.summary(REDACTED, "en") == (
        "resident ID number, API key or secret (3) · redacted"
    )
    assert pii_view.summary(REDACTED, "zh") == "居民身份证号, API 密钥或口令 (3) · 已脱敏"
    odd = {"policy": "quarantine", "kinds": ["passport"], "count": 1}
    assert pii_view.summary(odd, "en") == "passport (1) · quarantine"  # unknown: shown as is
    assert pii_view.summary(None, "en") == ""
    assert pii_view.pii_of({"pii": {"policy": "redact", "kinds": []}}) is None


def test_event_pii_prefers_a_refusal_then_the_snapshot() -> None:
    refusal = Event(
        tenant_id="t",
        action=EventAction.DECISION,
        actor="api",
        details={"refused": True, "pii": {"policy": "block", "kinds": ["secret"], "count": 1}},
    )
    created = Event(
        tenant_id="t",
        memory_id=uuid.uuid4(),
        action=EventAction.CREATE,
        actor="api",
        after={"content": "key [SECRET]", "metadata": {"pii": REDACTED}},
    )
    purged = Event(
        tenant_id="t",
        memory_id=created.memory_id,
        action=EventAction.PURGE,
        actor="api",
        before={"content": "key [SECRET]", "metadata": {"pii": REDACTED}},
    )
    plain = Event(tenant_id="t", action=EventAction.CREATE, actor="api", after={"metadata": {}})
    assert pii_view.event_pii(refusal) == {"policy": "block", "kinds": ["secret"], "count": 1}
    assert pii_view.event_pii(created) == REDACTED
    assert pii_view.event_pii(purged) == REDACTED
    assert pii_view.event_pii(plain) is None
    rows = pii_view.add_event_pii([{"id": 1}, {"id": 2}], [refusal, plain], "en")
    assert [r["pii"] for r in rows] == ["API key or secret (1) · blocked (write refused)", ""]
    assert pii_view.only_pii(rows) == [rows[0]]


def test_write_pii_column_follows_the_journal_rows() -> None:
    items = [
        {"request": {"text": "key [SECRET]", "metadata": {"pii": REDACTED}}},
        {"request": {"text": "hello", "metadata": {}}},
    ]
    frame = pii_view.with_write_pii(pd.DataFrame({"write id": ["a", "b"]}), items, "en")
    assert list(frame["PII"]) == ["resident ID number, API key or secret (3) · redacted", ""]
