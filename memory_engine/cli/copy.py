"""``memory-engine copy``: copy memories between a PostgreSQL and a Qdrant store, then verify.

Both stores are built from the current settings (``MEMORY_*`` environment and ``.env``) with
the store kind replaced by ``--from``/``--to`` and the location optionally overridden:

* PostgreSQL: ``--from-url/--to-url`` = a database URL (else ``MEMORY_DATABASE_URL``, else the
  embedded server in ``--from-path/--to-path`` or ``MEMORY_DATA_DIR``);
* Qdrant: ``--from-url/--to-url`` = a server URL (API key from ``MEMORY_QDRANT_API_KEY``),
  ``--from-path/--to-path`` = a local-mode folder (else ``MEMORY_QDRANT_URL`` /
  ``MEMORY_QDRANT_PATH``).

Exit status: 0 copied and verified, 1 the verification found differences (report printed),
2 an error (one line ``error: ...``, or the canonical JSON error with ``--json``); nothing is
ever overwritten (see :mod:`memory_engine.stores.transfer` for re-runs and conflicts). A ``--tenant``
that has no memories in the source is an error (exit 2, nothing copied): it is almost always a
mistyped id. Without ``--tenant``, an empty source copies nothing and says so (exit 0).
"""

from __future__ import annotations

import json
import logging
import sys
from enum import StrEnum
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from memory_engine.cli.common import app
from memory_engine.config import Settings
from memory_engine.errors import ConfigError, MemoryEngineError
from memory_engine.stores import build_store
from memory_engine.stores.base import MemoryStore
from memory_engine.stores.transfer import DEFAULT_BATCH, copy_stores, store_settings

_err = Console(stderr=True)


class StoreKind(StrEnum):
    postgres = "postgres"
    qdrant = "qdrant"


def describe(settings: Settings) -> str:
    """Where a store lives, without secrets (URL credentials are never shown)."""
    if settings.storage.backend == "postgres":
        if settings.storage.database_url is None:
            return f"postgres embedded in {settings.storage.data_dir}"
        from psycopg.conninfo import conninfo_to_dict

        info = conninfo_to_dict(settings.storage.database_url.get_secret_value())
        return f"postgres {info.get('host', '')}:{info.get('port', '')}/{info.get('dbname', '')}"
    where = settings.storage.qdrant_url or settings.storage.qdrant_path
    return f"qdrant {where} (collections {settings.storage.qdrant_collection_prefix}_*)"


def _same_storage(a: Settings, b: Settings) -> bool:
    if a.storage.backend != b.storage.backend:
        return False
    if a.storage.backend == "postgres":
        url_a = a.storage.database_url.get_secret_value() if a.storage.database_url else None
        url_b = b.storage.database_url.get_secret_value() if b.storage.database_url else None
        return url_a == url_b and (
            url_a is not None or a.storage.data_dir.resolve() == b.storage.data_dir.resolve()
        )
    return (a.storage.qdrant_url, a.storage.qdrant_path, a.storage.qdrant_collection_prefix) == (
        b.storage.qdrant_url,
        b.storage.qdrant_path,
        b.storage.qdrant_collection_prefix,
    )


