"""Concurrent MCP clients over streamable HTTP: latency per tool, throughput, errors, lost writes.

    python bench/mcp_load.py [--clients 20] [--tenants 2] [--duration 60] [--interval 1.0]
        [--write-share 0.5] [--embedder minilm] [--server-root PATH]

Starts the real server (``python -m memory_engine.cli mcp --transport http --port 0``) as a
subprocess on a fresh data folder (embedded PostgreSQL), with one bearer token per client
(``MEMORY_MCP_TOKENS_FILE``; clients ``i`` and ``i + tenants`` share tenant ``i % tenants``), and
runs ``--clients`` official SDK clients (``mcp.Client`` over ``streamable_http_client``) in one
event loop. Each client, for ``--duration`` seconds, calls ``memory_write`` (a unique English or
Chinese sentence, raw mode) with probability ``--write-share``, else ``memory_search`` (k=10);
a client starts a call every ``--interval`` seconds (right away when the previous call took
longer; ``--interval 0`` = back to back, a closed loop). The server's per-token rate limits
(``MEMORY_MCP_WRITE_RATE_PER_TOKEN`` / ``MEMORY_MCP_READ_RATE_PER_TOKEN``) are set to
``--rate-limit`` for the run (default 1000/s, so they never refuse a call of the bench) and
reported in the output.

Afterwards every acknowledged ``created`` memory id is read back from the store in-process
(``MemoryStore.get`` in the writer's tenant): ``lost_writes`` counts the ones missing.

``--server-root`` runs the server from another checkout (its folder goes first on the server's
PYTHONPATH), to measure another version's server with the same clients.

Prints one JSON object: per tool ``calls``, ``p50_ms``, ``p95_ms``, ``max_ms``; ``requests_per_s``
(all calls / seconds); ``errors`` (isError results, protocol errors and exceptions, by kind);
``acknowledged_writes`` and ``lost_writes``.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import secrets
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

SUBJECTS_EN = ["tea", "the Lisbon trip", "Rust", "my sister", "the quarterly report", "jazz"]
SUBJECTS_ZH = ["绿茶", "去杭州的旅行", "周报", "我妹妹", "数据库迁移", "爵士乐"]
QUERIES = [
    "what does the user like to drink?",
    "travel plans",
    "which programming language?",
    "用户喜欢喝什么？",
    "旅行计划是什么",
    "family members",
    "report deadline",
    "音乐爱好",
]


def percentile(values: list[float], q: float) -> float:
    """Nearest-rank percentile ``q`` (0-100) of ``values``; 0.0 when empty."""
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q / 100 * (len(ordered) - 1))))]


def write_text(client: int, n: int) -> str:
    """A unique sentence of client ``client``'s ``n``-th write (every other one Chinese)."""
    if n % 2:
        return f"客户{client}的第{n}条笔记：我最近在研究{SUBJECTS_ZH[n % len(SUBJECTS_ZH)]}。"
    return f"Client {client} note {n}: I have been looking into {SUBJECTS_EN[n % 6]} lately."


def start_server(
    data_dir: Path, tokens: dict[str, Any], server_root: Path, embedder: str, rate: float
) -> tuple[subprocess.Popen[bytes], str, Path]:
    """Start the http server subprocess; returns (process, url, stderr path).

    Raises:
        RuntimeError: the server did not log its address within 120 s.
    """
    tokens_path = data_dir / "tokens.json"
    tokens_path.write_text(json.dumps(tokens), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        PYTHONPATH=str(server_root),
        PYTHONUNBUFFERED="1",
        MEMORY_DATA_DIR=str(data_dir / "data"),
        MEMORY_MCP_TOKENS_FILE=str(tokens_path),
        MEMORY_EMBEDDER=embedder,
        MEMORY_MCP_WRITE_RATE_PER_TOKEN=str(rate),
        MEMORY_MCP_READ_RATE_PER_TOKEN=str(rate),
        MEMORY_WRITE_RATE_PER_SESSION=str(rate),
        MEMORY_LOG_LEVEL="WARNING",
    )
    err_path = data_dir / "server.stderr"
    with err_path.open("wb") as err:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "memory_engine.cli",
                "mcp",
                "--transport",
                "http",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
            ],
            env=env,
            cwd=data_dir,
            stdout=subprocess.DEVNULL,
            stderr=err,
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        for line in err_path.read_text(encoding="utf-8", errors="replace").splitlines():
            if line.startswith("listening on "):
                return proc, line.removeprefix("listening on ").strip(), err_path
        if proc.poll() is not None:
            break
        time.sleep(0.2)
    proc.kill()
    raise RuntimeError(f"server did not start: {err_path.read_text(errors='replace')[-2000:]}")


