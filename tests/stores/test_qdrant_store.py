"""Qdrant-specific tests (the shared behaviour is in tests/conformance): crash recovery of the
pending -> point -> committed write protocol in a hard-killed child process, the local-mode
folder lock, the size warning, the tenant filter in every query (prefetches and root included),
keyword vectors, error mapping and settings.
"""

from __future__ import annotations

import json
import logging
import math
import signal
import subprocess
import sys
import textwrap
import uuid
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from qdrant_client import QdrantClient, models

from memory_engine.config import Settings
from memory_engine.errors import (
    ConfigError,
    MemoryNotFoundError,
    StoreUnavailableError,
)
from memory_engine.models import Memory, Scope
from memory_engine.stores import build_store
from memory_engine.stores.base import NewMemory
from memory_engine.stores.common import BM25_B, BM25_K1
from memory_engine.stores.qdrant.codec import (
    bm25_doc_vector,
    derived_id,
    has_tenant_condition,
    query_vector,
    term_index,
)
from memory_engine.stores.qdrant.store import QdrantStore
from tests.conftest import new_tenant_id

ROOT = Path(__file__).resolve().parents[2]
DIM = 8


def _settings(path: str, **overrides: Any) -> Settings:
    values: dict[str, Any] = {"store": "qdrant", "qdrant_url": None, "qdrant_path": path}
    values.update(overrides)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def _unit(rng: np.random.Generator) -> tuple[float, ...]:
    v = rng.normal(size=DIM)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def _new(tenant: str, text: str, rng: np.random.Generator) -> NewMemory:
    memory = Memory(tenant_id=tenant, content=text, content_hash=text.lower())
    return NewMemory(memory=memory, embedding=_unit(rng), terms=tuple(text.lower().split()))


def _events_of(store: QdrantStore, memory_id: uuid.UUID) -> list[dict[str, Any]]:
    """Raw event payloads of one memory, every state (test-only peek at the backend)."""
    rows, _ = store.conn.client.scroll(
        store.conn.events,
        scroll_filter=models.Filter(
            must=[
                models.FieldCondition(
                    key="memory_id", match=models.MatchValue(value=str(memory_id))
                )
            ]
        ),
        limit=100,
    )
    return sorted((r.payload or {} for r in rows), key=lambda p: p["seq"])


# ----------------------------------------------------------------------------- crash recovery

_CHILD = textwrap.dedent(
    """
    import json, os, signal, sys, uuid
    import numpy as np
    from memory_engine.config import Settings
    from memory_engine.models import Memory, Scope
    from memory_engine.stores.base import NewMemory
    from memory_engine.stores.qdrant.store import QdrantStore

    path, tenant, action, die_after, memory_id = sys.argv[1:6]
    store = QdrantStore(Settings(_env_file=None, store="qdrant", qdrant_path=path))
    store.ensure_embedding("crash-model", 8)

    def die(self, step):
        if step == die_after:
            os.kill(os.getpid(), signal.SIGKILL)  # hard kill: no cleanup, no close

    QdrantStore._step_done = die
    scope = Scope.of(tenant)
    vec = tuple(float(x) for x in np.ones(8) / np.sqrt(8))
    if action == "create":
        mem = Memory(id=uuid.UUID(memory_id), tenant_id=tenant, content="crash fact",
                     content_hash="crash fact")
        store.insert([NewMemory(memory=mem, embedding=vec, terms=("crash", "fact"))],
                     scope=scope, actor="child")
    elif action == "update":
        store.update(uuid.UUID(memory_id), scope=scope, expected_version=1,
                     changes={"content": "changed fact"}, actor="child")
    else:
        store.purge(uuid.UUID(memory_id), scope=scope, actor="child")
    print("not killed")
    """
)


