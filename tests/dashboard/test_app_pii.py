"""PII findings on the Write Inspector and Audit pages (AppTest, real engine + PostgreSQL):
kinds, counts and what the policy did are shown for written and refused writes; the secret
itself appears nowhere on either page."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, button, run_app, texts

WRITE = "pages/write_inspector.py"
AUDIT = "pages/audit.py"
SECRET = "sk-proj-ZyXwVuTsRqPoNmLkJiHg9876"
CN_ID = "11010519491231002X"


@pytest.fixture
def strict_tenant(journal_engine: MemoryEngine) -> Iterator[str]:
    """A fresh tenant whose PII policy is ``block`` (the app's engine settings, restored)."""
    tenant = new_tenant("pii-block")
    original = journal_engine.settings
    policies = {**original.security.pii_tenant_policies, tenant: "block"}
    journal_engine.settings = original.model_copy(update={"pii_tenant_policies": policies})
    yield tenant
    journal_engine.settings = original


def page_text(at: AppTest) -> str:
    """Everything the page renders (every element's message, tables included), as one string."""
    parts: list[str] = []
    for node in at._tree:  # every leaf element of the main area, the sidebar and dialogs
        kind = getattr(node, "type", "")
        if getattr(node, "proto", None) is not None:
            parts.append(str(node.proto))
        if kind in ("dataframe", "arrow_data_frame"):
            parts.append(node.value.to_csv())
    return "\n".join(parts)


def submit(at: AppTest, text: str) -> AppTest:
    at.text_area(key="mi_w_text").input(text)
    at.checkbox(key="mi_w_dry").set_value(False)
    button(at, t("write.run", "en")).click().run()
    assert_clean(at)
    return at


def history(at: AppTest, lang: str = "en") -> Any:
    return next(d.value for d in at.dataframe if t("wcol.write_id", lang) in d.value.columns)


def test_write_inspector_shows_redaction_and_refusal_never_the_secret(
    journal_engine: MemoryEngine, strict_tenant: str
) -> None:
    # default policy (redact): stored redacted, the panel says what and when
    tenant = new_tenant("pii")
    at = run_app(page=WRITE, tenant=tenant)
    submit(at, f"记住我的部署密钥是 {SECRET}，身份证 {CN_ID}")
    found = t(
        "pii.found",
        "en",
        kinds="resident ID number, API key or secret",
        count=2,
        action="redacted",
    )
    assert found in texts(at.warning)
    assert t("pii.redacted_note", "en") in texts(at.caption)
    assert any("[SECRET]" in c and "[CN_ID]" in c for c in texts(at.code))
    assert list(history(at)["PII"]) == ["resident ID number, API key or secret (2) · redacted"]
    shown = page_text(at)
    assert "[SECRET]" in shown and "[CN_ID]" in shown  # the walk sees code and tables
    assert SECRET not in shown and CN_ID not in shown
    (mem,) = journal_engine.list(Scope.of(tenant)).items
    assert SECRET not in mem.content and mem.metadata["pii"]["policy"] == "redact"

    # block policy: refused, shown as a refused write with its reason, nothing stored
    at = run_app(page=WRITE, tenant=strict_tenant)
    submit(at, f"the deploy key is {SECRET}")
    assert texts(at.error)[0] == t("pii.refused_now", "en", kinds="API key or secret")
    refused_id = at.query_params["write"]
    headers = texts(at.subheader)
    assert t("write.trail_of", "en", write_id=refused_id, status="refused") in headers
    assert t("pii.blocked_note", "en") in texts(at.caption)
    assert "the deploy key is [SECRET]" in texts(at.code)
    row = history(at).iloc[0]
    assert (row["status"], row["PII"]) == (
        "refused",
        "API key or secret (1) · blocked (write refused)",
    )
    assert SECRET not in page_text(at)
    assert journal_engine.list(Scope.of(strict_tenant)).items == []

    # another viewer opening the refused write (Chinese): same facts, no secret at all
    zh = run_app(page=WRITE, tenant=strict_tenant, lang="zh", write=refused_id)
    assert t("pii.blocked_note", "zh") in texts(zh.caption)
    assert list(history(zh, "zh")["个人信息"]) == ["API 密钥或口令 (1) · 已拦截（拒绝写入）"]
    assert SECRET not in page_text(zh)


def test_audit_marks_pii_events_and_filters_them(
    journal_engine: MemoryEngine, strict_tenant: str
) -> None:
    scope = Scope.of(strict_tenant)
    journal_engine.write(scope, "Ann likes green tea")
    with pytest.raises(Exception, match="sensitive data"):
        journal_engine.write(scope, f"card 4111 1111 1111 1111, key {SECRET}")
    at = run_app(page=AUDIT, tenant=strict_tenant)
    events = next(d.value for d in at.dataframe if "memory" in d.value.columns)  # Audit table
    assert list(events["action"]) == ["decision", "create"]
    assert list(events["PII"]) == [
        "bank card number, API key or secret (2) · blocked (write refused)",
        "",
    ]
    assert "write refused" in events["reason"].iloc[0]
    box = at.checkbox(key="mi_audit_pii")
    assert box.label == t("audit.facet_pii", "en", n=1)
    box.check().run()
    assert_clean(at)
    assert t("audit.filtered", "en", n=1) in texts(at.caption)
    assert SECRET not in page_text(at) and "4111" not in page_text(at)

    # a redacted memory: every event of it carries the badge (create, then update)
    tenant = new_tenant("pii")
    s = Scope.of(tenant)
    mid = journal_engine.write(s, f"身份证 {CN_ID}").outcomes[0].memory_id
    journal_engine.update(s, mid, expected_version=1, importance=0.9, reason="raise")
    zh = run_app(page=AUDIT, tenant=tenant, lang="zh")
    events = next(d.value for d in zh.dataframe if "记忆" in d.value.columns)  # headers in 中文
    assert list(events["个人信息"]) == ["居民身份证号 (1) · 已脱敏"] * 2
    assert zh.checkbox(key="mi_audit_pii").label == t("audit.facet_pii", "zh", n=2)
    assert CN_ID not in page_text(zh)