async def client_loop(
    url: str,
    token: str,
    index: int,
    args: argparse.Namespace,
    ready: asyncio.Barrier,
    latencies: dict[str, list[float]],
    errors: Counter[str],
    acknowledged: list[tuple[int, str]],
) -> None:
    """One SDK client: calls until ``start_at + duration`` (monotonic clock)."""
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.shared._httpx_utils import create_mcp_http_client

    rng = random.Random(index)
    headers = {"Authorization": f"Bearer {token}"}
    transport = streamable_http_client(url, http_client=create_mcp_http_client(headers=headers))
    async with Client(transport, read_timeout_seconds=120) as client:
        try:
            await client.list_tools()
            await client.call_tool("memory_search", {"query": "warm up", "k": 1})  # unmeasured
        finally:
            await ready.wait()  # every client connected and warm before the clock starts
        stop = time.monotonic() + args.duration
        n = 0
        next_call = time.monotonic() + rng.random() * args.interval  # spread the clients
        while True:
            await asyncio.sleep(max(0.0, next_call - time.monotonic()))
            if time.monotonic() >= stop:
                break
            next_call = time.monotonic() + args.interval
            write = rng.random() < args.write_share
            tool = "memory_write" if write else "memory_search"
            arguments: dict[str, Any] = (
                {"content": write_text(index, n)}
                if write
                else {"query": rng.choice(QUERIES), "k": 10}
            )
            n += 1
            t0 = time.perf_counter()
            try:
                result = await client.call_tool(tool, arguments)
            except Exception as exc:  # protocol error, HTTP 429, connection lost
                errors[f"{tool}:{type(exc).__name__}"] += 1
                continue
            latencies[tool].append((time.perf_counter() - t0) * 1000)
            if result.is_error:
                code = (result.structured_content or {}).get("error", "unknown")
                errors[f"{tool}:{code}"] += 1
                continue
            if write:
                for item in (result.structured_content or {}).get("stored", []):
                    if item.get("status") == "created":
                        acknowledged.append((index, str(item["memory_id"])))


def lost_writes(
    data_dir: Path, tenants: dict[int, str], acknowledged: list[tuple[int, str]]
) -> int:
    """How many acknowledged ids are not readable in their writer's tenant."""
    from memory_engine import Scope, Settings
    from memory_engine.errors import MemoryNotFoundError
    from memory_engine.stores import build_store
    from memory_engine.stores.postgres.embedded import stop_embedded_server

    settings = Settings(_env_file=None, data_dir=data_dir / "data")  # type: ignore[call-arg]
    store = build_store(settings)
    missing = 0
    try:
        for client, mid in acknowledged:
            try:
                store.get(uuid.UUID(mid), scope=Scope.of(tenants[client]))
            except MemoryNotFoundError:
                missing += 1
    finally:
        store.close()
        stop_embedded_server(data_dir / "data")
    return missing


async def run_clients(url: str, tokens: list[str], args: argparse.Namespace) -> dict[str, Any]:
    latencies: dict[str, list[float]] = {"memory_write": [], "memory_search": []}
    errors: Counter[str] = Counter()
    acknowledged: list[tuple[int, str]] = []
    ready = asyncio.Barrier(len(tokens) + 1)
    tasks = [
        asyncio.create_task(client_loop(url, tok, i, args, ready, latencies, errors, acknowledged))
        for i, tok in enumerate(tokens)
    ]
    await ready.wait()
    t0 = time.perf_counter()
    await asyncio.gather(*tasks)
    seconds = time.perf_counter() - t0
    calls = sum(len(v) for v in latencies.values()) + sum(errors.values())
    return {
        "tools": {
            tool: {
                "calls": len(v),
                "p50_ms": round(percentile(v, 50), 1),
                "p95_ms": round(percentile(v, 95), 1),
                "max_ms": round(max(v), 1) if v else 0.0,
            }
            for tool, v in latencies.items()
        },
        "seconds": round(seconds, 1),
        "requests_per_s": round(calls / seconds, 1),
        "errors": sum(errors.values()),
        "errors_by_kind": dict(errors),
        "acknowledged": acknowledged,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--clients", type=int, default=20)
    ap.add_argument("--tenants", type=int, default=2)
    ap.add_argument("--duration", type=float, default=60.0, help="seconds of load")
    ap.add_argument(
        "--interval",
        type=float,
        default=1.0,
        help="seconds between a client's call starts (0 = back to back)",
    )
    ap.add_argument("--write-share", type=float, default=0.5)
    ap.add_argument("--embedder", default="minilm", choices=("minilm", "use_m3"))
    ap.add_argument(
        "--rate-limit",
        type=float,
        default=1000.0,
        help="per-token read and write rate limits of the server for this run",
    )
    ap.add_argument(
        "--server-root",
        type=Path,
        default=ROOT,
        help="checkout the server runs from (default: this one)",
    )
    args = ap.parse_args()

    base = Path(tempfile.mkdtemp(prefix="mcp-load-"))
    client_tenant = {i: f"load-tenant-{i % args.tenants}" for i in range(args.clients)}
    tokens = [secrets.token_urlsafe(24) for _ in range(args.clients)]
    token_map = {tok: {"tenant": client_tenant[i]} for i, tok in enumerate(tokens)}
    proc, url, err_path = start_server(
        base, token_map, args.server_root.resolve(), args.embedder, args.rate_limit
    )
    try:
        measured = asyncio.run(run_clients(url, tokens, args))
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    acknowledged = measured.pop("acknowledged")
    out = {
        "clients": args.clients,
        "tenants": args.tenants,
        "duration_s": args.duration,
        "interval_s": args.interval,
        "write_share": args.write_share,
        "embedder": args.embedder,
        "server_root": str(args.server_root.resolve()),
        "rate_limits_per_token": {"read": args.rate_limit, "write": args.rate_limit},
        **measured,
        "acknowledged_writes": len(acknowledged),
        "lost_writes": lost_writes(base, client_tenant, acknowledged),
    }
    shutil.rmtree(base, ignore_errors=True)
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main()
