"""``memory-engine ingest``: conversation files (OpenAI chat, LoCoMo, plain text) into memories."""

from __future__ import annotations

import functools
import json
from enum import StrEnum
from pathlib import Path
from typing import Annotated, Any

import typer

from memory_engine.cli.common import advance, app, err, open_engine, out, progress, run
from memory_engine.errors import InvalidInputError
from memory_engine.models import MemorySource, Scope
from memory_engine.write.ingest import Turn, read_locomo, read_openai, read_text


class Fmt(StrEnum):
    """Input format of ``ingest --format``."""

    openai = "openai"
    locomo = "locomo"
    text = "text"


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
    session: Annotated[
        str | None,
        typer.Option(
            help="OpenAI chat: session id of messages that name none (default: the file's "
            "session_id/id, else its file name)."
        ),
    ] = None,
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
        if session is not None and fmt is not Fmt.openai:
            raise InvalidInputError("--session applies to --format openai only", session=session)
        if session is not None:
            Scope.of(str(tenant), session_id=session)  # the id's shape, checked before reading
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
            batches = {str(tenant): read_openai(file, session)}
        else:
            batches = {str(tenant): read_text(file)}
        # a document is an import (untrusted: injection quarantined); chats are conversations
        source = MemorySource.IMPORT if fmt is Fmt.text else MemorySource.CONVERSATION
        engine = open_engine()
        summary: dict[str, Any] = {}
        try:
            with progress() as bar:
                for tid, turns in batches.items():
                    scope = Scope.of(tid, user_id=user)
                    task = bar.add_task(f"ingest {tid}", total=len(turns))
                    results = engine.ingest(
                        scope,
                        turns,
                        source=source,
                        progress=functools.partial(advance, bar, task),
                        mode=mode,  # type: ignore[arg-type]
                    )
                    bar.update(task, completed=len(turns))
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

    summary = run(work, as_json)
    if as_json:
        print(json.dumps(summary, ensure_ascii=False))
    else:
        for tid, s in summary.items():
            out.print(
                f"{tid}: {s['turns']} turns -> {s['created']} created, {s['duplicates']} duplicates, {s['errors']} errors"
            )
    if any(s["errors"] for s in summary.values()):
        raise typer.Exit(1)  # some turns were skipped (reasons on stderr)
