"""Memory Inspector (Streamlit dashboard) helpers.

The pages in ``pages/`` are thin: they read URL/sidebar state (:mod:`.state`), call the
``MemoryEngine``, and render. Everything that can be tested without a browser lives here:

* :mod:`.i18n`: every UI string, English and Chinese, and ``t(key, lang)``.
* :mod:`.state`: URL query-parameter schema, tenant/language parsing, the cursor stack of the
  Memories table, filter building, and the cached engine.
* :mod:`.tables`: engine records -> pandas DataFrames (times as UTC text with a zone label).
* :mod:`.errors`: render a ``MemoryEngineError`` as ``st.error(message)``, never a traceback.
"""
