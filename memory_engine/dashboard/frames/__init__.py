"""Pure data shaping of the Memory Inspector: engine results -> pandas frames, plain rows and
label text, one module per page or tool. No Streamlit import here (a test checks it), so
every function is unit-tested without a script run; :mod:`memory_engine.dashboard.widgets`
and the pages draw what these return.

* :mod:`.cells`: one value in a cell (UTC times, short ids, clipped text), bounded tables.
* :mod:`.labels`: stored category values (memory type, status, ...) in the UI language.
* :mod:`.overview`, :mod:`.memories`, :mod:`.traces`, :mod:`.retrieval`, :mod:`.stores`,
  :mod:`.retention`, :mod:`.audit`, :mod:`.writes`, :mod:`.context`, :mod:`.pii`,
  :mod:`.isolation`: the frames of each page or tool.
"""
