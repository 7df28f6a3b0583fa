"""Server settings of the embedded PostgreSQL, kept in ``memory_engine.conf`` in its data folder

PostgreSQL's stock ``shared_buffers`` is 128 MiB. At 100k memories of 384 dimensions the
``memories`` table and its HNSW index are about 195 MiB each, so with the stock value every
dense search re-reads index pages from the operating system's cache: an HNSW query took about
30 ms instead of 3.5 ms with every page in shared buffers (measured with ``EXPLAIN (ANALYZE,
BUFFERS)``, pgvector 0.6.2). The memory is reserved as the server touches it, not at start.

``postgresql.conf`` gets one ``include_if_exists = 'memory_engine.conf'`` line (appended once);
the included file is rewritten when the wanted values change. The server reads it when it
starts; :func:`memory_engine.stores.postgres.embedded.start_embedded_server` restarts a server it
has just initialised so the values apply from the first use. A PostgreSQL given by
``MEMORY_DATABASE_URL`` is never touched: tune that server yourself.
"""

from __future__ import annotations

import os
from pathlib import Path

INCLUDE_FILE = "memory_engine.conf"
_INCLUDE_LINE = f"include_if_exists = '{INCLUDE_FILE}'"


def tuning_text(shared_buffers_mb: int) -> str:
    """Content of ``memory_engine.conf`` for the given ``shared_buffers`` (MiB, 0 = stock)."""
    lines = [
        "# Written by memory_engine (Settings.embedded_shared_buffers_mb); edits are replaced."
    ]
    if shared_buffers_mb > 0:
        lines.append(f"shared_buffers = '{int(shared_buffers_mb)}MB'")
    return "\n".join(lines) + "\n"


def write_tuning(pgdata: Path, shared_buffers_mb: int) -> bool:
    """Make ``pgdata`` include ``memory_engine.conf`` with these values.

    Args:
        pgdata: an initialised PostgreSQL data folder (``postgresql.conf`` present).
        shared_buffers_mb: MiB, >= 0 (0 removes the setting: PostgreSQL's default).

    Returns:
        True when a file changed (the values apply at the next server start), False when both
        were already up to date or the folder has no ``postgresql.conf``.

    Raises:
        OSError: a file cannot be read or written.
    """
    conf = pgdata / "postgresql.conf"
    if not conf.is_file():
        return False
    changed = False
    owner = conf.stat()
    text = conf.read_text(encoding="utf-8")
    if _INCLUDE_LINE not in text.splitlines():
        with conf.open("a", encoding="utf-8") as f:
            f.write(("" if text.endswith("\n") else "\n") + _INCLUDE_LINE + "\n")
        changed = True
    target = pgdata / INCLUDE_FILE
    wanted = tuning_text(shared_buffers_mb)
    if not target.is_file() or target.read_text(encoding="utf-8") != wanted:
        target.write_text(wanted, encoding="utf-8")
        if hasattr(os, "chown") and os.geteuid() == 0:  # pgserver runs postgres as its own user
            os.chown(target, owner.st_uid, owner.st_gid)
        target.chmod(0o600)
        changed = True
    return changed
