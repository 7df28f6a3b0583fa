"""Streamlit sections the pages share or that are too large for a thin page: each one reads
its widgets, calls the engine and draws; the data it shows comes from
:mod:`memory_engine.dashboard.frames`.

* :mod:`.why_not`, :mod:`.config_compare`, :mod:`.relevance`, :mod:`.golden`: the retrieval
  tools of Query Replay; :mod:`.store_compare`: PostgreSQL vs Qdrant (Query Replay, Overview).
* :mod:`.alarm`: the cross-tenant alarm of a trace; :mod:`.pii`: PII panels (Write Inspector,
  Audit); :mod:`.write_trail`: the steps of one write (Write Inspector); :mod:`.exports`: the
  CSV / JSON download pair of an export (Audit's event log and deletion receipts).
* :mod:`.memory_actions`: safe edits of the Memories page (confirmed delete, undo, typed purge,
  bulk actions, the persistent reason).
"""
