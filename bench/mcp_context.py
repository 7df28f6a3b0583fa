"""MCP tool-call latency (stdio and streamable HTTP) and context-assembly time.

Usage::

    python bench/mcp_context.py [--calls 30] [--turns 200]

Starts an embedded PostgreSQL in a temp folder (or uses ``MEMORY_DATABASE_URL``), then:

* ``mcp_stdio`` / ``mcp_http``: spawns ``memory-engine mcp`` (stdio, then http on a free port
  with a bearer token), connects the SDK's own client and times ``--calls`` ``memory_write``
  and ``memory_search`` calls each (client-side round trip, ms; the first call of each tool
  warms up and is not counted);
* ``context``: one session of ``--turns`` rounds in working memory (in-process) and a tenant of
  50 memories; times ``engine.context`` (search + working memory + assembly, ms) over 10 runs
  and ``add_turn`` per message; ``search_part`` and ``working_view_part`` time its two parts
  (long-term search incl. query embedding; the working-memory view) on their own.

Prints one JSON object (p50/p95 in ms). Timings are measured here, never asserted in tests.
"""

from __future__ import annotations

import argparse
import json
import os
import secrets
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def _pct(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    p95 = ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]
    return {
        "p50_ms": round(statistics.median(ordered), 2),
        "p95_ms": round(p95, 2),
        "n": len(values),
    }


async def _time_calls(client: Any, calls: int, tag: str) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for tool, make in (
        (
            "memory_write",
            lambda i: {"content": f"Benchmark fact {tag} number {i}: user likes {i} cats"},
        ),
        ("memory_search", lambda i: {"query": f"how many cats {i}", "k": 5}),
    ):
        await client.call_tool(tool, make(-1))  # warm-up (model load, connections)
        times = []
        for i in range(calls):
            t0 = time.perf_counter()
            res = await client.call_tool(tool, make(i))
            times.append((time.perf_counter() - t0) * 1000)
            assert not res.is_error, res.content
        out[tool] = _pct(times)
    return out


def _env(db_url: str, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(PYTHONPATH=str(ROOT), MEMORY_DATABASE_URL=db_url, **extra)
    return env


def bench_stdio(db_url: str, calls: int, workdir: Path) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    tenant = f"bench-stdio-{uuid.uuid4().hex[:8]}"
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "memory_engine.cli", "mcp", "--transport", "stdio", "--tenant", tenant],
        env=_env(db_url),
        cwd=workdir,  # not /tmp: `python -m` puts the cwd first on sys.path
    )

    async def main() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=300) as client:
            return await _time_calls(client, calls, "stdio")

    return anyio.run(main)


def bench_http(db_url: str, calls: int, workdir: Path) -> dict[str, Any]:
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    token = secrets.token_urlsafe(24)
    tokens = json.dumps({token: {"tenant": f"bench-http-{uuid.uuid4().hex[:8]}"}})
    err_path = workdir / "mcp-http.stderr"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memory_engine.cli",
                "mcp",
                "--transport",
                "http",
                "--port",
                "0",
            ],
            env=_env(db_url, MEMORY_MCP_TOKENS=tokens),
            cwd=workdir,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    try:
        url = None
        deadline = time.monotonic() + 120
        while url is None and time.monotonic() < deadline and proc.poll() is None:
            for line in err_path.read_text(errors="replace").splitlines():
                if line.startswith("listening on "):
                    url = line.removeprefix("listening on ").strip()
            time.sleep(0.1)
        if url is None:
            raise RuntimeError(f"http server did not start: {err_path.read_text()[-2000:]}")
        time.sleep(1.0)  # uvicorn accepts once the socket is served

        async def main() -> dict[str, Any]:
            http = create_mcp_http_client(headers={"Authorization": f"Bearer {token}"})
            async with Client(
                streamable_http_client(str(url), http_client=http), read_timeout_seconds=300
            ) as client:
                return await _time_calls(client, calls, "http")

        return anyio.run(main)
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def bench_context(db_url: str, turns: int) -> dict[str, Any]:
    from pydantic import SecretStr

    from memory_engine import MemoryEngine, Scope, WriteRequest
    from memory_engine.config import Settings

    settings = Settings(_env_file=None, database_url=SecretStr(db_url))  # type: ignore[call-arg]
    with MemoryEngine(settings) as engine:
        scope = Scope.of(f"bench-ctx-{uuid.uuid4().hex[:8]}")
        engine.write_many(
            scope,
            [WriteRequest(text=f"Fact {i}: the user owns {i} plants") for i in range(50)],
        )
        add_times = []
        for i in range(turns):
            for role, text in (
                (
                    "user",
                    f"Round {i}: how often should I water plant number {i}? " + "more " * (i % 9),
                ),
                ("assistant", f"Round {i}: water plant {i} twice a week. 每周浇水两次。"),
            ):
                t0 = time.perf_counter()
                engine.add_turn(scope, "bench", role, text)  # type: ignore[arg-type]
                add_times.append((time.perf_counter() - t0) * 1000)
        engine.context(scope, "bench", "how many plants do I own?")  # warm-up
        ctx_times = []
        res = None
        for _ in range(10):
            t0 = time.perf_counter()
            res = engine.context(scope, "bench", "how many plants do I own?")
            ctx_times.append((time.perf_counter() - t0) * 1000)
        assert res is not None
        search_times, view_times = [], []
        for _ in range(10):  # the parts: long-term search (embeds the query) and working memory
            t0 = time.perf_counter()
            engine.search(scope, "how many plants do I own?", save_trace=False)
            search_times.append((time.perf_counter() - t0) * 1000)
            t0 = time.perf_counter()
            engine.working_memory.view(scope.tenant_id, "bench")
            view_times.append((time.perf_counter() - t0) * 1000)
        return {
            "turns": turns,
            "context": _pct(ctx_times),
            "search_part": _pct(search_times),
            "working_view_part": _pct(view_times),
            "add_turn": _pct(add_times),
            "total_tokens": res.total_tokens,
            "budget_tokens": res.budget_tokens,
            "sections": {s.name: s.tokens for s in res.sections},
            "summarized_rounds": res.summarized_rounds,
            "history_tokens": res.history_tokens,
        }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=30)
    parser.add_argument("--turns", type=int, default=200)
    args = parser.parse_args()
    workdir = Path(tempfile.mkdtemp(prefix="mcp-bench-"))
    data_dir = None
    db_url = os.environ.get("MEMORY_DATABASE_URL")
    try:
        if not db_url:
            from memory_engine.stores.postgres.embedded import embedded_url, start_embedded_server

            data_dir = workdir / "pg"
            db_url = embedded_url(start_embedded_server(data_dir))
        out: dict[str, Any] = {
            "mcp_stdio": bench_stdio(db_url, args.calls, workdir),
            "mcp_http": bench_http(db_url, args.calls, workdir),
            "context": bench_context(db_url, args.turns),
        }
        print(json.dumps(out, ensure_ascii=False))
    finally:
        if data_dir is not None:
            from memory_engine.stores.postgres.embedded import stop_embedded_server

            stop_embedded_server(data_dir)
        shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    main()
