"""MCP ``memory_search`` with ``explain=true``, with the SDK's own client over stdio: each
memory carries its score waterfall (every leg by name, the fusion actually used, the session,
weighting, threshold and final stages with the rank after each), and ``explain`` carries the
near misses with the rule that cut each and a stale-fact warning when an older fact about an
entity outranks a newer one. The client validates every result against the tool's
``outputSchema``, so the schema is exercised too."""

from __future__ import annotations

from pathlib import Path

import anyio

from tests.conftest import new_tenant_id
from tests.mcp_server.helpers import stdio_client, structured

FACTS = [
    ("Priya lives in Paris and works at ACME.", "2023-01-01T00:00:00Z"),
    ("Priya moved to Berlin last month.", "2024-05-01T00:00:00Z"),
]
FILLER = [f"The team lunch number {i} was at a pizza place in Paris." for i in range(4)]


def test_search_explain_returns_the_waterfall_near_misses_and_stale_facts(
    mcp_db_url: str, tmp_path: Path
) -> None:
    tenant = new_tenant_id("mcpx")

    async def main() -> None:
        with (tmp_path / "stderr.log").open("w") as errlog:
            async with stdio_client(mcp_db_url, tenant, errlog, tmp_path) as client:
                ids = []
                for content, at in FACTS:
                    w = structured(
                        await client.call_tool(
                            "memory_write",
                            {
                                "content": content,
                                "memory_type": "semantic",
                                "entities": ["Priya"],
                                "observed_at": at,
                            },
                        )
                    )
                    ids.append(w["stored"][0]["memory_id"])
                for content in FILLER:
                    await client.call_tool("memory_write", {"content": content})
                query = {"query": "where does Priya live Paris", "k": 2}
                plain = structured(await client.call_tool("memory_search", query))
                assert "explain" not in plain
                assert all("waterfall" not in m for m in plain["memories"])

                found = structured(
                    await client.call_tool("memory_search", {**query, "explain": True})
                )
                first = found["memories"][0]
                stages = [s["stage"] for s in first["waterfall"]]
                assert stages[:2] == ["leg", "leg"] and stages[-1] == "final"
                assert {"fuse", "type_weight", "retention", "threshold"} <= set(stages)
                legs = {s["name"]: s for s in first["waterfall"] if s["stage"] == "leg"}
                # the multilingual leg (dense_ml) runs beside them by default
                assert {"dense", "keyword"} <= set(legs) <= {"dense", "dense_ml", "keyword"}
                assert legs["dense"]["score"] == "cosine" and legs["keyword"]["score"] == "bm25"
                assert legs["dense"]["normalised"] is not None  # z-score over the pool
                fuse = next(s for s in first["waterfall"] if s["stage"] == "fuse")
                assert fuse["name"] == found["explain"]["fusion"] == "zscore"
                final = first["waterfall"][-1]
                assert final["rank"] == first["rank"] == 1
                assert final["value"] == first["scores"]["final"]

                explain = found["explain"]
                assert explain["deciding_score"] == "final"
                misses = explain["near_misses"]
                assert misses and misses[0]["rule"] == "k" and misses[0]["needs"] == {"k": 3}
                assert explain["used_tokens"] > 0
                assert [s["stage"] for s in explain["stages"]][-1] == "block"
                (stale,) = explain["stale_facts"]
                assert stale["kind"] == "same_entity" and stale["entity"] == "Priya"
                assert (stale["older_id"], stale["current_id"]) == (ids[0], ids[1])
                assert stale["older_score"] > stale["current_score"]

    anyio.run(main)
