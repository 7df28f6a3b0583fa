"""Dashboard sign-in and roles (AppTest, real engine + DB): each role's allowed and refused
actions, tenant grants, wrong passwords, the no-account hint and the local-mode banner."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.security.auth import hash_password
from tests.dashboard.conftest import APP
from tests.dashboard.helpers import MEMORIES, assert_clean, button, texts

RETENTION = "pages/retention.py"
PASSWORDS = {"vera": "viewer-pass", "ed": "editor-pass", "ada": "admin-pass"}


@pytest.fixture(scope="module")
def hashes() -> dict[str, str]:
    return {name: hash_password(pw) for name, pw in PASSWORDS.items()}


@pytest.fixture
def auth_app(
    monkeypatch: pytest.MonkeyPatch, hashes: dict[str, str], dashboard_env: dict[str, str]
) -> Callable[..., AppTest]:
    """``auth_app(tenant, grants)``: the app in password mode with three accounts."""
    monkeypatch.setenv("MEMORY_DASHBOARD_AUTH", "password")

    def make(tenant: str | None = None, *, users: bool = True) -> AppTest:
        at = AppTest.from_file(APP, default_timeout=90)
        accounts: dict[str, Any] = {}
        if users:
            accounts = {
                "vera": {"password_hash": hashes["vera"], "role": "viewer", "tenants": [tenant]},
                "ed": {"password_hash": hashes["ed"], "role": "editor", "tenants": [tenant]},
                "ada": {"password_hash": hashes["ada"], "role": "admin", "tenants": ["*"]},
            }
        at.secrets["memory_auth"] = {"mode": "password", "users": accounts}
        if tenant:
            at.query_params["tenant"] = tenant
        return at.run()

    return make


def open_memory(at: AppTest, engine: MemoryEngine, tenant: str) -> AppTest:
    """Switch to the Memories page with the tenant's newest memory open."""
    at.query_params["memory"] = str(engine.list(Scope.of(tenant), limit=1).items[0].id)
    at.switch_page(MEMORIES).run()
    assert_clean(at)
    return at


def sign_in(at: AppTest, name: str, password: str | None = None) -> AppTest:
    at.text_input(key="mi_w_auth_name").input(name)
    at.text_input(key="mi_w_auth_password").input(password or PASSWORDS[name])
    button(at, t("auth.submit", "en")).click().run()
    assert_clean(at)
    return at


def test_no_account_shows_the_setup_hint_and_nothing_else(auth_app: Callable[..., AppTest]) -> None:
    at = auth_app(users=False)
    assert_clean(at)
    assert any("memory-engine user add" in s for s in texts(at.info))
    assert not at.text_input  # no form, no page content


def test_wrong_password_is_refused(auth_app: Callable[..., AppTest], make_tenant: Any) -> None:
    at = auth_app(make_tenant())
    sign_in(at, "ed", "not-the-password")
    assert any("wrong name or password" in s for s in texts(at.error))
    assert at.text_input(key="mi_w_auth_password")  # still on the sign-in form
    at.query_params["lang"] = "zh"
    at.run().text_input(key="mi_w_auth_name").input("ed")
    at.text_input(key="mi_w_auth_password").input("x" * 80)  # over bcrypt's 72 bytes
    button(at, t("auth.submit", "zh")).click().run()
    assert_clean(at)
    assert t("auth.failed", "zh", message=t("auth.wrong", "zh")) in texts(at.error)


def test_viewer_reads_but_cannot_edit_or_run_maintenance(
    auth_app: Callable[..., AppTest],
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
) -> None:
    tenant = make_tenant()
    at = sign_in(auth_app(tenant), "vera")
    assert any("vera" in s for s in texts(at.sidebar.caption))
    assert t("overview.tenants_caption_granted", "en") in texts(at.caption)  # no admin read
    open_memory(at, dash_engine, tenant)
    assert button(at, t("memories.save", "en")).disabled
    assert button(at, t("memories.archive", "en")).disabled
    at.switch_page(RETENTION).run()
    assert_clean(at)
    assert at.button(key="mi_ret_run").disabled
    assert any("viewer" in s for s in texts(at.caption))


def test_viewer_cannot_open_another_tenant(
    auth_app: Callable[..., AppTest], make_tenant: Callable[..., str]
) -> None:
    mine, other = make_tenant(), make_tenant()
    at = sign_in(auth_app(mine), "vera")
    at.query_params["tenant"] = other
    at.run()
    assert t("auth.tenant_denied", "en", tenant=other) in texts(at.error)
    options = at.sidebar.selectbox[0].options
    # Only granted tenants are listed with counts; the typed one is echoed without a count.
    assert any(o.startswith(f"{mine} (") for o in options)
    assert [o for o in options if other in o] in ([], [f"{other} (typed)"])


def test_editor_edit_is_recorded_with_the_signed_in_actor(
    auth_app: Callable[..., AppTest],
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
) -> None:
    tenant = make_tenant()
    at = sign_in(auth_app(tenant), "ed")
    open_memory(at, dash_engine, tenant)
    assert not button(at, t("memories.save", "en")).disabled
    reason = next(w for w in at.text_input if "l_reason" in str(w.key))
    reason.input("checked by ed")
    button(at, t("memories.archive", "en")).click().run()
    assert_clean(at)
    events = dash_engine.events(Scope.of(tenant), limit=10).items
    archive = next(e for e in events if e.action.value == "archive")
    assert archive.actor == "dashboard:ed" and archive.reason == "checked by ed"


def test_admin_sees_cross_tenant_counts(
    auth_app: Callable[..., AppTest], make_tenant: Callable[..., str]
) -> None:
    tenant = make_tenant()
    at = sign_in(auth_app(tenant), "ada")
    assert any("ada" in s for s in texts(at.sidebar.caption))
    options = " ".join(at.sidebar.selectbox[0].options)
    assert tenant in options


def test_local_mode_shows_the_banner(monkeypatch: pytest.MonkeyPatch, dashboard_env: Any) -> None:
    monkeypatch.setenv("MEMORY_DASHBOARD_AUTH", "none")
    at = AppTest.from_file(APP, default_timeout=90).run()
    assert_clean(at)
    assert any(t("auth.local_banner", "en") in s for s in texts(at.sidebar.markdown))


def test_removed_account_is_signed_out_on_the_next_run(
    auth_app: Callable[..., AppTest], make_tenant: Callable[..., str]
) -> None:
    at = sign_in(auth_app(make_tenant()), "vera")
    assert not [w for w in at.text_input if w.key == "mi_w_auth_password"]  # signed in
    users = dict(at.secrets["memory_auth"]["users"])
    del users["vera"]
    at.secrets["memory_auth"] = {"mode": "password", "users": users}
    at.run()
    assert_clean(at)
    assert at.text_input(key="mi_w_auth_password")  # back on the sign-in form
