"""Memory Inspector: the Streamlit dashboard of the memory engine.

Run with ``streamlit run app.py``. The engine reads its settings from ``MEMORY_*`` environment
variables (and ``.env``), e.g. ``MEMORY_DATABASE_URL``. This file is the router and the frame
around every page: page config, navigation, and the global sidebar (tenant, language, store).
Tenant and language live in the URL (``?tenant=...&lang=...``); see ``memory_engine.dashboard.state``.
"""

from __future__ import annotations

import streamlit as st

from memory_engine import MemoryEngineError
from memory_engine.dashboard import signin, state, stores
from memory_engine.dashboard.errors import error_message, show_error
from memory_engine.dashboard.i18n import LANG_LABELS, LANGS, t
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.page import running_indicator
from memory_engine.dashboard.signin import Account

W_TENANT = "mi_w_tenant"
W_TENANT_TEXT = "mi_w_tenant_text"
W_LANG = "mi_w_lang"
TENANT_ERROR = "mi_tenant_error"


def _on_tenant_selected() -> None:
    state.set_tenant(st.session_state.get(W_TENANT))


def _on_tenant_typed() -> None:
    typed = (st.session_state.get(W_TENANT_TEXT) or "").strip()
    if not typed:
        return
    tenant = state.parse_tenant(typed)
    if tenant is None:
        st.session_state[TENANT_ERROR] = typed
        return
    st.session_state.pop(TENANT_ERROR, None)
    st.session_state[W_TENANT_TEXT] = ""
    state.set_tenant(tenant)


def _on_lang_changed() -> None:
    state.set_lang(st.session_state.get(W_LANG) or "en")


def sidebar(lang: str, tenant: str | None, account: Account) -> None:
    """Language switch, account, tenant selector (largest granted tenants + a typed id), store."""
    st.session_state[W_LANG] = lang
    st.sidebar.radio(
        t("sidebar.language", lang),
        LANGS,
        format_func=LANG_LABELS.__getitem__,
        key=W_LANG,
        horizontal=True,
        on_change=_on_lang_changed,
    )
    signin.sidebar_account(lang, account)

    engine = None
    counts: dict[str, int] = {}
    try:
        engine = state.get_engine()
        counts = state.cached_tenant_counts("tenant selector")
    except MemoryEngineError as exc:
        st.sidebar.warning(t("sidebar.tenants_unavailable", lang, message=exc.message))
    except Exception as exc:  # noqa: BLE001 - e.g. a bad MEMORY_* variable: show, don't crash
        st.sidebar.warning(error_message(exc, lang))

    options = state.tenant_options(counts, tenant, limit=state.MAX_TENANT_OPTIONS)

    def label(value: str) -> str:
        if value in counts:
            return t("sidebar.tenant_option", lang, tenant=value, count=counts[value])
        return t("sidebar.tenant_typed", lang, tenant=value)

    st.session_state[W_TENANT] = tenant
    st.sidebar.selectbox(
        t("sidebar.tenant", lang),
        options,
        index=None,
        format_func=label,
        key=W_TENANT,
        placeholder=t("sidebar.tenant_placeholder", lang),
        on_change=_on_tenant_selected,
    )
    st.sidebar.text_input(
        t("sidebar.tenant_input", lang),
        key=W_TENANT_TEXT,
        on_change=_on_tenant_typed,
        help=t("sidebar.tenant_input_help", lang),
    )
    if len(counts) > state.MAX_TENANT_OPTIONS:
        st.sidebar.caption(
            t("sidebar.tenants_cut", lang, shown=state.MAX_TENANT_OPTIONS, total=len(counts))
        )
    bad = st.session_state.get(TENANT_ERROR)
    if bad:
        st.sidebar.error(t("sidebar.tenant_invalid", lang, tenant=md(bad)))
    bad_url = st.session_state.get(state.SS_TENANT_URL_ERROR)
    if bad_url and tenant is None:
        st.sidebar.error(t("sidebar.tenant_url_invalid", lang, tenant=md(bad_url[:80])))

    if engine is not None:
        try:
            st.sidebar.caption(t("sidebar.store", lang, name=engine.store.name))
        except Exception:  # noqa: BLE001 - the pages show the store error in full
            st.sidebar.caption(
                t("sidebar.store_unreachable", lang, name=engine.settings.storage.backend)
            )
    stores.selector(lang)
    st.sidebar.caption(t("sidebar.times_utc", lang))


st.set_page_config(page_title="Memory Inspector", page_icon=":material/psychology:", layout="wide")
stores.warm_up_in_background()  # once per server: model, tokenizers and store load meanwhile
state.sync_url()
LANG = state.current_lang()
running_indicator(LANG)  # Streamlit's "Stop" button in the chosen language
TENANT = state.current_tenant()
SIGNED_IN = signin.current_account() is not None

OVERVIEW = st.Page(
    "pages/overview.py",
    title=t("nav.overview", LANG),
    icon=":material/monitoring:",
    url_path="overview",
)


def _home() -> None:
    """``/`` opens the Overview at its own URL, query string kept. (Streamlit serves a default
    page only at ``/``: an Overview declared as the default page made ``/overview`` a "page
    not found".)"""
    st.switch_page(OVERVIEW, query_params=st.query_params.to_dict())


#: The pages after the Overview, in sidebar order: (file name in ``pages/`` = URL path = the
#: ``nav.<name>`` title key, Material icon).
PAGES = [
    ("memories", ":material/database:"),
    ("query_replay", ":material/manage_search:"),
    ("retention", ":material/hourglass_bottom:"),
    ("audit", ":material/history:"),
    ("context_preview", ":material/chat:"),
    ("write_inspector", ":material/edit_note:"),
    ("write_eval", ":material/fact_check:"),
    ("conflicts", ":material/rule:"),
    ("isolation", ":material/shield:"),
]

page = st.navigation(
    [
        st.Page(
            _home, title=t("nav.overview", LANG), url_path="home", default=True, visibility="hidden"
        ),
        OVERVIEW,
        *(
            st.Page(f"pages/{name}.py", title=t(f"nav.{name}", LANG), icon=icon, url_path=name)
            for name, icon in PAGES
        ),
    ],
    position="sidebar" if SIGNED_IN else "hidden",  # nothing to browse before sign-in
)
ACCOUNT = signin.require_account(LANG)  # the sign-in form stops the run here
sidebar(LANG, TENANT, ACCOUNT)
if not ACCOUNT.may_see(TENANT):
    st.error(t("auth.tenant_denied", LANG, tenant=TENANT))
    st.stop()
try:
    state.get_engine()
except Exception as exc:  # noqa: BLE001 - settings errors: one message, no traceback
    show_error(exc, LANG)
    st.stop()
page.run()
