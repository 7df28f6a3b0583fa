"""Dashboard state: the URL schema, the cached engine, the sidebar's tenant and language.

URL schema (``st.query_params``; a test checks it):

* ``tenant``: the selected tenant id (``[A-Za-z0-9_.:-]{1,64}``); required by every page,
  there is no "all tenants" value.
* ``lang``: ``en`` (default) or ``zh``.
* ``memory``: id (UUID) of the memory shown on the Memories page.
* ``trace``: id (UUID) of the search trace shown on the Query Replay page.

Each page's own view state (filters, pickers, tabs, page number, ...) is declared by the page
with :mod:`memory_engine.dashboard.url_state`, and listed in the page's docstring (Memories:
``type``, ``status``, ``source``, ``entity``, ``q``, ``created``, ``user``, ``agent``,
``session``, ``size``, ``page``; Query Replay: ``all``, ``cand``, ``why``; Retention: ``preset``,
``half``, ``weight``, ``floor``, ``bottom``, ``purge``, ``memory``; Audit: ``action``, ``actor``,
``day``, ``pii``, ``event``, ``fields``, ``asof``, ``asof_time``, ``cmp``, ``tz``; Context
Preview: ``src``, ``session``, ``q``, ``task``, ``budget``, ``paste``, ``system``; Write
Inspector: ``write``; Conflicts: ``conflict``, ``decision``; Write Evaluation: ``split``,
``limit``, ``provider_a``/``_b``, ``model_a``/``_b``; Isolation: ``tenants``). A tenant change
drops every parameter but ``tenant`` and ``lang``.

An invalid value is never guessed at: it is removed from the URL and the page says why
(``tenant``: in the sidebar, see :func:`sync_url`; ``memory``/``trace``: :func:`url_id`).

Page switches in Streamlit drop the query string, so ``app.py`` also keeps tenant and language
in ``st.session_state`` and writes them back to the URL at the start of every run
(:func:`sync_url`). Pages only read them through :func:`current_tenant` / :func:`current_lang`.
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, date, datetime, time, timedelta
from typing import Any, Final, Protocol

import streamlit as st

from memory_engine import MemoryEngine
from memory_engine.dashboard.i18n import DEFAULT_LANG, LANGS
from memory_engine.models import (
    ID_PATTERN,
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Scope,
)

log = logging.getLogger(__name__)

QP_TENANT: Final = "tenant"
QP_LANG: Final = "lang"
QP_MEMORY: Final = "memory"
QP_TRACE: Final = "trace"
URL_PARAMS: Final = (QP_TENANT, QP_LANG, QP_MEMORY, QP_TRACE)
#: Params that survive a page switch (restored from session state by ``sync_url``).
GLOBAL_PARAMS: Final = (QP_TENANT, QP_LANG)

SS_PREFIX: Final = "mi_"  # session-state keys owned by the dashboard
DASHBOARD_ACTOR: Final = "dashboard"
TENANT_COUNTS_TTL_S: Final = 30
#: The tenant selector lists at most this many tenants (the largest); others are typed.
MAX_TENANT_OPTIONS: Final = 200
#: Session-state key of an invalid ``?tenant=`` value dropped from the URL (shown in the sidebar).
SS_TENANT_URL_ERROR: Final = f"{SS_PREFIX}tenant_url_error"


# --------------------------------------------------------------------------- pure helpers
def parse_tenant(value: Any) -> str | None:
    """A valid tenant id from a URL/widget value, else None (never "all tenants")."""
    if isinstance(value, list):  # repeated ?tenant= keeps the last one, like st.query_params
        value = value[-1] if value else None
    if not isinstance(value, str):
        return None
    value = value.strip()
    return value if ID_PATTERN.match(value) else None


def parse_lang(value: Any) -> str:
    """``en`` or ``zh`` from a URL/widget value; anything else is the default (``en``)."""
    if isinstance(value, list):
        value = value[-1] if value else None
    return value if isinstance(value, str) and value in LANGS else DEFAULT_LANG


def parse_uuid(value: Any) -> uuid.UUID | None:
    """A UUID from a URL value, else None."""
    if isinstance(value, list):
        value = value[-1] if value else None
    try:
        return uuid.UUID(str(value)) if value else None
    except ValueError:
        return None


def tenant_options(
    counts: Mapping[str, int], current: str | None, limit: int = MAX_TENANT_OPTIONS
) -> list[str]:
    """Tenant ids for the selector: the ``limit`` largest tenants (ties by id), sorted by id,
    plus ``current`` when it is not among them (typed, or a smaller tenant)."""
    largest = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))[: max(limit, 0)]
    options = sorted(name for name, _ in largest)
    if current and current not in options:
        options.append(current)
    return options


def build_filter(
    *,
    types: Iterable[str] = (),
    statuses: Iterable[str] = (),
    sources: Iterable[str] = (),
    text: str | None = None,
    dates: Sequence[date] | None = None,
    entity: str | None = None,
) -> MemoryFilter:
    """The ``MemoryFilter`` of the Memories page's widgets.

    Args:
        types, statuses, sources: selected enum values (empty = no restriction).
        text: substring of the content (blank = none).
        dates: ``(from, to)`` calendar days in UTC, both inclusive; one day = that day only.
        entity: an entity key or name (None or blank = any entity).
    """
    created_from = created_to = None
    if dates:
        first, last = dates[0], dates[-1]
        created_from = datetime.combine(first, time.min, tzinfo=UTC)
        created_to = datetime.combine(last + timedelta(days=1), time.min, tzinfo=UTC) - timedelta(
            microseconds=1
        )
    text = (text or "").strip() or None
    return MemoryFilter(
        memory_types=tuple(MemoryType(v) for v in types),
        statuses=tuple(MemoryStatus(v) for v in statuses),
        sources=tuple(MemorySource(v) for v in sources),
        text_contains=text,
        created_from=created_from,
        created_to=created_to,
        entity=(entity or "").strip() or None,
    )


def without_facet(filters: MemoryFilter, facet: str) -> MemoryFilter:
    """``filters`` with one facet cleared, so that facet's counts show every option."""
    field = {"memory_type": "memory_types", "status": "statuses", "source": "sources"}[facet]
    return filters.model_copy(update={field: ()})


