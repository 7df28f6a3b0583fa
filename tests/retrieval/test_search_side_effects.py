"""A search that stores no trace (``save_trace=False``: the dashboard's configuration and store
comparisons, golden-set runs, benchmarks) is a what-if: it must not count accesses (which feed
retention and maintenance) nor restore archived memories (a ``restore`` event naming a trace
that was never stored). Before, every such search did both."""

from __future__ import annotations

from memory_engine import MemoryEngine, Scope
from memory_engine.models import EventAction, MemoryStatus

TEXT = "The staging database lives in Frankfurt"


def test_search_without_trace_has_no_side_effects(engine: MemoryEngine, tenant: str) -> None:
    settings = engine.settings.model_copy(update={"retention_restore_min_cosine": 0.8})
    eng = MemoryEngine(settings, store=engine.store, embedder=engine.embedder)
    s = Scope.of(tenant)
    kept = eng.write(s, TEXT).outcomes[0].memory_id
    archived = eng.write(s, "Alice prefers window seats on long flights").outcomes[0].memory_id
    eng.archive(s, archived, expected_version=1, reason="test")

    res = eng.search(s, TEXT, save_trace=False)
    assert [c.memory.id for c in res.memories][0] == kept
    eng.search(s, "Alice prefers window seats on long flights", save_trace=False)
    eng.flush_accesses()
    assert eng.get(s, kept).access_count == 0
    assert eng.get(s, archived).status is MemoryStatus.ARCHIVED
    assert eng.history(s, archived).items[-1].action is EventAction.ARCHIVE

    eng.search(s, TEXT)  # a stored search still counts
    eng.flush_accesses()
    assert eng.get(s, kept).access_count == 1
