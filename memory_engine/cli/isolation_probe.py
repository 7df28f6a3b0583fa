"""The CLI's prober for the isolation check (:mod:`memory_engine.isolation.probe`).

``memory-engine search --json``, ``stats --json`` and ``entities --json`` run in-process
through typer on the check's engine (lent through :data:`memory_engine.cli.common.LENT_ENGINE`),
acting for A and aiming at B's canary; what they print is parsed. In-process on purpose: a second process could not open an
embedded store (a Qdrant local folder is locked by its owner), and the code under test is the
same.
"""

from __future__ import annotations

import contextlib
import json
import uuid
from typing import Any

from typer.testing import CliRunner

from memory_engine.cli import entities as _entities  # noqa: F401  registers ``entities``
from memory_engine.cli import search as _search  # noqa: F401  registers ``search`` on the app
from memory_engine.cli import stats as _stats  # noqa: F401  registers ``stats`` on the app
from memory_engine.cli.common import LENT_ENGINE, app
from memory_engine.engine import MemoryEngine
from memory_engine.errors import MemoryEngineError
from memory_engine.isolation.probe import (
    Planted,
    ProbeRecorder,
    alarm_detail,
    foreign_in,
    lend,
    probe_query,
)
from memory_engine.models import Scope


class CliProber:
    """``memory-engine search|stats|entities --tenant A --json`` in-process on the check's
    engine."""

    path = "cli"

    def __init__(self, engine: MemoryEngine) -> None:
        self.engine = engine
        self.lent = lend(engine)
        self.runner = CliRunner()

    def acting_for(self, tenant: str) -> contextlib.AbstractContextManager[None]:
        """Nothing to prepare: each command names ``--tenant``."""
        return contextlib.nullcontext()

    def _json(self, args: list[str]) -> Any:
        token = LENT_ENGINE.set(self.lent)
        try:
            run = self.runner.invoke(app, args)
        finally:
            LENT_ENGINE.reset(token)
        if run.exit_code != 0:
            raise MemoryEngineError(f"memory-engine {args[0]} exited {run.exit_code}")
        return json.loads(run.stdout)

    def pair(self, recorder: ProbeRecorder, a: Planted, b: Planted) -> None:
        """Probe ``cli.search``, ``cli.stats`` and ``cli.entities`` from A towards B."""

        def search() -> str | None:
            data = self._json(["search", probe_query(b), "--tenant", a.tenant, "--json"])
            ids = {uuid.UUID(m["id"]) for m in data["memories"]}
            trace = data["trace"]
            for cands in [*trace["legs"].values(), trace["candidates"]]:
                ids |= {uuid.UUID(c["memory_id"]) for c in cands}
            texts = [data["block"], *(m["content"] for m in data["memories"])]
            return foreign_in(ids, texts, a, b) or alarm_detail(trace.get("tenant_alarms", []))

        def stats() -> str | None:
            printed = self._json(["stats", "--tenant", a.tenant, "--json"])
            own = self.engine.stats(Scope.of(a.tenant)).model_dump(mode="json")
            return None if printed == own else "stats differ from A's own counts"

        def entities() -> str | None:
            printed = self._json(["entities", "--tenant", a.tenant, "--limit", "100", "--json"])
            foreign = [
                e["key"]
                for e in printed["entities"]
                if e["tenant_id"] != a.tenant or b.canary in e["key"]
            ]
            return f"{len(foreign)} foreign entities listed" if foreign else None

        recorder.probe("cli.search", a, b, search)
        recorder.probe("cli.stats", a, b, stats)
        recorder.probe("cli.entities", a, b, entities)