def parse_tags(text: str) -> list[str]:
    """Comma-separated tags (also the Chinese comma) -> unique, stripped, non-empty tags."""
    parts = text.replace("，", ",").split(",")
    return list(dict.fromkeys(p.strip() for p in parts if p.strip()))


def table_key(prefix: str, *parts: object) -> str:
    """A widget key that changes whenever any of ``parts`` changes (``prefix`` + short hash).

    The Memories table is keyed by its page (filters, cursor, the ids shown, and a counter
    bumped when the memory is picked elsewhere): Streamlit keeps a keyed table's row selection
    across reruns even when its rows change, so a fixed key would show page 1's selection on
    page 2. A new key starts the table with a fresh selection.
    """
    digest = hashlib.sha1("\x1f".join(str(p) for p in parts).encode("utf-8")).hexdigest()
    return f"{prefix}_{digest[:16]}"


class StateStore(Protocol):
    """What ``CursorStack`` needs of ``st.session_state`` (a dict works too)."""

    def __getitem__(self, key: str, /) -> Any: ...

    def __setitem__(self, key: str, value: Any, /) -> None: ...

    def __contains__(self, key: object, /) -> bool: ...


class CursorStack:
    """Keyset pagination state: the cursor of every page visited so far.

    ``cursors[0]`` is None (first page); Next pushes the page's ``next_cursor``, Previous pops.
    The stack is reset whenever its ``signature`` (tenant + filters + page size) changes.
    It lives in ``store`` (``st.session_state`` in the app) under ``key``.
    """

    def __init__(self, store: StateStore, key: str, signature: str) -> None:
        saved = store[key] if key in store else None
        if not isinstance(saved, dict) or saved.get("signature") != signature:
            saved = {"signature": signature, "cursors": [None]}
            store[key] = saved
        self._state: dict[str, Any] = saved

    @property
    def cursor(self) -> str | None:
        """Cursor of the current page (None on the first page)."""
        cursors: list[str | None] = self._state["cursors"]
        return cursors[-1]

    @property
    def page_index(self) -> int:
        """0-based number of the current page."""
        return len(self._state["cursors"]) - 1

    def push(self, next_cursor: str | None) -> None:
        """Go to the next page (no-op without a cursor)."""
        if next_cursor:
            self._state["cursors"].append(next_cursor)

    def pop(self) -> None:
        """Go back one page (no-op on the first page)."""
        if len(self._state["cursors"]) > 1:
            self._state["cursors"].pop()

    def seek(self, page_index: int, next_cursor_of: Callable[[str | None], str | None]) -> int:
        """Go to 0-based page ``page_index`` (a page number from the URL).

        Pops back to it, or walks forward from the deepest page known, asking
        ``next_cursor_of(cursor)`` for the next page's cursor (one read per page walked).
        Stops at the last page; returns the page index reached.
        """
        cursors: list[str | None] = self._state["cursors"]
        target = max(page_index, 0)
        del cursors[target + 1 :]
        while len(cursors) - 1 < target:
            following = next_cursor_of(cursors[-1])
            if not following:
                break
            cursors.append(following)
        return self.page_index

    def bounds(self, page_size: int, n_items: int) -> tuple[int, int]:
        """1-based ``(first, last)`` row numbers of the current page; ``(0, 0)`` when empty."""
        if n_items == 0:
            return (0, 0)
        first = self.page_index * page_size + 1
        return (first, first + n_items - 1)


