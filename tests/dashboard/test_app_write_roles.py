"""Write Inspector and roles (AppTest, real engine + DB): a viewer may only dry-run the extract
pipeline; storing needs the editor role and records the signed-in account as the actor."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import assert_clean, button, texts
from tests.dashboard.test_app_auth import auth_app, hashes, sign_in  # noqa: F401 - fixtures

WRITE = "pages/write_inspector.py"
TEXT = "我周五下午一般都有会，别给我排东西"


def _run(at: AppTest, *, dry: bool | None) -> AppTest:
    at.switch_page(WRITE).run()
    assert_clean(at)
    at.text_area(key="mi_w_text").input(TEXT)
    if dry is not None:
        at.checkbox(key="mi_w_dry").set_value(dry)
    button(at, t("write.run", "en")).click().run()
    assert_clean(at)
    return at


def test_viewer_only_dry_runs(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
) -> None:
    tenant = make_tenant(extra=0)
    before = dash_engine.list(Scope.of(tenant)).total
    at = sign_in(auth_app(tenant), "vera")
    at.switch_page(WRITE).run()
    assert at.checkbox(key="mi_w_dry").disabled and at.checkbox(key="mi_w_dry").value
    role, action = t("auth.role.viewer", "en"), t("auth.action.edit", "en")
    assert t("auth.denied", "en", role=role, action=action) in texts(at.caption)
    _run(at, dry=None)  # the preview runs
    assert dash_engine.list(Scope.of(tenant)).total == before


def test_editor_stores_with_the_signed_in_actor(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
) -> None:
    tenant = make_tenant(extra=0)
    scope = Scope.of(tenant)
    before = dash_engine.list(scope).total
    _run(sign_in(auth_app(tenant), "ed"), dry=False)
    page = dash_engine.list(scope)
    assert page.total == before + 1
    new = [m for m in page.items if "周五" in m.content]
    assert new and dash_engine.history(scope, new[0].id).items[0].actor == "dashboard:ed"
