"""Write journal: the durable write queue and the store of write trails (SQLite, stdlib).

Why SQLite in ``MEMORY_DATA_DIR`` rather than the store's database: both stores (PostgreSQL and
Qdrant local/server) get the same queue with no new store method, and an accepted write is on
disk (WAL, ``synchronous=FULL``) before ``write(..., wait=False)`` returns its id.

States: ``pending`` -> ``running`` -> ``done`` | ``skipped`` (not worth remembering) |
``failed`` (error kept with the raw input, retryable). A write refused by the tenant's PII
policy (``block``) is recorded as ``refused`` at once, with its input redacted and the error
(kinds, never values); it is never retried. A process killed while a write was
``running`` leaves it ``running``; ``recover()`` (run when a journal is opened) puts it back to
``pending``. Re-running a write is safe: inserts dedupe by content hash.

Every row belongs to one tenant; every read filters by tenant (and narrows by the scope's ids).

LLM usage: ``prompt_tokens``, ``completion_tokens``, ``llm_requests`` and ``cost`` (None when no
price is configured) of all the LLM requests a write made, set when it ends (``finish``); a
journal of an earlier version gets the columns when opened. ``usage_by_day`` sums them per UTC
day of ``created_at``.
"""

from __future__ import annotations

import builtins
import json
import sqlite3
import threading
import uuid
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from memory_engine.errors import MemoryNotFoundError
from memory_engine.models import Page, Scope, utcnow
from memory_engine.stores.common import decode_cursor, encode_cursor

_SCHEMA = """
CREATE TABLE IF NOT EXISTS writes (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT UNIQUE NOT NULL,
    tenant_id  TEXT NOT NULL,
    scope      TEXT NOT NULL,
    mode       TEXT NOT NULL,
    request    TEXT NOT NULL,
    actor      TEXT NOT NULL,
    input_hash TEXT NOT NULL,
    status     TEXT NOT NULL,
    attempts   INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL,
    result     TEXT,
    error      TEXT,
    trail      TEXT,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    llm_requests      INTEGER NOT NULL DEFAULT 0,
    cost              REAL
);
CREATE INDEX IF NOT EXISTS writes_status ON writes (status, seq);
CREATE INDEX IF NOT EXISTS writes_tenant ON writes (tenant_id, seq);
CREATE INDEX IF NOT EXISTS writes_hash ON writes (tenant_id, input_hash);
"""

STATUSES = ("pending", "running", "done", "skipped", "failed", "refused")

#: Rows of ``usage_by_day`` (named here: the class's ``list`` method hides the builtin in it).
UsageRows = list[dict[str, Any]]

#: Usage columns added after the first version, with their SQL type (added when missing).
_USAGE_COLUMNS = {
    "prompt_tokens": "INTEGER NOT NULL DEFAULT 0",
    "completion_tokens": "INTEGER NOT NULL DEFAULT 0",
    "llm_requests": "INTEGER NOT NULL DEFAULT 0",
    "cost": "REAL",
}


