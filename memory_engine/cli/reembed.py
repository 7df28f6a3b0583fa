"""``memory-engine reembed``: switch a store's dense legs to the configured embedders in place.

Run it after changing ``MEMORY_EMBEDDER`` (the primary leg; the "model or dimension mismatch
... re-embed required" error names this command), to fill the multilingual leg of a store made
before it (``MEMORY_EMBEDDER_MULTILINGUAL``), or after a leg's model changed. Searches keep
working throughout (on the old primary vectors until the switch; without a leg still being
filled). Killed in the middle, run it again: it goes on where it stopped. See
:mod:`memory_engine.stores.reembed`.

Exit status: 0 done and verified; 1 the verification found differences (report printed);
2 an error (one line ``error: ...``, or the JSON error with ``--json``).
"""

from __future__ import annotations

import json
import logging
import sys
from typing import Annotated, Any

import typer
from rich.table import Table

from memory_engine.cli.common import app, err, out, progress
from memory_engine.config import Settings
from memory_engine.embedding import build_embedder, build_leg_embedders
from memory_engine.errors import ConfigError, MemoryEngineError
from memory_engine.stores import build_store
from memory_engine.stores.reembed import reembed_store


@app.command("reembed")
def reembed_command(
    leg: Annotated[
        str | None,
        typer.Option(help="Only this leg: dense (the primary embedder) or dense_ml."),
    ] = None,
    tenant: Annotated[
        str | None,
        typer.Option(
            help="Only this tenant (fills and verifies it; a primary switch needs the whole store)."
        ),
    ] = None,
    batch: Annotated[int, typer.Option(min=1, max=4096, help="Memories per embed call.")] = 128,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report.")] = False,
) -> None:
    """Re-embed the store with the configured embedders, resumably, then verify.

    Exit status: 0 done and verified; 1 the verification found differences; 2 an error.
    """
    store = None
    try:
        try:
            settings = Settings()
        except ValueError as exc:
            raise ConfigError(f"invalid MEMORY_* setting: {exc}") from exc
        logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr)
        primary = build_embedder(settings)
        legs = build_leg_embedders(settings, primary)
        store = build_store(settings)
        everyone = store.admin_tenant_ids(actor="memory-engine reembed", reason="reembed")
        tenants = [tenant] if tenant else everyone
        with progress() as bar:
            tasks: dict[str, Any] = {}

            def on_progress(name: str, done: int, total: int) -> None:
                if name not in tasks:
                    tasks[name] = bar.add_task(f"embed {name}", total=total)
                bar.update(tasks[name], completed=done, total=total)

            runs = reembed_store(
                store,
                primary=primary,
                legs=legs,
                tenants=tenants,
                all_tenants=tenant is None,
                only_leg=leg,
                batch=batch,
                progress=on_progress,
                list_tenants=None
                if tenant
                else lambda: store.admin_tenant_ids(
                    actor="memory-engine reembed", reason="reembed: tenants created during the run"
                ),
            )
    except MemoryEngineError as exc:
        if as_json:
            print(json.dumps(exc.to_dict(), ensure_ascii=False), file=sys.stderr)
        else:
            err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from exc
    finally:
        if store is not None:
            store.close()
    report = {
        "ok": all(r.ok for r in runs),
        "tenants": len({t for r in runs for t in r.verified} | set(tenants)),
        "legs": [r.to_dict() for r in runs],
    }
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        table = Table("leg", "model", "dim", "action", "embedded", "verified")
        for r in runs:
            bad = [t for t, v in r.verified.items() if not v["ok"]]
            table.add_row(
                r.leg,
                r.model,
                str(r.dim),
                r.action,
                str(r.embedded),
                "ok" if r.ok else f"FAILED: {', '.join(bad[:5])}",
            )
        out.print(table)
    if not report["ok"]:
        raise typer.Exit(1)
