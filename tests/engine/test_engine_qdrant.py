"""Engine flows configured the way a user does it: ``MEMORY_STORE=qdrant`` plus
``MEMORY_QDRANT_PATH`` in the environment (local mode in a tmp folder), restarts included.
(Every other engine test also runs on Qdrant through the parametrized ``engine`` fixture.)"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, MemoryNotFoundError, Scope
from memory_engine.stores.qdrant.store import QdrantStore


@pytest.fixture
def qdrant_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """MEMORY_STORE=qdrant and MEMORY_QDRANT_PATH=<tmp folder>; no URL, no .env file."""
    monkeypatch.chdir(tmp_path)  # no stray .env is read
    monkeypatch.delenv("MEMORY_QDRANT_URL", raising=False)
    monkeypatch.setenv("MEMORY_STORE", "qdrant")
    monkeypatch.setenv("MEMORY_QDRANT_PATH", str(tmp_path / "qdrant"))
    return tmp_path / "qdrant"


def test_write_search_trace_edit_purge_restart(qdrant_env: Path, tenant: str) -> None:
    s = Scope.of(tenant, user_id="u1")
    with MemoryEngine() as eng:
        assert isinstance(eng.store, QdrantStore) and eng.store.location == str(qdrant_env)
        lisbon = eng.write(s, "The user lives in Lisbon").memory_ids[0]
        nurse = eng.write(s, "The user works as a nurse").memory_ids[0]
        res = eng.search(s, "Where does the user live? Lisbon", k=1)
        assert [c.memory.id for c in res.memories] == [lisbon]
        trace = eng.get_trace(s, res.trace.id)
        assert {"dense", "keyword"} <= set(trace.legs)
        assert {"cosine", "bm25", "rrf"} <= {k for c in trace.candidates for k in c.scores}
        edited = eng.update(
            s, nurse, expected_version=1, content="The user works as a surgeon", reason="fix"
        )
        assert edited.version == 2
        eng.purge(s, lisbon, reason="user request")
    with MemoryEngine() as eng:  # restart on the same folder
        assert [c.memory.content for c in eng.search(s, "surgeon", legs=("keyword",)).memories] == [
            "The user works as a surgeon"
        ]
        assert eng.search(s, "Lisbon", legs=("keyword",)).memories == []
        with pytest.raises(MemoryNotFoundError):
            eng.get(s, lisbon)
        assert [e.action.value for e in eng.history(s, lisbon).items] == ["create", "purge"]
        assert [e.action.value for e in eng.history(s, nurse).items] == ["create", "update"]
        assert str(res.trace.id) in {str(t["id"]) for t in eng.list_traces(s).items}
        assert eng.tenant_counts(actor="test", reason="check")[tenant] == 1


def test_twenty_concurrent_writes_survive_restart(qdrant_env: Path, tenant: str) -> None:
    """docs/architecture.md#f10-concurrency on the embedded Qdrant: 20 concurrent writes, 20 memories."""
    s = Scope.of(tenant)
    with MemoryEngine() as eng:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(
                pool.map(lambda i: eng.write(s, f"concurrent fact number {i}"), range(20))
            )
        assert all(r.outcomes[0].status == "created" for r in results)
    with MemoryEngine() as eng:
        page = eng.list(s, limit=50)
        assert page.total == 20
        assert {m.content for m in page.items} == {f"concurrent fact number {i}" for i in range(20)}
        assert all(len(eng.history(s, m.id).items) == 1 for m in page.items)
