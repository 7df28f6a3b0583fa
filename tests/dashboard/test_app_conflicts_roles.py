"""Conflicts page and roles (AppTest, real engine + DB): reviewing a judge decision changes a
memory (reject restores the superseded one), so it needs the editor role, and the review is
recorded with the signed-in account as its actor."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.models import MemoryFilter, MemoryStatus
from tests.dashboard.helpers import assert_clean, button, texts
from tests.dashboard.test_app_auth import auth_app, hashes, sign_in  # noqa: F401 - fixtures

CONFLICTS = "pages/conflicts.py"


def _superseded_tenant(make_tenant: Callable[..., str], engine: MemoryEngine) -> tuple[str, str]:
    """A tenant where the write judge superseded Thursday by Friday; (tenant, old id)."""
    tenant = make_tenant()
    scope = Scope.of(tenant)
    engine.write(scope, "以后周四汇报", mode="extract")
    engine.write(scope, "改成周五汇报", mode="extract")
    old = engine.list(scope, filters=MemoryFilter(statuses=[MemoryStatus.SUPERSEDED])).items
    assert len(old) == 1, [m.content for m in engine.list(scope).items]
    return tenant, str(old[0].id)


def _review(at: AppTest, decision: str) -> AppTest:
    at.switch_page(CONFLICTS).run()
    assert_clean(at)
    at.radio(key="mi_c_decision").set_value(decision)
    at.text_input(key="mi_c_reason").input("checked with the user")
    return at


def test_viewer_cannot_review_a_conflict(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
) -> None:
    tenant, old_id = _superseded_tenant(make_tenant, dash_engine)
    at = _review(sign_in(auth_app(tenant), "vera"), "reject")
    save = button(at, t("conflicts.save", "en"))
    assert save.disabled
    role, action = t("auth.role.viewer", "en"), t("auth.action.edit", "en")
    assert t("auth.denied", "en", role=role, action=action) in texts(at.caption)
    old = dash_engine.get(Scope.of(tenant), old_id)
    assert old.status is MemoryStatus.SUPERSEDED and old.version == 2


def test_editor_review_records_the_signed_in_actor(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
) -> None:
    tenant, old_id = _superseded_tenant(make_tenant, dash_engine)
    at = _review(sign_in(auth_app(tenant), "ed"), "reject")
    button(at, t("conflicts.save", "en")).click().run()
    assert_clean(at)
    scope = Scope.of(tenant)
    assert dash_engine.get(scope, old_id).status is MemoryStatus.ACTIVE
    assert dash_engine.history(scope, old_id).items[-1].actor == "dashboard:ed"
