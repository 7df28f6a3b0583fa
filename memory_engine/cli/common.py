"""The ``memory-engine`` typer app and the helpers every command module shares.

Every command module (``cli/write.py``, ``cli/search.py``, ``cli/stats.py``, ...) registers its
commands on :data:`app` and opens the engine with :func:`open_engine`; :mod:`memory_engine.cli.app`
imports them all. Errors print one line ``error: <message>`` to stderr (JSON ``{"error",
"message", "details"}`` with ``--json``) and exit with status 2; never a traceback for an
expected failure.
"""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable
from contextvars import ContextVar
from typing import Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from memory_engine.config import Settings
from memory_engine.engine import MemoryEngine
from memory_engine.errors import ConfigError, MemoryEngineError

__all__ = [
    "LENT_ENGINE",
    "advance",
    "app",
    "err",
    "fail",
    "open_engine",
    "out",
    "progress",
    "run",
]

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Agent memory engine.")
#: Human output (stdout) and diagnostics, progress bars (stderr).
out = Console()
err = Console(stderr=True)
#: An open engine lent to in-process runs of the commands (the isolation check's CLI path).
LENT_ENGINE: ContextVar[MemoryEngine | None] = ContextVar("lent_engine", default=None)

T = TypeVar("T")


def open_engine() -> MemoryEngine:
    """The lent engine, else a new one from the ``MEMORY_*`` settings (logging to stderr).

    Raises:
        MemoryEngineError: the settings are invalid (message names the setting).
    """
    if (lent := LENT_ENGINE.get()) is not None:
        return lent
    try:
        settings = Settings()
    except ConfigError as exc:
        raise MemoryEngineError(exc.message) from exc
    except ValueError as exc:
        raise MemoryEngineError(f"invalid MEMORY_* setting: {exc}") from exc
    logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr)
    return MemoryEngine(settings)


def run(fn: Callable[[], T], as_json: bool = False) -> T:
    """``fn()``; a ``MemoryEngineError`` is reported on stderr and exits with status 2."""
    try:
        return fn()
    except MemoryEngineError as exc:
        if as_json:
            print(json.dumps(exc.to_dict(), ensure_ascii=False), file=sys.stderr)
        else:
            err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from exc


def fail(exc: MemoryEngineError, as_json: bool) -> NoReturn:
    """Report ``exc`` like :func:`run` does and exit with status 2."""

    def boom() -> None:
        raise exc

    run(boom, as_json)
    raise typer.Exit(2)  # not reached: run exits


def advance(bar: Progress, task: Any, done: int) -> None:
    """Set ``task`` of ``bar`` to ``done`` completed steps."""
    bar.update(task, completed=done)


def progress() -> Progress:
    """A progress bar on stderr (description, bar, done/total, elapsed)."""
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    )
