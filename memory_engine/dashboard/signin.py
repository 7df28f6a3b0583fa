"""Dashboard sign-in (password or OIDC) and the signed-in account of this browser session.

``require_account(lang)`` runs in ``app.py`` before any page: it returns the Account, or shows
the sign-in form (or the setup hint) and stops the run. Pages ask ``allowed(action)`` to enable
or disable a control and ``actor()`` for the audit actor of a change. Accounts and roles are
defined in ``memory_engine.security.auth``.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from typing import Any

import streamlit as st

from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.security.auth import (
    LOCAL_ACCOUNT,
    Accounts,
    AuthError,
    AuthMode,
)
from memory_engine.security.auth import (
    Account as Account,
)
from memory_engine.security.auth import (
    Action as Action,
)

SS_ACCOUNT = "mi_account"
W_NAME = "mi_w_auth_name"
W_PASSWORD = "mi_w_auth_password"


def _auth_config() -> Mapping[str, Any]:
    try:
        section = st.secrets.get("memory_auth")
    except Exception:  # noqa: BLE001 - no secrets.toml at all: nothing configured
        return {}
    return section or {}


def secrets_problem() -> str | None:
    """Why the secrets file cannot be used (a TOML error), or None. Streamlit raises the same
    exception for a missing file and a malformed one; only the malformed one has an error."""
    try:
        st.secrets.get("memory_auth")
    except Exception as exc:  # noqa: BLE001 - Streamlit's secrets errors
        error = (getattr(exc, "exec_kwargs", None) or {}).get("error")
        return str(error) if error else None
    return None


def auth_mode() -> AuthMode:
    """The sign-in mode: ``MEMORY_DASHBOARD_AUTH`` (environment, then ``.env`` through the
    engine's settings), else ``memory_auth.mode`` of secrets.toml, else ``password``.
    An unknown value never opens the dashboard: it counts as ``password``."""
    raw: object = os.environ.get("MEMORY_DASHBOARD_AUTH")
    if not raw:
        try:
            from memory_engine.dashboard import state

            raw = state.get_engine().settings.dashboard.auth
        except Exception:  # noqa: BLE001 - bad settings are shown after sign-in
            raw = None
    raw = raw or _auth_config().get("mode") or "password"
    try:
        return AuthMode(str(raw).strip().lower())
    except ValueError:
        return AuthMode.PASSWORD


@st.cache_resource(show_spinner=False)
def _accounts(fingerprint: str) -> Accounts:  # one lockout table per configuration
    return Accounts(json.loads(fingerprint))


def accounts() -> Accounts:
    """The configured accounts (rebuilt when secrets.toml changes)."""
    config = _auth_config()
    return _accounts(json.dumps(_plain(config), sort_keys=True, default=str))


def _plain(value: Any) -> Any:
    """Secrets sections as plain dicts and lists (for a stable cache key)."""
    if isinstance(value, Mapping):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value


#: Names a local-mode page may be opened at (Host header without its port).
LOCAL_NAMES = frozenset({"localhost", "127.0.0.1", "[::1]"})
#: Bind addresses of local mode (``server.address``; unset = every interface, refused).
LOCAL_ADDRESSES = frozenset({"localhost", "127.0.0.1", "::1"})


def _host_name(host: str) -> str:
    """``host`` of a Host header or an Origin without scheme and port, lower case."""
    host = host.strip().lower()
    if host.startswith("["):
        return host.split("]", 1)[0] + "]"
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def local_refusal() -> tuple[str, str] | None:
    """Why this browser session may not use local mode, as (i18n key, value), or None.

    Local mode (``MEMORY_DASHBOARD_AUTH=none``) makes every visitor an admin, so it answers only
    when the server listens on a loopback address (``server.address``) and the page was opened
    at a loopback name: the Host header of the session's websocket names localhost, 127.0.0.1
    or [::1] (any port), and so does its Origin when the browser sent one. Streamlit itself only
    checks that Host and Origin agree, which a DNS-rebinding page (``http://evil.example:PORT``
    resolving to 127.0.0.1) satisfies. A session without headers (``AppTest``) is not a browser
    and passes.
    """
    address = str(st.get_option("server.address") or "").strip().lower()
    if address not in LOCAL_ADDRESSES and not address.startswith("127."):
        return "auth.local_refused_address", address or "0.0.0.0"
    try:
        headers = st.context.headers
        host = headers.get("Host") or ""
        origin = headers.get("Origin") or ""
    except Exception:  # noqa: BLE001 - no request context (AppTest, bare mode)
        return None
    if not host and not origin:
        return None
    if _host_name(host) not in LOCAL_NAMES:
        return "auth.local_refused_host", host or "-"
    if origin:
        scheme, _, rest = origin.partition("://")
        if scheme.lower() not in ("http", "https") or _host_name(rest) not in LOCAL_NAMES:
            return "auth.local_refused_host", origin
    return None


def current_account() -> Account | None:
    """The signed-in account of this browser session, or None (also in local mode when the
    session was not opened at a loopback name, ``local_refusal``)."""
    if auth_mode() is AuthMode.NONE:
        return LOCAL_ACCOUNT if local_refusal() is None else None
    account = st.session_state.get(SS_ACCOUNT)
    if not isinstance(account, Account):
        return None
    fresh = accounts().refresh(account)  # secrets.toml changed: removed or new grants apply now
    if fresh is None:
        st.session_state.pop(SS_ACCOUNT, None)
    elif fresh != account:
        st.session_state[SS_ACCOUNT] = fresh
    return fresh


def actor() -> str:
    """Audit actor of changes made in this session (``dashboard:<name>``)."""
    account = current_account()
    return account.actor if account else "dashboard:anonymous"


def allowed(action: Action | str, tenant: str | None = None) -> bool:
    """True when the signed-in account may do ``action`` (in ``tenant``)."""
    account = current_account()
    return account is not None and account.can(action, tenant)


def client_address() -> str:
    """The browser's address as Streamlit sees it (``st.context.ip_address``); "unknown" when
    Streamlit cannot tell (then every such browser shares one back-off, never none)."""
    try:
        address = st.context.ip_address
    except Exception:  # noqa: BLE001 - outside a browser session (AppTest)
        address = None
    return str(address) if address else "unknown"


def _password_form(lang: str) -> None:
    st.title(t("auth.title", lang))
    problem = secrets_problem()
    if problem:  # not "no accounts": the file exists, and `user add` refuses to rewrite it
        st.error(t("auth.secrets_unreadable", lang, error=md(problem)))
        return
    if not accounts().users:
        st.info(t("auth.no_accounts", lang))
        return
    with st.form("mi_signin"):
        name = st.text_input(t("auth.name", lang), key=W_NAME)
        password = st.text_input(t("auth.password", lang), type="password", key=W_PASSWORD)
        submitted = st.form_submit_button(t("auth.submit", lang), type="primary")
    if submitted:
        try:
            st.session_state[SS_ACCOUNT] = accounts().sign_in(
                name or "", password or "", source=client_address()
            )
        except AuthError as exc:
            st.error(t("auth.failed", lang, message=_failure(exc, lang)))
            return
        st.rerun()


def _failure(exc: AuthError, lang: str) -> str:
    """The reason of a refused password sign-in in the UI language."""
    retry = exc.details.get("retry_s")
    if isinstance(retry, (int, float)):
        return t("auth.locked", lang, seconds=f"{retry:.0f}")
    return t("auth.wrong", lang)


def _oidc(lang: str) -> Account | None:
    user = st.user
    if not user.is_logged_in:
        st.title(t("auth.title", lang))
        st.button(t("auth.oidc_button", lang), on_click=st.login, type="primary")
        return None
    try:
        return accounts().for_oidc(str(user.get("email") or ""))
    except AuthError as exc:
        st.error(t("auth.failed", lang, message=exc.message))
        return None


def require_account(lang: str) -> Account:
    """The signed-in account; otherwise shows the sign-in page and stops the script run."""
    mode = auth_mode()
    if mode is AuthMode.NONE:
        refusal = local_refusal()
        if refusal is not None:  # before anything of the data renders
            key, value = refusal
            st.error(t(key, lang, host=md(value), address=md(value)))
            st.stop()
        # A coloured sidebar note, not st.warning: page warnings stay the pages' own.
        st.sidebar.markdown(
            f":material/lock_open: :orange-background[{t('auth.local_banner', lang)}]"
        )
        return LOCAL_ACCOUNT
    account = current_account()
    if account is None and mode is AuthMode.OIDC:
        account = _oidc(lang)
        if account is not None:
            st.session_state[SS_ACCOUNT] = account
    if account is None:
        if mode is AuthMode.PASSWORD:
            _password_form(lang)
        st.stop()
    return account


def _sign_out() -> None:
    st.session_state.pop(SS_ACCOUNT, None)
    if auth_mode() is AuthMode.OIDC:
        st.logout()


def sidebar_account(lang: str, account: Account) -> None:
    """Who is signed in, with a sign-out button (not in local mode)."""
    role = t(f"auth.role.{account.role.value}", lang)
    st.sidebar.caption(t("auth.signed_in", lang, name=account.name, role=role))
    if account.via != "local":
        st.sidebar.button(t("auth.sign_out", lang), on_click=_sign_out, key="mi_sign_out")


def denied(lang: str, action: Action | str, tenant: str | None = None) -> bool:
    """Note beside a disabled control why it is disabled; True when the account may not
    ``action`` (else False, and nothing is shown). A caption, not an error: nothing failed."""
    account = current_account()
    if account is not None and account.can(action, tenant):
        return False
    if account is not None and not account.may_see(tenant):
        st.caption(t("auth.tenant_denied", lang, tenant=tenant))
    else:
        role = t(f"auth.role.{account.role.value}", lang) if account else "-"
        action_label = t(f"auth.action.{Action(action).value}", lang)
        st.caption(t("auth.denied", lang, role=role, action=action_label))
    return True