# --------------------------------------------------------------------------- streamlit glue
def ensure_router() -> None:
    """Make sure this run goes through ``app.py`` (call first thing in every page script).

    A ``pages/`` folder next to ``app.py`` makes Streamlit start in its legacy multipage mode,
    which lasts until ``st.navigation`` (in ``app.py``) has run once in the server process. If
    the first request of a fresh server is a page URL (a shared link such as
    ``/memories?tenant=t&memory=<id>``), Streamlit would run that page file alone: no sidebar,
    no tenant selector, no URL sync, and the legacy file-name navigation. Here such a run
    switches the mode off and reruns, which then routes through ``app.py`` to the same page.
    """
    from streamlit.runtime.pages_manager import PagesManager

    if PagesManager.uses_pages_directory:
        PagesManager.uses_pages_directory = False
        st.rerun()


def get_engine() -> MemoryEngine:
    """The engine of the store chosen in the sidebar (one per store and server process,
    settings from ``MEMORY_*`` env / ``.env``); see :mod:`memory_engine.dashboard.stores`."""
    from memory_engine.dashboard import stores

    return stores.current_engine()


def _clear_engines() -> None:
    from memory_engine.dashboard import stores

    stores.clear_engines()


get_engine.clear = _clear_engines  # type: ignore[attr-defined]  # like st.cache_resource


@st.cache_data(ttl=TENANT_COUNTS_TTL_S, show_spinner=False)
def _tenant_counts(reason: str, store: str, actor: str) -> dict[str, int]:
    return get_engine().tenant_counts(actor=actor, reason=reason)


@st.cache_data(ttl=TENANT_COUNTS_TTL_S, show_spinner=False)
def _granted_counts(tenants: tuple[str, ...], store: str) -> dict[str, int]:
    engine = get_engine()
    live = MemoryFilter(statuses=(MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED))
    return {
        tenant: engine.list(Scope.of(tenant), filters=live, limit=1).total or 0
        for tenant in tenants
    }


def cached_tenant_counts(reason: str) -> dict[str, int]:
    """Memories per tenant of the chosen store, limited to the signed-in account's grants.

    Accounts granted every tenant (admins, or local mode) use the audited cross-tenant admin
    read (actor = the account); others get one scoped count per granted tenant (at most
    ``MAX_TENANT_OPTIONS``). Cached 30 s per reason, store and account.

    Raises:
        MemoryEngineError (StoreUnavailableError, StoreError): not cached, shown by the caller.
    """
    from memory_engine.dashboard import signin, stores

    account = signin.current_account()
    if account is None:
        return {}
    if account.all_tenants:
        return _tenant_counts(reason, stores.current_store(), account.actor)
    grants = tuple(sorted(account.tenants))[:MAX_TENANT_OPTIONS]
    return _granted_counts(grants, stores.current_store())