@pytest.mark.parametrize("action", ["create", "update", "purge"])
@pytest.mark.parametrize("die_after", ["event", "point"])
def test_hard_kill_between_write_steps_is_reconciled_at_open(
    tmp_path: Path, action: str, die_after: str
) -> None:
    """SIGKILL after step 1 (pending event) rolls the change back; after step 2 (point
    written) the reopened store commits it. Never a half-written memory or a shown pending
    event."""
    folder, tenant = str(tmp_path / "q"), new_tenant_id()
    rng = np.random.default_rng(1)
    scope = Scope.of(tenant)
    memory_id = uuid.uuid4()
    if action != "create":  # the memory the child updates or purges, written normally
        with QdrantStore(_settings(folder)) as setup:
            setup.ensure_embedding("crash-model", DIM)
            mem = Memory(id=memory_id, tenant_id=tenant, content="crash fact", content_hash="c")
            setup.insert(
                [NewMemory(memory=mem, embedding=_unit(rng), terms=("crash", "fact"))],
                scope=scope,
                actor="setup",
            )
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, folder, tenant, action, die_after, str(memory_id)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr

    with QdrantStore(_settings(folder)) as store:  # the hard-killed lock is free again
        states = [(e["action"], e["state"]) for e in _events_of(store, memory_id)]
        applied = die_after == "point"
        verdict = "committed" if applied else "rolled_back"
        shown = (
            [e.action.value for e in store.history(memory_id, scope=scope).items]
            if (action != "create" or applied)
            else []
        )
        if action == "create":
            assert states == [("create", verdict)]
            if applied:
                assert store.get(memory_id, scope=scope).content == "crash fact"
                assert shown == ["create"]
            else:
                with pytest.raises(MemoryNotFoundError):
                    store.get(memory_id, scope=scope)
                with pytest.raises(MemoryNotFoundError):
                    store.history(memory_id, scope=scope)
                assert store.count(scope=scope) == 0
                assert store.keyword_search(["crash"], scope=scope, k=5) == []
        elif action == "update":
            assert states == [("create", "committed"), ("update", verdict)]
            got = store.get(memory_id, scope=scope)
            assert (got.version, got.content) == (
                (2, "changed fact") if applied else (1, "crash fact")
            )
            assert shown == (["create", "update"] if applied else ["create"])
        else:
            assert states == [("create", "committed"), ("purge", verdict)]
            if applied:
                with pytest.raises(MemoryNotFoundError):
                    store.get(memory_id, scope=scope)
            else:
                assert store.get(memory_id, scope=scope).version == 1
            assert shown == (["create", "purge"] if applied else ["create"])
        assert all(e.memory_id == memory_id for e in store.events(scope=scope).items)
        # the store keeps working after recovery, with event ids still increasing
        (fresh,) = store.insert([_new(tenant, "after the crash", rng)], scope=scope, actor="t")
        ids = [e.id for e in store.events(scope=scope).items]
        assert ids == sorted(ids, reverse=True) and len(set(ids)) == len(ids)
        assert store.get(fresh.memory_id, scope=scope).content == "after the crash"


# ----------------------------------------------------------------------------- local-mode lock

_OPENER = textwrap.dedent(
    """
    import json, sys
    from memory_engine.config import Settings
    from memory_engine.errors import MemoryEngineError
    from memory_engine.stores.qdrant.store import QdrantStore
    try:
        QdrantStore(Settings(_env_file=None, store="qdrant", qdrant_path=sys.argv[1])).close()
        print(json.dumps({"opened": True}))
    except MemoryEngineError as exc:
        print(json.dumps(exc.to_dict()))
    """
)


