"""What the engine keeps in ``MEMORY_DATA_DIR`` (``settings.storage.data_dir``).

A data folder made by this version::

    <data_dir>/
        postgres/               the embedded PostgreSQL's data folder (pgserver; initdb runs here)
        write_journal.sqlite3   the write journal (and its SQLite -wal / -shm files), unless
                                MEMORY_WRITE_QUEUE_PATH names another file
        golden/                 the Query Replay golden sets

PostgreSQL lives in a subfolder because initdb needs an empty folder: the journal or a golden
set written before the first store access must not block the database. A folder made by an
earlier version *is* the PostgreSQL data folder (``PG_VERSION`` at its top, the journal and
``golden/`` inside it); it keeps being used in place, nothing is moved. The resolution from a
data folder to the PostgreSQL folder is
:func:`memory_engine.stores.postgres.embedded.embedded_pg_folder`.
"""

from __future__ import annotations

__all__ = ["GOLDEN_DIR", "JOURNAL_FILE", "POSTGRES_DIR", "is_own_entry"]

#: Subfolder of a new data folder that holds the embedded PostgreSQL's files.
POSTGRES_DIR = "postgres"
#: File name of the default write journal inside the data folder.
JOURNAL_FILE = "write_journal.sqlite3"
#: Subfolder of the golden sets.
GOLDEN_DIR = "golden"

# SQLite's companions of the journal (WAL mode, and a rollback journal if ever used).
_JOURNAL_SUFFIXES = ("", "-wal", "-shm", "-journal")
# pgserver's list of processes using a server; earlier versions left it next to a failed initdb.
_HANDLES = ".handle_pids.json"


def is_own_entry(name: str) -> bool:
    """True when ``name`` (an entry directly in a data folder) is one the engine writes there."""
    if name in (POSTGRES_DIR, GOLDEN_DIR, _HANDLES):
        return True
    return any(name == JOURNAL_FILE + suffix for suffix in _JOURNAL_SUFFIXES)
