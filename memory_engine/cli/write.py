"""CLI commands of the write pipeline: ``memory-engine consolidate``."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer

from memory_engine.cli.common import app, open_engine, out, run
from memory_engine.models import Scope


@app.command()
def consolidate(
    tenant: Annotated[str, typer.Option(help="Tenant id.")],
    user: Annotated[str | None, typer.Option(help="User id narrowing the scope.")] = None,
    similarity: Annotated[
        float, typer.Option(help="Cosine from which two memories are near-duplicates.")
    ] = 0.9,
    dry_run: Annotated[bool, typer.Option(help="Show the clusters, change nothing.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the JSON report.")] = False,
) -> None:
    """Merge clusters of near-duplicate memories into one (provenance kept, version-checked)."""

    def work() -> dict[str, Any]:
        engine = open_engine()
        try:
            report = engine.consolidate(
                Scope.of(tenant, user_id=user), similarity=similarity, dry_run=dry_run
            )
        finally:
            engine.close()
        return report.model_dump(mode="json")

    report = run(work, as_json)
    if as_json:
        print(json.dumps(report, ensure_ascii=False))
        return
    verb = "would merge" if dry_run else "merged"
    out.print(
        f"{tenant}: scanned {report['scanned']}, {len(report['clusters'])} cluster(s), "
        f"{verb} {report['merged']} memories, {len(report['conflicts'])} changed meanwhile"
    )
    for c in report["clusters"][:20]:
        out.print(f"  {len(c['members'])} -> {c['merged']}")
