"""``MemoryEngine(...)`` takes every dependency in its constructor (``memory_engine.deps``), and
the defaults are built on first use, not at construction."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.context.working_store import InProcessWorkingStore
from memory_engine.deps import JOURNAL_FILE
from memory_engine.llm.rules import RulesLLM
from memory_engine.write.journal import WriteJournal

PUBLIC_NAMES = 67  # 63 before the facade: set_llm and open_write_journal removed, settings
# added; then list_entities and memory_entities (the entity index), warm_up, write_usage,
# purge_preview (what a purge will erase, counted)


class CountingLLM:
    """The rules LLM, counting its extract calls."""

    def __init__(self) -> None:
        self.inner = RulesLLM()
        self.name = self.inner.name
        self.extracts = 0

    def extract(self, item: Any) -> Any:
        self.extracts += 1
        return self.inner.extract(item)

    def judge(self, *args: Any) -> Any:
        return self.inner.judge(*args)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


class ReverseReranker:
    """Ranks the candidates in reverse order of their fused rank."""

    name = "reverse"

    def rerank(self, query: str, texts: Sequence[str]) -> list[float]:
        return [float(i) for i in range(len(texts))]


def test_every_dependency_is_injected(engine: MemoryEngine, tenant: str, tmp_path: Path) -> None:
    llm = CountingLLM()
    journal = WriteJournal(tmp_path / "journal.sqlite3")
    working = InProcessWorkingStore()
    now = datetime(2030, 1, 1, tzinfo=UTC)
    eng = MemoryEngine(
        engine.settings,
        store=engine.store,
        embedder=engine.embedder,
        llm=llm,  # type: ignore[arg-type]
        journal=journal,
        reranker=ReverseReranker(),
        working_store=working,
        clock=lambda: now,
    )
    try:
        assert eng.store is engine.store and eng.embedder is engine.embedder
        assert eng.llm is llm and eng.write_journal is journal
        assert eng.working_memory.store is working
        scope = Scope.of(tenant)
        result = eng.write(scope, "I moved to Porto last week", mode="extract")
        assert llm.extracts == 1 and result.write_id is not None
        assert eng.write_status(scope, result.write_id)["status"] in ("done", "skipped")
        eng.write(scope, "Ann likes green tea")
        found = eng.search(scope, "green tea Porto")
        assert "rerank:reverse" in found.trace.stages
        eng.add_turn(scope, "s1", "user", "hello")
        assert working.sessions(tenant)[0]
        assert eng.plan_maintenance(scope).now == now
    finally:
        eng.stop_write_worker()
        eng.flush_accesses()
        journal.close()


def test_defaults_are_built_on_first_use(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None, data_dir=str(tmp_path), store="qdrant", qdrant_path=":memory:"
    )  # type: ignore[call-arg]
    eng = MemoryEngine(settings)
    try:
        assert not (tmp_path / JOURNAL_FILE).exists()  # nothing opened at construction
        assert eng.write_journal is eng.write_journal
        assert (tmp_path / JOURNAL_FILE).exists()
        assert eng.settings is settings
        eng.settings = settings.model_copy(update={"search_k": 3})
        assert eng.search_options().k == 3  # new settings take effect on the next call
    finally:
        eng.close()
        eng.close()  # safe twice


def test_public_names_of_the_facade() -> None:
    names = [n for n in dir(MemoryEngine) if not n.startswith("_")]
    assert len(names) == PUBLIC_NAMES
    assert "set_llm" not in names and "open_write_journal" not in names
    assert MemoryEngine.search.__doc__ and "Hybrid search" in MemoryEngine.search.__doc__


def test_methods_called_through_the_class(engine: MemoryEngine, tenant: str) -> None:
    scope = Scope.of(tenant)
    MemoryEngine.write(engine, scope, "Bea keeps bees on the roof")
    found = MemoryEngine.search(engine, scope, "bees on the roof", k=1)
    assert [c.memory.content for c in found.memories] == ["Bea keeps bees on the roof"]
    assert MemoryEngine.search.__qualname__ == "MemoryEngine.search"


def test_as_of_and_compare_use_the_injected_reranker(engine: MemoryEngine, tenant: str) -> None:
    eng = MemoryEngine(
        engine.settings, store=engine.store, embedder=engine.embedder, reranker=ReverseReranker()
    )
    scope = Scope.of(tenant)
    eng.write(scope, "Cal plays the cello")
    eng.write(scope, "Cal plays the cello on Sundays")
    live = eng.search(scope, "cello")
    then = eng.search(scope, "cello", as_of=datetime.now(UTC))
    assert "rerank:reverse" in live.trace.stages and "rerank:reverse" in then.trace.stages
    eng.flush_accesses()


class FailingWorkingStore(InProcessWorkingStore):
    """A working store whose close fails (e.g. Redis gone)."""

    def close(self) -> None:
        raise ConnectionError("redis gone")


def test_close_runs_every_step_when_one_fails(tmp_path: Path) -> None:
    settings = Settings(
        _env_file=None, data_dir=str(tmp_path), store="qdrant", qdrant_path=":memory:"
    )  # type: ignore[call-arg]
    eng = MemoryEngine(settings, working_store=FailingWorkingStore())
    journal = eng.write_journal  # opened
    try:
        eng.close()
    except ConnectionError:
        pass
    else:  # pragma: no cover - the failing close must surface
        raise AssertionError("the working store's error was swallowed")
    try:
        journal._conn.execute("select 1")
    except sqlite3.ProgrammingError:
        pass  # closed although the step before it failed
    else:  # pragma: no cover
        raise AssertionError("journal left open")
