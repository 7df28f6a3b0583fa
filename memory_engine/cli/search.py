"""``memory-engine search``: the memory block (or memories, block, trace and explanation as JSON).

``--json`` prints ``memories`` (each with ``scores``, ``ranks`` and its ``waterfall``: the
score and rank after each stage, ``retrieval.waterfall``), ``block``, ``trace`` and
``explain`` (``retrieval.accounting.SearchExplanation``: the waterfall of every candidate, the
block accounting with near misses, stale-fact warnings).
"""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from memory_engine.cli.common import app, open_engine, out, run
from memory_engine.models import Scope
from memory_engine.retrieval.accounting import explain_search


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
        engine = open_engine()
        # The model and tokenizers load while the store starts (a new process pays both).
        engine.warm_up(sample=query, background=True, searching=True)
        try:
            return engine.search(Scope.of(tenant, user_id=user), query, k=k)
        finally:
            engine.close()

    result = run(work, as_json)
    if as_json:
        explained = explain_search(result.trace).model_dump(mode="json")
        steps = {c["memory_id"]: c["steps"] for c in explained["waterfall"]["candidates"]}
        payload = {
            "memories": [
                {
                    **c.memory.public_dict(),
                    "scores": c.scores,
                    "ranks": c.ranks,
                    "waterfall": steps.get(str(c.memory.id), []),
                }
                for c in result.memories
            ],
            "block": result.block,
            "trace": result.trace.model_dump(mode="json"),
            "explain": explained,
        }
        print(json.dumps(payload, ensure_ascii=False))
        return
    table = Table(title=f"{len(result.memories)} memories · trace {result.trace.id}")
    fusion = next((s.split(":", 1)[1] for s in result.trace.stages if s.startswith("fuse:")), "")
    for col in ("#", "content", "cosine ↑", "bm25 ↑", f"fused ({fusion}) ↑", "final ↑"):
        table.add_column(col)
    for c in result.memories:
        table.add_row(
            str(c.ranks.get("final")),
            c.memory.content[:120],
            f"{c.scores['cosine']:.3f}" if "cosine" in c.scores else "",
            f"{c.scores['bm25']:.2f}" if "bm25" in c.scores else "",
            f"{c.scores['fused']:.4f}" if "fused" in c.scores else "",
            f"{c.scores['final']:.4f}" if "final" in c.scores else "",
        )
    out.print(table)
    print(result.block)  # the exact block, never re-wrapped by the terminal renderer