def _clear_counts() -> None:
    _tenant_counts.clear()
    _granted_counts.clear()


cached_tenant_counts.clear = _clear_counts  # type: ignore[attr-defined]


def _qp_get(name: str) -> str | None:
    value = st.query_params.get(name)
    return value if isinstance(value, str) else None


def url_id(name: str) -> tuple[uuid.UUID | None, str | None]:
    """The UUID in URL parameter ``name`` (``memory`` or ``trace``) as ``(id, None)``.

    An invalid value is removed from the URL and returned as ``(None, value)`` so that the
    page can say why nothing is shown; no parameter gives ``(None, None)``.
    """
    raw = _qp_get(name)
    if raw is None or not raw.strip():
        return None, None
    parsed = parse_uuid(raw.strip())
    if parsed is None:
        del st.query_params[name]
        return None, raw
    return parsed, None


def current_tenant() -> str | None:
    """The tenant of this run (from the URL), or None when none is selected."""
    return parse_tenant(_qp_get(QP_TENANT))


def current_lang() -> str:
    """The UI language of this run (from the URL): ``en`` or ``zh``."""
    return parse_lang(_qp_get(QP_LANG))


def sync_url() -> None:
    """Reconcile URL and session state at the start of a run (call once, in ``app.py``).

    A value in the URL wins (shared links, reloads, ``st.switch_page(query_params=...)``); a
    global param missing from the URL (dropped by a page switch) is restored from session state.
    An invalid ``?tenant=`` is dropped and kept in ``SS_TENANT_URL_ERROR`` for the sidebar to
    explain (until a tenant is selected).
    """
    parsers = {QP_TENANT: parse_tenant, QP_LANG: lambda v: v if v in LANGS else None}
    for name in GLOBAL_PARAMS:
        ss_key = f"{SS_PREFIX}{name}"
        raw = _qp_get(name)
        parsed = parsers[name](raw)
        if parsed:
            st.session_state[ss_key] = parsed
            if name == QP_TENANT:
                st.session_state.pop(SS_TENANT_URL_ERROR, None)
            continue
        if name == QP_TENANT and raw is not None and raw.strip():
            st.session_state[SS_TENANT_URL_ERROR] = raw
        if st.session_state.get(ss_key):
            st.query_params[name] = st.session_state[ss_key]
        elif name in st.query_params:  # invalid value: drop it rather than guess
            del st.query_params[name]


def set_tenant(tenant: str | None) -> None:
    """Select ``tenant`` (URL + session state); clears page state that belongs to another one."""
    ss_key = f"{SS_PREFIX}{QP_TENANT}"
    if tenant == current_tenant():
        return
    for name in list(st.query_params):  # filters, pages and selections of the other tenant
        if name not in GLOBAL_PARAMS:
            del st.query_params[name]
    if tenant:
        st.query_params[QP_TENANT] = tenant
        st.session_state[ss_key] = tenant
        st.session_state.pop(SS_TENANT_URL_ERROR, None)
    else:
        st.session_state.pop(ss_key, None)
        if QP_TENANT in st.query_params:
            del st.query_params[QP_TENANT]


def set_lang(lang: str) -> None:
    """Switch the UI language (URL + session state)."""
    lang = parse_lang(lang)
    st.query_params[QP_LANG] = lang
    st.session_state[f"{SS_PREFIX}{QP_LANG}"] = lang


def set_param(name: str, value: str | None) -> None:
    """Set (or with None, remove) one page-level URL parameter (``memory``, ``trace``)."""
    if value:
        st.query_params[name] = value
    elif name in st.query_params:
        del st.query_params[name]


def get_param(name: str) -> str | None:
    """One URL parameter as text, or None."""
    return _qp_get(name)
