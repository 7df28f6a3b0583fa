"""MCP fixtures: the real server as a subprocess (``python -m memory_engine.cli mcp``) on its own
embedded-PostgreSQL database, reached with the SDK's own client over stdio or streamable HTTP."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def mcp_db_url(make_pg_database: Callable[[str], str]) -> str:
    """Owner URL of one database shared by every MCP server of the session."""
    return make_pg_database("mcp")


def server_env(db_url: str, **extra: str) -> dict[str, str]:
    """Environment of a server subprocess: this checkout first, the test database, no .env."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")}
    env.update(
        PYTHONPATH=str(REPO),
        MEMORY_DATABASE_URL=db_url,
        MEMORY_STORE="postgres",
        PYTHONUNBUFFERED="1",
    )
    env.update(extra)
    return env


def server_cmd(transport: str, *args: str) -> list[str]:
    return [sys.executable, "-m", "memory_engine.cli", "mcp", "--transport", transport, *args]


class HttpServer:
    """A running ``memory-engine mcp --transport http --port 0`` subprocess."""

    def __init__(self, proc: subprocess.Popen[bytes], url: str, stderr_path: Path) -> None:
        self.proc = proc
        self.url = url
        self.stderr_path = stderr_path

    def stderr(self) -> str:
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


@pytest.fixture
def start_http_server(tmp_path: Path, mcp_db_url: str) -> Iterator[Callable[..., HttpServer]]:
    """Factory: ``start_http_server(tokens=None, tenant=None, host="127.0.0.1", **env)`` -> a
    started ``HttpServer`` on a free port of ``host`` (the server binds port 0 and logs the
    address), with extra ``MEMORY_*`` environment ``env``; stopped after the test."""
    started: list[HttpServer] = []

    def start(
        tokens: dict[str, Any] | None = None,
        tenant: str | None = None,
        host: str = "127.0.0.1",
        **env: str,
    ) -> HttpServer:
        extra: dict[str, str] = dict(env)
        if tokens is not None:
            path = tmp_path / f"tokens-{len(started)}.json"
            path.write_text(json.dumps(tokens), encoding="utf-8")
            extra["MEMORY_MCP_TOKENS_FILE"] = str(path)
        if tenant is not None:
            extra["MEMORY_MCP_TENANT"] = tenant
        err_path = tmp_path / f"http-{len(started)}.stderr"
        with err_path.open("wb") as err:
            proc = subprocess.Popen(
                server_cmd("http", "--host", host, "--port", "0"),
                env=server_env(mcp_db_url, **extra),
                cwd=tmp_path,
                stdout=subprocess.DEVNULL,
                stderr=err,
            )
        deadline = time.monotonic() + 60
        url = None
        while time.monotonic() < deadline and url is None:
            for line in err_path.read_text(encoding="utf-8", errors="replace").splitlines():
                if line.startswith("listening on "):
                    url = line.removeprefix("listening on ").strip()
            if proc.poll() is not None:
                break
            time.sleep(0.1)
        if url is None:
            proc.kill()
            raise AssertionError(f"MCP http server did not start: {err_path.read_text()}")
        server = HttpServer(proc, url, err_path)
        started.append(server)
        _wait_http(url)
        return server

    yield start
    for s in started:
        s.proc.terminate()
        try:
            s.proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            s.proc.kill()
            s.proc.wait()


def _wait_http(url: str, timeout: float = 30) -> None:
    """Wait until uvicorn answers on ``url`` (any HTTP status)."""
    import urllib.error
    import urllib.request

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(url, timeout=2)
            return
        except urllib.error.HTTPError:
            return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{url} did not answer")
