"""``memory-engine stats`` and its human output: rich tables (``--json`` prints the raw data).

Two shapes of ``data``: one tenant's :class:`~memory_engine.stores.base.StoreStats` dumped as
JSON (``total``, ``by_type``, ``by_status``, ``by_source``, ``writes_per_day``), or
``{"tenants": {tenant_id: count}}`` across tenants.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from memory_engine.cli.common import app, open_engine, out, run
from memory_engine.models import Scope

__all__ = ["MAX_DAY_ROWS", "MAX_TENANT_ROWS", "print_stats", "stats"]

#: Most tenants listed in the cross-tenant table (largest first); the rest are counted.
MAX_TENANT_ROWS = 50
#: Most days with writes listed (newest); the period total always covers every day.
MAX_DAY_ROWS = 14


def print_stats(console: Console, data: Mapping[str, Any], *, tenant: str | None) -> None:
    """Print ``data`` (see the module docstring) as tables on ``console``."""
    if tenant is None:
        _print_tenants(console, data.get("tenants", {}))
    else:
        _print_tenant(console, tenant, data)


def _print_tenants(console: Console, counts: Mapping[str, int]) -> None:
    ranked = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    console.print(f"Memories per tenant ({len(ranked)} tenants)")
    table = Table()
    table.add_column("tenant")
    table.add_column("memories", justify="right")
    for name, count in ranked[:MAX_TENANT_ROWS]:
        table.add_row(name, str(count))
    console.print(table)
    console.print(f"total: {sum(counts.values())} memories")
    if len(ranked) > MAX_TENANT_ROWS:
        console.print(
            f"truncated: {len(ranked) - MAX_TENANT_ROWS} more tenants not shown (use --json)"
        )


def _print_tenant(console: Console, tenant: str, data: Mapping[str, Any]) -> None:
    console.print(f"Memories of tenant {tenant}: {data.get('total', 0)}")
    table = Table()
    table.add_column("facet")
    table.add_column("value")
    table.add_column("memories", justify="right")
    for facet in ("type", "status", "source"):
        values: Mapping[str, int] = data.get(f"by_{facet}", {})
        for value, count in sorted(values.items(), key=lambda kv: (-kv[1], kv[0])):
            table.add_row(facet, value, str(count))
        table.add_section()
    console.print(table)
    series = [(day, int(n)) for day, n in data.get("writes_per_day", [])]
    busy = [(day, n) for day, n in series if n]
    console.print(f"writes in the last {len(series)} days (UTC): {sum(n for _, n in busy)}")
    if busy:
        console.print("Days with writes (newest first)")
        days = Table()
        days.add_column("day (UTC)")
        days.add_column("writes", justify="right")
        for day, n in reversed(busy[-MAX_DAY_ROWS:]):
            days.add_row(day, str(n))
        console.print(days)
        if len(busy) > MAX_DAY_ROWS:
            console.print(f"truncated: {len(busy) - MAX_DAY_ROWS} older days not shown")


@app.command()
def stats(
    tenant: Annotated[
        str | None, typer.Option(help="Tenant id; omit for counts per tenant (audited admin path).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Counts per tenant, or by type/status/source for one tenant (tables; --json for JSON)."""

    def work() -> dict[str, Any]:
        engine = open_engine()
        try:
            if tenant:
                return engine.stats(Scope.of(tenant)).model_dump(mode="json")
            return {"tenants": engine.tenant_counts(actor="cli", reason="memory-engine stats")}
        finally:
            engine.close()

    data = run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print_stats(out, data, tenant=tenant)