class WriteJournal:
    """SQLite journal at ``path`` (created with its folder). Thread-safe."""

    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._lock = threading.RLock()
        self._conn = sqlite3.connect(str(path), check_same_thread=False, isolation_level=None)
        self._conn.execute("PRAGMA journal_mode=WAL")
        self._conn.execute("PRAGMA synchronous=FULL")
        self._conn.execute("PRAGMA busy_timeout=10000")
        # erased inputs (``erase_memory``) are overwritten on disk, not left in free pages
        self._conn.execute("PRAGMA secure_delete=ON")
        self._conn.executescript(_SCHEMA)
        self._add_usage_columns()
        self.recover()

    def _add_usage_columns(self) -> None:
        """Give a journal of an earlier version the usage columns (idempotent)."""
        with self._lock:
            have = {row[1] for row in self._conn.execute("PRAGMA table_info(writes)")}
            for name, sql_type in _USAGE_COLUMNS.items():
                if name not in have:
                    self._conn.execute(f"ALTER TABLE writes ADD COLUMN {name} {sql_type}")

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                yield self._conn
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")

    def recover(self) -> int:
        """Put writes left ``running`` by a killed process back to ``pending``; returns count."""
        with self._tx() as c:
            return c.execute("UPDATE writes SET status='pending' WHERE status='running'").rowcount

    def accept(
        self, scope: Scope, mode: str, request: dict[str, Any], actor: str, input_hash: str
    ) -> str:
        """Record a write as ``pending`` (durable when this returns); returns its id."""
        return self._insert(scope, mode, request, actor, input_hash, "pending", None)

    def _insert(
        self,
        scope: Scope,
        mode: str,
        request: dict[str, Any],
        actor: str,
        input_hash: str,
        status: str,
        error: dict[str, Any] | None,
    ) -> str:
        write_id = str(uuid.uuid4())
        now = utcnow().isoformat()
        with self._tx() as c:
            c.execute(
                "INSERT INTO writes (id, tenant_id, scope, mode, request, actor, input_hash,"
                " status, created_at, updated_at, error) VALUES (?,?,?,?,?,?,?,?,?,?,?)",
                (
                    write_id,
                    scope.tenant_id,
                    scope.model_dump_json(),
                    mode,
                    json.dumps(request, ensure_ascii=False),
                    actor,
                    input_hash,
                    status,
                    now,
                    now,
                    json.dumps(error, ensure_ascii=False, default=str) if error else None,
                ),
            )
        return write_id

    def refuse(
        self,
        scope: Scope,
        mode: str,
        request: dict[str, Any],
        actor: str,
        input_hash: str,
        error: dict[str, Any],
    ) -> str:
        """Record a write refused before processing (status ``refused``); returns its id.

        One transaction, so a crash never leaves it ``pending``. ``request`` must already hold
        no sensitive value (callers pass the redacted input).
        """
        return self._insert(scope, mode, request, actor, input_hash, "refused", error)

    def claim(self) -> dict[str, Any] | None:
        """The oldest ``pending`` write, now ``running`` (attempts + 1), or None."""
        with self._tx() as c:
            row = c.execute(
                "SELECT id FROM writes WHERE status='pending' ORDER BY seq LIMIT 1"
            ).fetchone()
            if row is None:
                return None
            c.execute(
                "UPDATE writes SET status='running', attempts=attempts+1, updated_at=? WHERE id=?",
                (utcnow().isoformat(), row[0]),
            )
        return self._row(row[0])

    def mark_running(self, write_id: str) -> None:
        """A write processed by its caller right away (``wait=True``)."""
        with self._tx() as c:
            c.execute(
                "UPDATE writes SET status='running', attempts=attempts+1, updated_at=? WHERE id=?",
                (utcnow().isoformat(), write_id),
            )

    def finish(
        self,
        write_id: str,
        status: str,
        *,
        result: dict[str, Any] | None = None,
        error: dict[str, Any] | None = None,
        trail: dict[str, Any] | None = None,
        usage: dict[str, Any] | None = None,
    ) -> None:
        """Record the end state of a write (``done``, ``skipped``, ``failed`` or ``refused``).

        Args:
            usage: LLM usage of this run (``llm.usage.UsageMeter.as_dict``: prompt_tokens,
                completion_tokens, requests, cost); added to what earlier runs of the same
                write (retries) spent. None = no LLM request.
        """
        if status not in STATUSES:
            raise ValueError(status)
        used = usage or {}
        cost = used.get("cost")
        with self._tx() as c:
            c.execute(
                "UPDATE writes SET status=?, result=?, error=?, trail=?, updated_at=?,"
                " prompt_tokens=prompt_tokens+?, completion_tokens=completion_tokens+?,"
                " llm_requests=llm_requests+?,"
                " cost=CASE WHEN ? IS NULL THEN cost ELSE coalesce(cost, 0) + ? END"
                " WHERE id=?",
                (
                    status,
                    json.dumps(result, ensure_ascii=False, default=str) if result else None,
                    json.dumps(error, ensure_ascii=False, default=str) if error else None,
                    json.dumps(trail, ensure_ascii=False, default=str) if trail else None,
                    utcnow().isoformat(),
                    int(used.get("prompt_tokens") or 0),
                    int(used.get("completion_tokens") or 0),
                    int(used.get("requests") or 0),
                    cost,
                    cost,
                    write_id,
                ),
            )

    def retry(self, write_id: str, scope: Scope) -> None:
        """Put a ``failed`` write of the scope back to ``pending``. Raises MemoryNotFoundError."""
        self.get(write_id, scope)
        with self._tx() as c:
            c.execute(
                "UPDATE writes SET status='pending', updated_at=? WHERE id=? AND status='failed'",
                (utcnow().isoformat(), write_id),
            )

    def add_review(self, write_id: str, key: str, review: dict[str, Any]) -> None:
        """Record a human review of one judgement (``result.reviews[key]``) of a write."""
        with self._tx() as c:
            row = c.execute("SELECT result FROM writes WHERE id=?", (write_id,)).fetchone()
            result = json.loads(row[0]) if row and row[0] else {}
            result.setdefault("reviews", {})[key] = review
            c.execute(
                "UPDATE writes SET result=?, updated_at=? WHERE id=?",
                (
                    json.dumps(result, ensure_ascii=False, default=str),
                    utcnow().isoformat(),
                    write_id,
                ),
            )

    def _row(self, write_id: str) -> dict[str, Any] | None:
        with self._lock:
            cur = self._conn.execute("SELECT * FROM writes WHERE id=?", (write_id,))
            row = cur.fetchone()
            names = [d[0] for d in cur.description]
        if row is None:
            return None
        out = dict(zip(names, row, strict=True))
        for key in ("scope", "request", "result", "error", "trail"):
            if out.get(key):
                out[key] = json.loads(out[key])
        return out

    def get(self, write_id: str, scope: Scope) -> dict[str, Any]:
        """One write of the scope's tenant (narrowed by its ids). Raises MemoryNotFoundError."""
        row = self._row(str(write_id))
        if row is None or not _visible(row, scope):
            raise MemoryNotFoundError(f"write {write_id} not found", write_id=write_id)
        return row

    def find_done(self, scope: Scope, input_hash: str) -> dict[str, Any] | None:
        """The newest ``done`` write of the same scope with the same input hash, or None."""
        with self._lock:
            rows = self._conn.execute(
                "SELECT id FROM writes WHERE tenant_id=? AND input_hash=? AND status='done'"
                " ORDER BY seq DESC LIMIT 20",
                (scope.tenant_id, input_hash),
            ).fetchall()
        for (wid,) in rows:
            row = self._row(wid)
            if row and row["scope"] == scope.model_dump(mode="json"):
                return row
        return None

    def previous(self, scope: Scope, write_id: str) -> dict[str, Any] | None:
        """The write of exactly ``scope`` (same tenant, user, agent and session ids) just
        before ``write_id`` by sequence, of the same source and request session, among the
        tenant's 20 writes before it; dry runs and failed writes are passed over (they stored
        nothing a user saw). None when there is none."""
        columns = "id, scope, request, status, result, created_at"  # never the trails
        with self._lock:
            found = self._conn.execute(
                f"SELECT seq, {columns} FROM writes WHERE id=?", (write_id,)
            ).fetchone()
            if found is None:
                return None
            rows = self._conn.execute(
                f"SELECT {columns} FROM writes WHERE tenant_id=? AND seq<? "
                "ORDER BY seq DESC LIMIT 20",
                (scope.tenant_id, found[0]),
            ).fetchall()
        names = ("id", "scope", "request", "status", "result", "created_at")

        def parsed(values: Sequence[Any]) -> dict[str, Any]:
            out = dict(zip(names, values, strict=True))
            for key in ("scope", "request", "result"):
                out[key] = json.loads(out[key]) if out.get(key) else None
            return out

        request = parsed(found[1:])["request"] or {}
        want = scope.model_dump(mode="json")
        for values in rows:
            row = parsed(values)
            if row["scope"] != want:
                continue
            asked = row["request"] or {}
            if asked.get("source") != request.get("source") or asked.get(
                "session_id"
            ) != request.get("session_id"):
                continue  # a tool output, another conversation of the same scope
            if row["status"] == "failed" or (row["result"] or {}).get("dry_run"):
                continue
            return row
        return None

    def list(
        self, scope: Scope, *, limit: int = 50, cursor: str | None = None, status: str | None = None
    ) -> Page:
        """Writes of the scope newest first (trail omitted), keyset-paginated by sequence."""
        before = int(decode_cursor(cursor, "i")[0]) if cursor else None
        sql = "SELECT seq, id FROM writes WHERE tenant_id=?"
        args: list[Any] = [scope.tenant_id]
        if status:
            sql += " AND status=?"
            args.append(status)
        if before is not None:
            sql += " AND seq<?"
            args.append(before)
        sql += " ORDER BY seq DESC LIMIT ?"
        args.append(limit * 4 + 1)
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        items: list[dict[str, Any]] = []
        last_seq = None
        for seq, wid in rows:
            row = self._row(wid)
            if row is None or not _visible(row, scope):
                continue
            if len(items) == limit:
                break
            row.pop("trail", None)
            items.append(row)
            last_seq = seq
        more = len(items) == limit and last_seq is not None and len(rows) > len(items)
        return Page(
            items=items,
            next_cursor=encode_cursor(last_seq) if more else None,
            truncated=more,
        )

    def usage_by_day(self, scope: Scope, *, days: int = 30) -> UsageRows:
        """LLM usage of the scope's writes per UTC day of ``created_at``, newest day first.

        Args:
            scope: the tenant (rows narrowed by its user/agent/session ids when set).
            days: how many most recent days that have writes to return (>= 1).

        Returns:
            ``[{"day": "YYYY-MM-DD", "writes", "llm_requests", "prompt_tokens",
            "completion_tokens", "cost"}]``; ``cost`` is None on a day with no priced write.
        """
        sql = (
            "SELECT substr(created_at, 1, 10) AS day, count(*), sum(llm_requests),"
            " sum(prompt_tokens), sum(completion_tokens), sum(cost)"
            " FROM writes WHERE tenant_id=?"
        )
        args: list[Any] = [scope.tenant_id]
        for key in ("user_id", "agent_id", "session_id"):
            value = getattr(scope, key)
            if value is not None:
                sql += f" AND json_extract(scope, '$.{key}') = ?"
                args.append(value)
        sql += " GROUP BY day ORDER BY day DESC LIMIT ?"
        args.append(max(1, int(days)))
        with self._lock:
            rows = self._conn.execute(sql, args).fetchall()
        return [
            {
                "day": day,
                "writes": int(n),
                "llm_requests": int(req or 0),
                "prompt_tokens": int(p or 0),
                "completion_tokens": int(c or 0),
                "cost": None if cost is None else round(float(cost), 8),
            }
            for day, n, req, p, c, cost in rows
        ]

    @staticmethod
    def _quoting(
        c: sqlite3.Connection, tenant_id: str, content: str, memory_id: str | None = None
    ) -> builtins.list[str]:
        """Ids of the tenant's writes whose result names ``memory_id`` (when given) or whose
        stored input, result, error or trail holds ``content`` verbatim (as JSON text)."""
        quoted = json.dumps(content, ensure_ascii=False)[1:-1] if content.strip() else None
        clauses: builtins.list[str] = []
        args: builtins.list[Any] = [tenant_id]
        if memory_id is not None:
            clauses.append("instr(coalesce(result, ''), ?) > 0")
            args.append(memory_id)
        if quoted:
            for column in ("request", "result", "error", "trail"):
                clauses.append(f"instr(coalesce({column}, ''), ?) > 0")
                args.append(quoted)
        if not clauses:
            return []
        sql = f"SELECT id FROM writes WHERE tenant_id=? AND ({' OR '.join(clauses)})"  # noqa: S608
        return [row[0] for row in c.execute(sql, args).fetchall()]

    def erase_memory(self, tenant_id: str, memory_id: uuid.UUID | str, content: str) -> int:
        """Erase a purged memory from the journal; returns how many writes were scrubbed.

        Every write of the tenant that produced the memory (its result names the id) or quotes
        its text keeps its id, status, times and result rows, but its input (text, tags,
        entities, metadata), error and trail are replaced by a ``purged`` marker; a write not
        finished yet (pending, running, failed) becomes ``refused`` so that it never runs with
        the marker as input. The whole input goes, also when it produced other memories: the
        input held the purged fact.
        """
        mid = str(memory_id)
        marker = f"[purged: memory {mid}]"
        now = utcnow().isoformat()
        with self._tx() as c:
            ids = self._quoting(c, tenant_id, content, mid)
            for write_id in ids:
                row = c.execute(
                    "SELECT request, result, status FROM writes WHERE id=?", (write_id,)
                ).fetchone()
                request = json.loads(row[0]) if row[0] else {}
                request.update(text=marker, tags=[], entities=[], metadata={})
                result = json.loads(row[1]) if row[1] else None
                if isinstance(result, dict):
                    result = {k: v for k, v in result.items() if k in ("rows", "reason")}
                    result["purged"] = [*result.get("purged", []), mid]
                    if "reason" in result and content and content in str(result["reason"]):
                        result["reason"] = marker
                status = "refused" if row[2] in ("pending", "running", "failed") else row[2]
                error = {"error": "purged", "message": marker} if status == "refused" else None
                c.execute(
                    "UPDATE writes SET request=?, result=?, error=?, trail=NULL, status=?,"
                    " updated_at=? WHERE id=?",
                    (
                        json.dumps(request, ensure_ascii=False),
                        json.dumps(result, ensure_ascii=False, default=str) if result else None,
                        json.dumps(error, ensure_ascii=False) if error else None,
                        status,
                        now,
                        write_id,
                    ),
                )
        if ids:  # old page images leave the WAL file too (best effort while others read)
            with self._lock:
                self._conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return len(ids)

    def quotes(self, tenant_id: str, content: str) -> int:
        """How many writes of the tenant still hold ``content`` verbatim (the purge proof's
        ``journal_writes_with_content``; 0 after ``erase_memory``)."""
        with self._lock:
            return len(self._quoting(self._conn, tenant_id, content))

    def counts(self) -> dict[str, int]:
        """Writes per status, all tenants (for the worker and tests)."""
        with self._lock:
            rows = self._conn.execute("SELECT status, count(*) FROM writes GROUP BY status")
            return {s: n for s, n in rows}

    def close(self) -> None:
        """Close the database. Safe to call twice."""
        with self._lock:
            try:
                self._conn.close()
            except sqlite3.Error:  # pragma: no cover
                pass


def _visible(row: dict[str, Any], scope: Scope) -> bool:
    stored = row["scope"]
    if stored.get("tenant_id") != scope.tenant_id:
        return False
    return all(
        getattr(scope, key) is None or stored.get(key) == getattr(scope, key)
        for key in ("user_id", "agent_id", "session_id")
    )
