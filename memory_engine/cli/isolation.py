"""``memory-engine isolation-check``: the cross-tenant isolation check on the configured store.

The check (:mod:`memory_engine.isolation.check`) probes the engine itself and every frontend whose
prober this command passes: the CLI's own commands, the MCP server and the dashboard reads, each
prober supplied by its frontend. This module is where the CLI meets the other frontends' probers;
the contract in ``.importlinter`` names these two imports as its only exceptions besides the
``mcp`` command, which starts the MCP server.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from memory_engine.cli.common import advance, app, fail, open_engine, out, progress, run
from memory_engine.cli.isolation_probe import CliProber
from memory_engine.cli.reports import print_isolation
from memory_engine.engine import MemoryEngine
from memory_engine.errors import InvalidInputError
from memory_engine.isolation.check import run_isolation_check
from memory_engine.isolation.probe import Prober


def frontend_probers(engine: MemoryEngine) -> list[Prober]:
    """The probers of the CLI, the MCP server and the dashboard, built on ``engine``.

    Imported here, not at the top: the MCP SDK costs ~0.5 s to import, which every other
    command would pay at start.
    """
    from memory_engine.dashboard.isolation_probe import DashboardProber
    from memory_engine.mcp_server.isolation_probe import McpProber

    return [CliProber(engine), McpProber(engine), DashboardProber(engine)]


@app.command("isolation-check")
def isolation_check(
    tenants: Annotated[int, typer.Option(help="Probe tenants to plant (2-20).")] = 3,
    keep: Annotated[bool, typer.Option(help="Keep the probe tenants' memories.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the report as JSON.")] = False,
) -> None:
    """Plant canaries in fresh tenants and probe every path across them; exit 1 on any leak."""
    if not 2 <= tenants <= 20:  # refused before the store opens
        fail(InvalidInputError("--tenants must be in 2..20", tenants=tenants), as_json)

    def work() -> dict[str, Any]:
        engine = open_engine()
        try:
            with progress() as bar:
                task = bar.add_task("cross-tenant probes", total=tenants * (tenants - 1))
                report = run_isolation_check(
                    engine,
                    tenants=tenants,
                    cleanup=not keep,
                    on_progress=lambda done, _total: advance(bar, task, done),
                    probers=frontend_probers(engine),
                )
            return report.to_dict()
        finally:
            engine.close()

    data = run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
    else:
        print_isolation(out, data)
    if not data["ok"]:
        raise typer.Exit(1)
