"""``memory-engine`` command line (typer + rich progress bars).

Errors print one line ``error: <message>`` to stderr (JSON ``{"error", "message", "details"}``
with ``--json``) and exit with status 2; never a traceback for an expected failure.
"""

from __future__ import annotations

import functools
import json
import logging
import signal
import sys
from collections.abc import Callable
from contextvars import ContextVar
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any, NoReturn, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from memory_engine.cli.copy import copy_command
from memory_engine.cli.mcp import mcp_command
from memory_engine.cli.reports import print_isolation
from memory_engine.cli.stats import print_stats
from memory_engine.config import Settings
from memory_engine.engine import MemoryEngine
from memory_engine.errors import ConfigError, InvalidInputError, MemoryEngineError
from memory_engine.models import MemorySource, Scope
from memory_engine.write.ingest import Turn, read_locomo, read_openai, read_text

app = typer.Typer(add_completion=False, no_args_is_help=True, help="Agent memory engine.")
app.command("copy")(copy_command)
app.command("mcp")(mcp_command)
err = Console(stderr=True)
out = Console()
T = TypeVar("T")
#: An open engine lent to in-process runs of the commands (the isolation check's CLI path).
LENT_ENGINE: ContextVar[MemoryEngine | None] = ContextVar("lent_engine", default=None)


class Fmt(StrEnum):
    openai = "openai"
    locomo = "locomo"
    text = "text"


def _engine() -> MemoryEngine:
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


def _run(fn: Callable[[], T], as_json: bool = False) -> T:
    try:
        return fn()
    except MemoryEngineError as exc:
        if as_json:
            print(json.dumps(exc.to_dict(), ensure_ascii=False), file=sys.stderr)
        else:
            err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from exc


def _fail(exc: MemoryEngineError, as_json: bool) -> NoReturn:
    """Report ``exc`` like ``_run`` does and exit with status 2."""

    def boom() -> None:
        raise exc

    _run(boom, as_json)
    raise typer.Exit(2)  # not reached: _run exits


def _advance(progress: Progress, task: Any, done: int) -> None:
    progress.update(task, completed=done)


def _progress() -> Progress:
    return Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=err,
    )


