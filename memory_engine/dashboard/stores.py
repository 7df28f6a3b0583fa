"""Which store the dashboard reads: the sidebar store selector and one engine per store.

Both stores are *configured* when a Qdrant location is set (``MEMORY_QDRANT_URL`` or
``MEMORY_QDRANT_PATH``) and PostgreSQL is too (``MEMORY_STORE=postgres``, embedded or
``MEMORY_DATABASE_URL``; or ``MEMORY_DATABASE_URL`` set while ``MEMORY_STORE=qdrant``). Then the
sidebar offers PostgreSQL / Qdrant, every page reads the chosen one (``state.get_engine``), and
Query Replay / Overview can compare the two (:mod:`.widgets.store_compare`). Otherwise
only ``MEMORY_STORE`` is used and no selector is shown.

The choice is in the URL (``?store=postgres|qdrant``, only while both are configured) and in
session state, so it survives page switches like the tenant does. An unknown or unavailable
value is dropped from the URL, never guessed at.
"""

from __future__ import annotations

import logging
from concurrent.futures import Future
from typing import Any, Final

import streamlit as st

from memory_engine import MemoryEngine
from memory_engine.config import Settings
from memory_engine.dashboard.i18n import t
from memory_engine.retrieval.gcfreeze import server_settings
from memory_engine.stores.transfer import store_settings

_log = logging.getLogger(__name__)

QP_STORE: Final = "store"
SS_STORE: Final = "mi_store"
W_STORE: Final = "mi_w_store"
STORE_ORDER: Final = ("postgres", "qdrant")


def configured_stores(settings: Settings) -> list[str]:
    """The stores the dashboard can open, in STORE_ORDER: ``settings.storage.backend`` always, the other
    one when its location is configured (see the module docstring)."""
    available = {settings.storage.backend}
    if settings.storage.qdrant_url or settings.storage.qdrant_path:
        available.add("qdrant")
    if settings.storage.database_url is not None:
        available.add("postgres")
    return [s for s in STORE_ORDER if s in available]


def pick_store(raw: Any, saved: Any, choices: list[str], default: str) -> str:
    """The store of this run: the URL value, else the session's, else ``default`` (only values
    among ``choices`` count)."""
    for value in (raw, saved):
        if isinstance(value, str) and value in choices:
            return value
    return default


@st.cache_resource(show_spinner=False)
def _shared_embedder() -> Any:
    """One embedder for every engine of the process (loaded once), micro-batched: searches
    of concurrent sessions share forward passes (``embedding.batching``)."""
    from memory_engine.embedding import build_embedder
    from memory_engine.embedding.batching import MicroBatchingEmbedder

    return MicroBatchingEmbedder(build_embedder(Settings()))


@st.cache_resource(show_spinner=False)
def _shared_leg_embedders() -> dict[str, Any]:
    """The extra dense legs the settings configure (the multilingual leg by default), one per
    process and micro-batched like the primary embedder."""
    from memory_engine.embedding import build_leg_embedders
    from memory_engine.embedding.batching import MicroBatchingEmbedder

    legs = build_leg_embedders(Settings(), _shared_embedder())
    return {leg: MicroBatchingEmbedder(e) for leg, e in legs.items()}


@st.cache_resource(show_spinner=False)
def engine_for(store: str) -> MemoryEngine:
    """The engine of ``store`` (``postgres`` or ``qdrant``), one per server process, built from
    the ``MEMORY_*`` settings with ``store`` replaced.

    Raises:
        ConfigError: ``store`` is not configured.
    """
    settings = server_settings(Settings())  # a long-running process of ours: gc.freeze on
    if store == settings.storage.backend and len(configured_stores(settings)) == 1:
        return MemoryEngine(
            settings, embedder=_shared_embedder(), leg_embedders=_shared_leg_embedders()
        )
    if store not in configured_stores(settings):
        from memory_engine.errors import ConfigError

        raise ConfigError(f"store {store!r} is not configured")
    return MemoryEngine(
        store_settings(settings, store),
        embedder=_shared_embedder(),
        leg_embedders=_shared_leg_embedders(),
    )


@st.cache_resource(show_spinner=False)
def warm_up_in_background() -> Future[None] | None:
    """Start, once per server process, loading what the first search needs, in a thread.

    Called at every page load (before sign-in); only the first call starts anything: the
    engine of the default store opens its store and loads the embedding model and the
    tokenizers (:meth:`MemoryEngine.warm_up`). A search arriving meanwhile waits for those
    loads instead of starting them again.

    Returns:
        The warm-up's future, or ``None`` when the settings are invalid (the page shows that
        error itself).
    """
    try:
        engine = engine_for(Settings().storage.backend)
    except Exception as exc:  # noqa: BLE001 - bad MEMORY_* settings: reported by the page
        _log.warning("no warm-up: %s", exc)
        return None
    return engine.warm_up(open_store=True, background=True)


def clear_engines() -> None:
    """Forget the cached engines and embedder (tests, after changing ``MEMORY_*``); the next
    page load warms up the new default engine."""
    engine_for.clear()
    _shared_embedder.clear()
    warm_up_in_background.clear()


def current_store() -> str:
    """The store chosen for this run (URL, then session, then ``MEMORY_STORE``); keeps the URL
    and session state in step."""
    settings = Settings()
    choices = configured_stores(settings)
    raw = st.query_params.get(QP_STORE)
    store = pick_store(raw, st.session_state.get(SS_STORE), choices, settings.storage.backend)
    st.session_state[SS_STORE] = store
    if len(choices) > 1:
        if raw != store:
            st.query_params[QP_STORE] = store
    elif QP_STORE in st.query_params:
        del st.query_params[QP_STORE]
    return store


def current_engine() -> MemoryEngine:
    """The engine of :func:`current_store`."""
    return engine_for(current_store())


def other_engine() -> MemoryEngine | None:
    """The engine of the store not chosen, or None when only one store is configured."""
    choices = configured_stores(Settings())
    if len(choices) < 2:
        return None
    current = current_store()
    return engine_for(next(s for s in choices if s != current))


def _on_store_changed() -> None:
    value = st.session_state.get(W_STORE)
    if isinstance(value, str):
        st.session_state[SS_STORE] = value
        st.query_params[QP_STORE] = value


def selector(lang: str) -> None:
    """The sidebar's PostgreSQL / Qdrant radio, shown only when both stores are configured."""
    choices = configured_stores(Settings())
    if len(choices) < 2:
        return
    st.session_state[W_STORE] = current_store()
    st.sidebar.radio(
        t("stores.selector", lang),
        choices,
        format_func=lambda s: t(f"stores.{s}", lang),
        key=W_STORE,
        horizontal=True,
        on_change=_on_store_changed,
        help=t("stores.selector_help", lang),
    )