def _print_summary(report: dict[str, Any], out: Console) -> None:
    table = Table(title=f"{report['source_location']} -> {report['target_location']}")
    for col in ("tenant", "records", "copied", "unchanged", "events", "verified"):
        table.add_column(col)
    for tenant, entry in report["tenants"].items():
        c, v = entry["copy"], entry.get("verify")
        verdict = "skipped" if v is None else ("ok" if v["ok"] else "DIFFERENT")
        table.add_row(
            tenant,
            str(c["records"]),
            str(c["copied"]),
            str(c["unchanged"]),
            str(c["events_copied"]),
            verdict,
        )
    out.print(table)
    t = report["totals"]
    if not report["tenants"]:
        out.print("[yellow]warning:[/yellow] the source store holds no tenants; nothing copied")
    out.print(
        f"{t['copied']} records copied, {t['unchanged']} already there, "
        f"{t['records_per_s'] or '-'} records/s; verification "
        + ("passed" if report["ok"] else "FOUND DIFFERENCES (see --json)")
    )
    if report.get("legs"):
        legs = ", ".join(f"{leg} ({state})" for leg, state in report["legs"].items())
        out.print(f"dense legs copied: {legs}; {t.get('leg_vectors_copied', 0)} leg vectors")
        for leg in (leg for leg, state in report["legs"].items() if state == "filling"):
            out.print(
                f"[yellow]note:[/yellow] the target's {leg} leg is not searched until "
                f"`memory-engine reembed --leg {leg}` (pointed at the target) fills the "
                "memories still without its vector"
            )


@app.command("copy")
def copy_command(
    source_kind: Annotated[StoreKind, typer.Option("--from", help="Source store.")],
    target_kind: Annotated[StoreKind, typer.Option("--to", help="Target store.")],
    tenant: Annotated[
        list[str] | None,
        typer.Option(
            help="Tenant to copy (repeatable); omit to copy every tenant. A tenant without "
            "memories in the source is an error (exit 2, nothing copied)."
        ),
    ] = None,
    from_url: Annotated[str | None, typer.Option(help="Source database or Qdrant URL.")] = None,
    from_path: Annotated[
        str | None,
        typer.Option(help="Source data folder (as MEMORY_DATA_DIR) or Qdrant local folder."),
    ] = None,
    to_url: Annotated[str | None, typer.Option(help="Target database or Qdrant URL.")] = None,
    to_path: Annotated[
        str | None,
        typer.Option(help="Target data folder (as MEMORY_DATA_DIR) or Qdrant local folder."),
    ] = None,
    batch: Annotated[int, typer.Option(min=1, max=10_000, help="Records per batch.")] = (
        DEFAULT_BATCH
    ),
    verify: Annotated[bool, typer.Option(help="Compare both stores after the copy.")] = True,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report.")] = False,
) -> None:
    """Copy memories (rows, vectors, terms, events) from one store to the other and verify.

    Exit status: 0 copied and verified; 1 the verification found differences; 2 an error,
    including a --tenant with no memories in the source (then nothing is copied).
    """
    stores: list[MemoryStore] = []
    try:
        try:
            base = Settings()
        except ValueError as exc:
            raise ConfigError(f"invalid MEMORY_* setting: {exc}") from exc
        logging.basicConfig(level=base.log_level.upper(), stream=sys.stderr)
        src = store_settings(base, source_kind.value, url=from_url, path=from_path)
        dst = store_settings(base, target_kind.value, url=to_url, path=to_path)
        if _same_storage(src, dst):
            raise ConfigError("source and target are the same store; set --to-url or --to-path")
        source = build_store(src)
        stores.append(source)
        target = build_store(dst)
        stores.append(target)
        with Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=_err,
        ) as progress:
            tasks: dict[tuple[str, str], Any] = {}

            def on_progress(tid: str, phase: str, done: int, total: int) -> None:
                key = (tid, phase)
                if key not in tasks:
                    tasks[key] = progress.add_task(f"{phase} {tid}", total=total)
                progress.update(tasks[key], completed=done, total=total)

            report = copy_stores(
                source, target, tenants=tenant, batch=batch, verify=verify, progress=on_progress
            )
        report["source_location"], report["target_location"] = describe(src), describe(dst)
    except MemoryEngineError as exc:
        if as_json:
            print(json.dumps(exc.to_dict(), ensure_ascii=False), file=sys.stderr)
        else:
            _err.print(f"[red]error:[/red] {exc.message}")
        raise typer.Exit(2) from exc
    finally:
        for store in stores:
            store.close()
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
    else:
        _print_summary(report, Console())
    if not report["ok"]:
        raise typer.Exit(1)
