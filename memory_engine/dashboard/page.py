"""The preamble of every page script, in one place.

Every page starts the same way: route a shared link through ``app.py``
(:func:`state.ensure_router`), read this run's language, tenant and engine, show the title
(and an intro caption). Pages of one tenant then stop with a hint when no tenant is selected
and name the tenant under the title::

    page = open_page("write.title", caption_key="write.intro")
    scope = page.require_tenant()        # st.info + st.stop without a tenant
    lang, engine, tenant = page.lang, page.engine, scope.tenant_id

Sign-in, the sidebar and ``st.set_page_config`` run once in ``app.py`` before any page.
"""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard import state
from memory_engine.dashboard.i18n import label, t

#: The formats of ``memory-engine ingest --format`` (a test keeps this equal to the CLI's).
IMPORT_FORMATS = ("openai", "locomo", "text")


def empty_tenant_hint(tenant: str, lang: str) -> str:
    """The hint of a tenant without memories: the ingest command with every import format,
    each with what it reads (markdown)."""
    lines = "\n".join(
        t("common.format_line", lang, name=name, what=label(f"common.format.{name}", lang, name))
        for name in IMPORT_FORMATS
    )
    return t("common.empty_tenant", lang, tenant=tenant, formats=lines)


def running_indicator(lang: str) -> None:
    """Show Streamlit's running indicator (top right) in ``lang``.

    Streamlit 1.67 has no setting for the indicator's text: its "Stop" / "Stopping..." button
    is English. This styles the button so its own text is hidden and the catalog's
    ``common.stop`` is shown in its place (the running icon has no text). Long actions also
    show a spinner with their own text next to the button that started them.
    """
    stop = t("common.stop", lang).replace('"', "")
    st.html(
        "<style>"
        '[data-testid="stStatusWidget"] button {font-size: 0 !important}'
        '[data-testid="stStatusWidget"] button * {font-size: 0 !important}'
        f'[data-testid="stStatusWidget"] button::after {{content: "{stop}"; font-size: 0.875rem}}'
        "</style>"
    )


@dataclass(frozen=True)
class PageContext:
    """What a page script works with in this run.

    Attributes:
        lang: the UI language (``en`` or ``zh``).
        tenant: the tenant selected in the sidebar, or None.
        engine: the engine of the store chosen in the sidebar.
    """

    lang: str
    tenant: str | None
    engine: MemoryEngine

    def require_tenant(self, *, show: bool = True) -> Scope:
        """The scope of the selected tenant; without one, says so and stops the run.

        Args:
            show: name the tenant in a caption (``common.current_tenant``).
        """
        if self.tenant is None:
            st.info(t("common.no_tenant", self.lang))
            st.stop()
        if show:
            st.caption(t("common.current_tenant", self.lang, tenant=self.tenant))
        return Scope.of(self.tenant)


def open_page(title_key: str, *, caption_key: str | None = None) -> PageContext:
    """Start a page: route through ``app.py``, read lang/tenant/engine, show the title.

    Args:
        title_key: the i18n key of the page title.
        caption_key: the i18n key of an intro caption under the title, if any.
    """
    state.ensure_router()  # a shared link on a fresh server: route through app.py
    page = PageContext(
        lang=state.current_lang(), tenant=state.current_tenant(), engine=state.get_engine()
    )
    st.title(t(title_key, page.lang))
    if caption_key is not None:
        st.caption(t(caption_key, page.lang))
    return page
