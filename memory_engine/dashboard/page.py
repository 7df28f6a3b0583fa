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
from memory_engine.dashboard.i18n import t


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
