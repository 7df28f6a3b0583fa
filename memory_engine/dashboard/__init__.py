"""Memory Inspector (Streamlit dashboard) helpers: everything of ``app.py`` and ``pages/``
that is not a page.

The pages in ``pages/`` are thin: :func:`.page.open_page` starts each one (route, language,
tenant, engine, title), then the page calls the ``MemoryEngine`` and renders. The package:

* :mod:`.i18n`: every UI string, English and Chinese, one file per area; ``t(key, lang)``.
* :mod:`.page`: the page preamble (``open_page``, ``PageContext.require_tenant``).
* :mod:`.state`: URL query-parameter schema, tenant/language parsing, the cursor stack of the
  Memories table, filter building, the cached engine and tenant counts.
* :mod:`.stores`: the store selector and one engine per configured store.
* :mod:`.signin`: sign-in and the signed-in account; :mod:`.reads`: the scoped reads of the
  pages (also used by the isolation check; no Streamlit).
* :mod:`.frames`: pure data shaping (engine results -> pandas frames; no Streamlit).
* :mod:`.widgets`: Streamlit sections shared by pages or too large for one.
* :mod:`.errors`: a ``MemoryEngineError`` as ``st.error(message)``, never a traceback;
  :mod:`.markdown`: untrusted text escaped for Streamlit markdown.

Streamlit, plotly and pandas are the ``dashboard`` extra (``pip install
memory-engine[dashboard]``); nothing outside this package and ``app.py``/``pages/`` imports them.
"""
