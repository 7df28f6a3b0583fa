"""``memory-engine entities``: the entities one tenant's memories name, most linked first.

Human output is a table (name, key, kind, memories); ``--json`` prints
``{"tenant", "entities": [Entity as JSON, ...], "truncated"}``.
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from memory_engine.cli.common import app, open_engine, out, run
from memory_engine.models import Scope

__all__ = ["entities"]


@app.command()
def entities(
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    limit: Annotated[int, typer.Option(help="Most entities listed (most linked first).")] = 50,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
) -> None:
    """Entities of a tenant with the number of memories linked to each (--json for JSON)."""

    def work() -> dict[str, Any]:
        engine = open_engine()
        try:
            page = engine.list_entities(Scope.of(tenant), limit=limit)
        finally:
            engine.close()
        return {
            "tenant": tenant,
            "entities": [e.model_dump(mode="json") for e in page.items],
            "truncated": page.truncated,
        }

    data = run(work, as_json)
    if as_json:
        print(json.dumps(data, ensure_ascii=False))
        return
    out.print(f"Entities of tenant {escape(tenant)}: {len(data['entities'])}")
    table = Table()
    for column in ("name", "key", "kind"):
        table.add_column(column)
    table.add_column("memories", justify="right")
    for e in data["entities"]:
        table.add_row(
            escape(e["name"]), escape(e["key"]), escape(e["kind"] or ""), str(e["memory_count"])
        )
    out.print(table)
    if data["truncated"]:
        out.print(f"truncated: more entities than --limit {limit}")