def _open_in_child(folder: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-c", _OPENER, folder],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr  # a typed error, never a stack trace
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def test_second_process_on_a_local_folder_gets_a_typed_error(tmp_path: Path) -> None:
    folder = str(tmp_path / "q")
    store = QdrantStore(_settings(folder))
    try:
        err = _open_in_child(folder)
        assert err["error"] == "store_unavailable"
        assert "in use by another process" in err["message"]
        assert "MEMORY_QDRANT_URL" in err["message"] and err["details"]["path"] == folder
        with pytest.raises(StoreUnavailableError, match="in use by another process"):
            QdrantStore(_settings(folder))  # a second store in the same process, too
    finally:
        store.close()
    assert _open_in_child(folder) == {"opened": True}  # close() released the lock


def test_closed_store_is_unavailable(tmp_path: Path) -> None:
    store = QdrantStore(_settings(str(tmp_path / "q")))
    store.close()
    store.close()  # twice is fine
    with pytest.raises(StoreUnavailableError, match="closed"):
        store.count(scope=Scope.of("t"))


# ----------------------------------------------------------------------------- size warning


def test_warns_above_local_warn_points(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    folder, tenant = str(tmp_path / "q"), new_tenant_id()
    rng = np.random.default_rng(2)
    caplog.set_level(logging.WARNING, logger="memory_engine.stores.qdrant.store")
    with QdrantStore(_settings(folder, qdrant_local_warn_points=5)) as store:
        store.ensure_embedding("m", DIM)
        store.insert(
            [_new(tenant, f"fact {i}", rng) for i in range(5)], scope=Scope.of(tenant), actor="t"
        )
        assert not [r for r in caplog.records if "memory_memories" in r.getMessage()]
        store.insert([_new(tenant, "fact six", rng)], scope=Scope.of(tenant), actor="t")
        store.insert([_new(tenant, "fact seven", rng)], scope=Scope.of(tenant), actor="t")
    warned = [r.getMessage() for r in caplog.records if "memory_memories" in r.getMessage()]
    assert len(warned) == 1 and "holds 6 points (> 5)" in warned[0]
    assert "MEMORY_QDRANT_URL" in warned[0]
    caplog.clear()
    QdrantStore(_settings(folder, qdrant_local_warn_points=5)).close()  # and again at open
    assert any("memory_memories holds 7 points" in r.getMessage() for r in caplog.records)


# ----------------------------------------------------------------------------- tenant filters


class _SpyClient:
    """Forwards to a real client and records the filters of every call."""

    def __init__(self, client: QdrantClient) -> None:
        self._real = client
        self.calls: list[tuple[str, str, dict[str, Any]]] = []

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._real, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            collection = kwargs.get("collection_name", args[0] if args else "")
            self.calls.append((name, str(collection), kwargs))
            return attr(*args, **kwargs)

        return call


_FILTER_ARGS = {"scroll": "scroll_filter", "count": "count_filter", "facet": "facet_filter"}


def test_every_query_carries_the_tenant_filter(tmp_path: Path) -> None:
    """All protocol calls of one tenant: every scroll/count/facet/query on tenant data holds
    the tenant condition; every query_points prefetch holds it too (docs/architecture.md#f1-scope-filter)."""
    spy = _SpyClient(QdrantClient(location=":memory:"))
    store = QdrantStore(_settings(":memory:"), client=spy)  # type: ignore[arg-type]
    store.ensure_embedding("m", DIM)
    rng = np.random.default_rng(3)
    tenant = new_tenant_id()
    s = Scope.of(tenant, user_id="u1")
    named = _new(tenant, "beta fact", rng)
    named = named.model_copy(
        update={"memory": named.memory.model_copy(update={"entities": ("ACME", "Priya")})}
    )
    (a, b) = [
        o.memory_id
        for o in store.insert([_new(tenant, "alpha fact", rng), named], scope=s, actor="t")
    ]
    spy.calls.clear()
    store.list_entities(scope=s)
    store.memory_entities(b, scope=s)
    store.entity_memories("acme", scope=s)
    store.update(b, scope=s, expected_version=1, changes={"entities": ("ACME",)}, actor="t")
    store.get(a, scope=s)
    store.list(scope=s, limit=1)
    store.list(scope=s, limit=1, cursor=store.list(scope=s, limit=1).next_cursor)
    store.facet_counts(scope=s)
    store.count(scope=s)
    store.stats(scope=s, days=3)
    store.history(a, scope=s)
    store.events(scope=s)
    store.dense_search(_unit(rng), scope=s, k=3)
    store.keyword_search(["fact"], scope=s, k=3)
    store.hybrid_search(_unit(rng), ["fact"], scope=s, k=3)
    store.update(a, scope=s, expected_version=1, changes={"importance": 0.9}, actor="t")
    store.purge(b, scope=s, actor="t")
    store.list_traces(scope=s)
    tenant_collections = {
        store.conn.memories,
        store.conn.events,
        store.conn.traces,
        store.conn.entities,
    }
    checked = 0
    for method, collection, kwargs in spy.calls:
        if collection not in tenant_collections:
            continue
        if method == "count" and kwargs.get("count_filter") is None:
            continue  # the local-mode size check counts the whole collection, returns no data
        if method in ("collection_exists", "get_collection"):
            continue
        if method in _FILTER_ARGS:
            assert has_tenant_condition(kwargs.get(_FILTER_ARGS[method]), tenant), method
            checked += 1
        elif method == "query_points":
            assert has_tenant_condition(kwargs["query_filter"], tenant)
            for prefetch in kwargs.get("prefetch") or []:
                assert has_tenant_condition(prefetch.filter, tenant)
            idf = kwargs.get("search_params")
            if idf is not None and idf.idf is not None:
                assert has_tenant_condition(idf.idf.corpus, tenant)
            checked += 1
        elif method in ("upsert", "set_payload", "delete"):
            continue  # writes: conditional ones are checked in the next test
        elif method == "retrieve" and collection == store.conn.entities:
            raise AssertionError("entities are read by a filtered scroll, never by bare id")
        else:
            raise AssertionError(f"unchecked read {method} on {collection}")
    assert checked >= 20
    store.close()


def test_hybrid_request_filters_every_prefetch_and_the_root() -> None:
    store = QdrantStore(_settings(":memory:", rrf_k=60))
    store.ensure_embedding("m", DIM)
    rng = np.random.default_rng(4)
    ta, tb = new_tenant_id("a"), new_tenant_id("b")
    q = np.asarray(_unit(rng))
    falcon = Memory(tenant_id=ta, content="Project codename is Falcon", content_hash="f")
    heron = Memory(tenant_id=tb, content="Project codename is Heron", content_hash="h")
    for mem, noise in ((falcon, 0.01), (heron, 0.2)):
        v = q + rng.normal(scale=noise, size=DIM)
        store.insert(
            [
                NewMemory(
                    memory=mem,
                    embedding=tuple(v / np.linalg.norm(v)),
                    terms=("project", "codename"),
                )
            ],
            scope=Scope.of(mem.tenant_id),
            actor="t",
        )
    req = store.hybrid_request(q, ["project", "codename"], scope=Scope.of(tb), k=5)
    assert len(req["prefetch"]) == 2
    assert has_tenant_condition(req["query_filter"], tb)
    assert all(has_tenant_condition(p.filter, tb) for p in req["prefetch"])
    assert has_tenant_condition(req["prefetch"][1].params.idf.corpus, tb)
    assert req["query"].rrf.k == 61  # Qdrant ranks from 0: 1/(61 + rank0) = 1/(60 + rank)
    (hit,) = store.hybrid_search(q, ["project", "codename"], scope=Scope.of(tb), k=5)
    assert hit.memory.id == heron.id
    assert hit.scores["rrf"] == pytest.approx(2 / 61) and hit.ranks == {"fused": 1}
    assert [c.memory.id for c in store.hybrid_search(q, ["heron"], scope=Scope.of(ta), k=5)] == [
        falcon.id
    ]
    store.close()


# ----------------------------------------------------------------------------- keyword vectors


def test_term_index_is_stable_and_collisions_add_up() -> None:
    assert term_index("peanut") == term_index("peanut")
    assert 0 <= term_index("花生") < 2**32
    # a known collision of the 32-bit hash: both terms share one dimension
    assert term_index("term20925") == term_index("term40583") == 2054505426
    vec = bm25_doc_vector(["term20925", "term40583", "x"], avgdl=3.0)
    tf2 = 2 * (BM25_K1 + 1) / (2 + BM25_K1)
    assert dict(zip(vec.indices, vec.values, strict=True))[2054505426] == pytest.approx(tf2)


def test_bm25_doc_and_query_vectors() -> None:
    vec = bm25_doc_vector(["peanut", "allergy", "peanut"], avgdl=4.5)
    weights = dict(zip(vec.indices, vec.values, strict=True))
    norm = BM25_K1 * (1 - BM25_B + BM25_B * 3 / 4.5)
    assert weights[term_index("peanut")] == pytest.approx(2 * 2.2 / (2 + norm))
    assert weights[term_index("allergy")] == pytest.approx(1 * 2.2 / (1 + norm))
    assert vec.indices == sorted(vec.indices)
    assert bm25_doc_vector([], avgdl=0).indices == []
    q = query_vector(["peanut", "peanut", "", "allergy"])
    assert q is not None and len(q.indices) == 2 and q.values == [1.0, 1.0]
    assert query_vector(["", ""]) is None


def test_keyword_idf_is_per_scope_not_per_collection() -> None:
    """IDF counts only the points of the search filter (IdfCorpusParams): another tenant's
    documents do not change a tenant's scores."""
    store = QdrantStore(_settings(":memory:"))
    store.ensure_embedding("m", DIM)
    rng = np.random.default_rng(5)
    ta, tb = new_tenant_id("a"), new_tenant_id("b")
    store.insert(
        [_new(ta, "rare word", rng), _new(ta, "common thing", rng)], scope=Scope.of(ta), actor="t"
    )
    (before,) = store.keyword_search(["rare"], scope=Scope.of(ta), k=5)
    store.insert([_new(tb, f"rare {i}", rng) for i in range(30)], scope=Scope.of(tb), actor="t")
    (after,) = store.keyword_search(["rare"], scope=Scope.of(ta), k=5)
    assert after.scores["bm25"] == pytest.approx(before.scores["bm25"])
    idf = math.log(1 + (2 - 1 + 0.5) / (1 + 0.5))
    assert before.scores["bm25"] == pytest.approx(idf * 2.2 / (1 + 1.2), rel=1e-6)
    store.close()


# ----------------------------------------------------------------------------- settings, errors


#: The public names of QdrantStore (its MemoryStore methods plus hybrid_request/hybrid_search
#: and reconcile); the composition into parts keeps them. The EntityIndex methods
#: (entity_memories, list_entities, memory_entities) joined with the entity index.
_PUBLIC = [
    "admin_tenant_counts", "admin_tenant_ids", "append_event", "close", "count",
    "delete_traces", "dense_search", "embedding_info", "ensure_embedding", "entity_memories",
    "events", "facet_counts", "get", "get_trace", "history", "hybrid_request", "hybrid_search",
    "index_presence", "insert", "keyword_search", "list", "list_entities", "list_traces",
    "memory_entities", "name", "purge", "read_records", "reconcile", "record_access",
    "record_ids", "redact_history", "save_trace", "stats", "update", "write_records",
]  # fmt: skip


def test_store_is_composed_of_parts_with_an_unchanged_public_surface() -> None:
    from memory_engine.stores.base import MemoryStore
    from memory_engine.stores.qdrant.entities import QdrantEntities
    from memory_engine.stores.qdrant.events import QdrantEventLog
    from memory_engine.stores.qdrant.lifecycle import QdrantLifecycle
    from memory_engine.stores.qdrant.reads import QdrantReader
    from memory_engine.stores.qdrant.records import QdrantRecords
    from memory_engine.stores.qdrant.writer import QdrantWriter

    parts = (
        QdrantReader,
        QdrantEventLog,
        QdrantWriter,
        QdrantLifecycle,
        QdrantRecords,
        QdrantEntities,
    )
    assert all(cls.__bases__ == (object,) for cls in (*parts, QdrantStore))
    assert [n for n in sorted(dir(QdrantStore)) if not n.startswith("_")] == _PUBLIC
    with QdrantStore(_settings(":memory:")) as store:
        assert isinstance(store, MemoryStore)


def test_build_store_picks_qdrant() -> None:
    store = build_store(_settings(":memory:"))
    try:
        assert isinstance(store, QdrantStore) and store.name == "qdrant"
        assert store.embedding_info() is None
    finally:
        store.close()


def test_url_and_path_together_are_refused() -> None:
    with pytest.raises(ConfigError):
        Settings(store="qdrant", qdrant_url="http://localhost:6333", qdrant_path="/tmp/x")


def test_unreachable_server_is_a_typed_error() -> None:
    with pytest.raises(StoreUnavailableError, match="127.0.0.1:9"):
        QdrantStore(
            Settings(_env_file=None, store="qdrant", qdrant_url="http://127.0.0.1:9")  # type: ignore[call-arg]
        )


def test_qdrant_needs_a_url_or_a_path(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="MEMORY_QDRANT_PATH"):
        Settings(_env_file=None, store="qdrant", qdrant_url=None, qdrant_path=None)  # type: ignore[call-arg]
    with QdrantStore(_settings(str(tmp_path / "q"))) as store:
        assert store.location == str(tmp_path / "q")
    assert (tmp_path / "q" / ".lock").exists()


def test_entity_backfill_links_points_written_before_the_index() -> None:
    """Points stored without ``entity_keys`` (an older version) are linked once at open."""
    client = QdrantClient(location=":memory:")
    settings = _settings(":memory:")
    store = QdrantStore(settings, client=client)
    store.ensure_embedding("m", DIM)
    rng = np.random.default_rng(11)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    named = [_new(tenant, "acme one", rng), _new(tenant, "acme two", rng)]
    named = [
        n.model_copy(update={"memory": n.memory.model_copy(update={"entities": names})})
        for n, names in zip(named, (("ACME",), ("ＡＣＭＥ Inc.", "Priya")), strict=True)
    ]
    ids = [o.memory_id for o in store.insert(named, scope=scope, actor="t")]
    client.delete_payload(store.conn.memories, keys=["entity_keys"], points=[str(i) for i in ids])
    client.delete(
        store.conn.entities, points_selector=models.FilterSelector(filter=models.Filter())
    )
    client.delete(store.conn.meta, points_selector=[derived_id("entities_backfilled")])
    assert store.list_entities(scope=scope).items == []  # nothing linked now
    store.close()
    again = QdrantStore(settings, client=client)
    page = again.list_entities(scope=scope)
    assert [(e.key, e.name, e.memory_count) for e in page.items] == [
        ("acme", "ACME", 2),
        ("priya", "Priya", 1),
    ]
    assert again.index_presence(ids[1], scope=scope)["entity_links"] == 2
    again.close()