@app.command()
def ingest(
    file: Annotated[Path, typer.Argument(exists=True, dir_okay=False, readable=True)],
    tenant: Annotated[
        str | None, typer.Option(help="Tenant id (required unless --tenant-per-conversation).")
    ] = None,
    user: Annotated[str | None, typer.Option(help="User id narrowing the scope.")] = None,
    fmt: Annotated[Fmt, typer.Option("--format", help="Input format.")] = Fmt.openai,
    conversation: Annotated[
        str | None, typer.Option(help="LoCoMo sample_id to ingest (e.g. conv-26).")
    ] = None,
    tenant_per_conversation: Annotated[
        bool,
        typer.Option(
            help="LoCoMo: one tenant per sample_id (tenant = sample_id, prefixed with --tenant if given)."
        ),
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON summary.")] = False,
    mode: Annotated[
        str,
        typer.Option(help="raw: one memory per turn; extract: facts, duplicates, conflicts."),
    ] = "raw",
) -> None:
    """Ingest a conversation file: one episodic memory per turn (or extracted facts).
    Exit status 1 when some turns were skipped."""

    def work() -> dict[str, Any]:
        if mode not in ("raw", "extract"):
            raise InvalidInputError("--mode must be raw or extract", mode=mode)
        if not tenant and not (fmt is Fmt.locomo and tenant_per_conversation):
            raise InvalidInputError(
                "--tenant is required (or --tenant-per-conversation for LoCoMo)"
            )
        batches: dict[str, list[Turn]]
        if fmt is Fmt.locomo:
            convs = read_locomo(file, conversation)
            if tenant_per_conversation:
                batches = {
                    (f"{tenant}-{cid}" if tenant else cid): turns for cid, turns in convs.items()
                }
            else:
                batches = {str(tenant): [t for turns in convs.values() for t in turns]}
        elif fmt is Fmt.openai:
            batches = {str(tenant): read_openai(file)}
        else:
            batches = {str(tenant): read_text(file)}
        # a document is an import (untrusted: injection quarantined); chats are conversations
        source = MemorySource.IMPORT if fmt is Fmt.text else MemorySource.CONVERSATION
        engine = _engine()
        summary: dict[str, Any] = {}
        try:
            with _progress() as progress:
                for tid, turns in batches.items():
                    scope = Scope.of(tid, user_id=user)
                    task = progress.add_task(f"ingest {tid}", total=len(turns))
                    results = engine.ingest(
                        scope,
                        turns,
                        source=source,
                        progress=functools.partial(_advance, progress, task),
                        mode=mode,  # type: ignore[arg-type]
                    )
                    progress.update(task, completed=len(turns))
                    created = sum(1 for r in results for o in r.outcomes if o.status == "created")
                    dups = sum(1 for r in results for o in r.outcomes if o.status == "duplicate")
                    errors = [r.error for r in results if r.error]
                    summary[tid] = {
                        "turns": len(turns),
                        "created": created,
                        "duplicates": dups,
                        "errors": len(errors),
                        "not_remembered": sum(1 for r in results if r.remembered is False),
                    }
                    for e in errors[:5]:
                        err.print(f"[yellow]skipped:[/yellow] {e['message']}")
        finally:
            engine.close()
        return summary

    summary = _run(work, as_json)
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        for tid, s in summary.items():
            out.print(
                f"{tid}: {s['turns']} turns -> {s['created']} created, {s['duplicates']} duplicates, {s['errors']} errors"
            )
    if any(s["errors"] for s in summary.values()):
        raise typer.Exit(1)  # some turns were skipped (reasons on stderr)


@app.command()
def search(
    query: str,
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    user: Annotated[str | None, typer.Option(help="User id narrowing the scope.")] = None,
    k: Annotated[int | None, typer.Option(help="Memories to return.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print memories, block and trace as JSON.")
    ] = False,
) -> None:
    """Search memories; prints the memory block (or JSON with memories, block, trace)."""

    def work() -> Any:
        engine = _engine()
        try:
            return engine.search(Scope.of(tenant, user_id=user), query, k=k)
        finally:
            engine.close()

    result = _run(work, as_json)
    if as_json:
        payload = {
            "memories": [
                {**c.memory.public_dict(), "scores": c.scores, "ranks": c.ranks}
                for c in result.memories
            ],
            "block": result.block,
            "trace": result.trace.model_dump(mode="json"),
        }
        print(json.dumps(payload, ensure_ascii=False))
        return
    table = Table(title=f"{len(result.memories)} memories · trace {result.trace.id}")
    for col in ("#", "content", "cosine ↑", "bm25 ↑", "rrf ↑"):
        table.add_column(col)
    for c in result.memories:
        table.add_row(
            str(c.ranks.get("final")),
            c.memory.content[:120],
            f"{c.scores['cosine']:.3f}" if "cosine" in c.scores else "",
            f"{c.scores['bm25']:.2f}" if "bm25" in c.scores else "",
            f"{c.scores['rrf']:.4f}",
        )
    out.print(table)
    print(result.block)  # the exact block, never re-wrapped by the terminal renderer


@app.command()
def stats(
    tenant: Annotated[
        str | None, typer.Option(help="Tenant id; omit for counts per tenant (audited admin path).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Counts per tenant, or by type/status/source for one tenant (tables; --json for JSON)."""

    def work() -> dict[str, Any]:
        engine = _engine()
        try:
            if tenant:
                return engine.stats(Scope.of(tenant)).model_dump(mode="json")
            return {"tenants": engine.tenant_counts(actor="cli", reason="memory-engine stats")}
        finally:
            engine.close()

    data = _run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print_stats(out, data, tenant=tenant)


@app.command("isolation-check")
def isolation_check(
    tenants: Annotated[int, typer.Option(help="Probe tenants to plant (2-20).")] = 3,
    keep: Annotated[bool, typer.Option(help="Keep the probe tenants' memories.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Plant canaries in fresh tenants and probe every path across them; exit 1 on any leak."""
    from memory_engine.isolation.check import run_isolation_check

    if not 2 <= tenants <= 20:  # refused before the store opens
        _fail(InvalidInputError("--tenants must be in 2..20", tenants=tenants), as_json)

    def work() -> dict[str, Any]:
        engine = _engine()
        try:
            with _progress() as progress:
                task = progress.add_task("cross-tenant probes", total=tenants * (tenants - 1))
                report = run_isolation_check(
                    engine,
                    tenants=tenants,
                    cleanup=not keep,
                    on_progress=lambda done, _total: _advance(progress, task, done),
                )
            return report.to_dict()
        finally:
            engine.close()

    data = _run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print_isolation(out, data)
    if not data["ok"]:
        raise typer.Exit(1)


def _register_subcommands() -> None:
    from memory_engine.cli.lifecycle import register as register_lifecycle
    from memory_engine.cli.users import users_app
    from memory_engine.cli.write import consolidate

    app.add_typer(users_app, name="user")
    app.command()(consolidate)
    register_lifecycle(app)


_register_subcommands()


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
