"""The assembled ``memory-engine`` command line: every command module registered on one app.

The shared typer app and helpers live in :mod:`memory_engine.cli.common`; each module below
registers its commands on that app when imported (in the order of ``memory-engine --help``).
Errors print one line ``error: <message>`` to stderr (JSON ``{"error", "message", "details"}``
with ``--json``) and exit with status 2; never a traceback for an expected failure.
"""

from __future__ import annotations

import signal

# Each import registers its commands on ``app``; the order is that of ``memory-engine --help``.
# isort: off
from memory_engine.cli import copy, mcp, ingest, search, stats, entities  # noqa: F401
from memory_engine.cli import isolation, write, lifecycle, users, reembed  # noqa: F401

# isort: on
from memory_engine.cli.common import app

__all__ = ["app", "main"]


def _exit_on_sigterm() -> None:
    """Make SIGTERM unwind like an exception (exit status 143), so ``finally`` blocks and
    ``atexit`` handlers run. The default action killed the process outright: pgserver's atexit
    handler never stopped the embedded PostgreSQL, and since the dead process stayed on
    pgserver's handle list no later process stopped it either (``docker stop``, systemd, an
    MCP client stopping ``memory-engine mcp``; uvicorn re-raises the SIGTERM it captured)."""

    def handler(signum: int, frame: object) -> None:
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, handler)


def main() -> None:
    """Console-script entry point."""
    _exit_on_sigterm()
    app()


if __name__ == "__main__":
    main()
