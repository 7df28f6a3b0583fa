"""Human output of ``memory-engine isolation-check`` (``--json`` prints the raw report).

``data`` is :meth:`memory_engine.isolation.check.IsolationReport.to_dict`: a verdict line, one row per
path (engine, cli, mcp, dashboard) with its probes and leaks, then every leak and error
(bounded: the JSON report holds them all).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.table import Table

__all__ = ["MAX_DETAIL_ROWS", "print_isolation"]

#: Most leaks or errors listed; the rest are counted (``--json`` lists every one).
MAX_DETAIL_ROWS = 20


def print_isolation(console: Console, data: Mapping[str, Any]) -> None:
    """Print an isolation report (see the module docstring) on ``console``."""
    verdict = "[green]no leak[/green]" if data.get("ok") else "[bold red]LEAKS FOUND[/bold red]"
    console.print(
        f"Isolation check {escape(str(data.get('run_id', '')))}: {verdict} - "
        f"{data.get('probes', 0)} probes, {data.get('leaks', 0)} leaks, "
        f"{len(data.get('tenants', []))} tenants, {data.get('memories_planted', 0)} canaries, "
        f"{data.get('duration_s', 0)} s"
    )
    table = Table()
    for col, justify in (("path", "left"), ("probes", "right"), ("leaks", "right")):
        table.add_column(col, justify=justify)  # type: ignore[arg-type]
    for path, entry in data.get("paths", {}).items():
        leaks = int(entry.get("leaks", 0))
        table.add_row(
            path, str(entry.get("probes", 0)), f"[red]{leaks}[/red]" if leaks else str(leaks)
        )
    console.print(table)
    _details(console, "Leaks", [_leak(x) for x in data.get("leak_details", [])])
    _details(console, "Errors", [escape(str(e)) for e in data.get("errors", [])])
    if not data.get("cleaned_up", True):
        console.print("Canary memories were kept (--keep).")


def _leak(x: Mapping[str, Any]) -> str:
    return escape(
        f"{x.get('path')}: {x.get('from_tenant')} -> {x.get('target_tenant')}: {x.get('detail')}"
    )


def _details(console: Console, title: str, lines: list[str]) -> None:
    if not lines:
        return
    console.print(f"{title} ({len(lines)}):")
    for line in lines[:MAX_DETAIL_ROWS]:
        console.print(f"  - {line}")
    if len(lines) > MAX_DETAIL_ROWS:
        console.print(f"  … truncated: {len(lines) - MAX_DETAIL_ROWS} more (see --json)")
