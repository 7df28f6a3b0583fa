"""PostgreSQL bulk import (``PostgresStore.bulk_insert``) and the raw write path that uses it:
events, dedupe, outcomes in order, the HNSW index present after success and after failure."""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np
import psycopg
import pytest

from memory_engine.errors import EmbeddingError, InvalidInputError, TenantScopeError
from memory_engine.models import Memory, MemoryStatus, Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres import bulk as pg_bulk
from memory_engine.stores.postgres.sql import explain_dense
from memory_engine.stores.postgres.store import PostgresStore
from memory_engine.write import raw
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL, new_tenant_id


def _url(store: PostgresStore) -> str:
    assert store.settings.storage.database_url is not None
    return store.settings.storage.database_url.get_secret_value()


def _vec(rng: np.random.Generator) -> tuple[float, ...]:
    v = rng.normal(size=PG_TEST_DIM)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def _item(
    tenant: str, content: str, rng: np.random.Generator, *, chash: str | None = None, **kw: Any
) -> NewMemory:
    memory = Memory(
        tenant_id=tenant,
        content=content,
        content_hash=content if chash is None else chash,
        embedding_model=PG_TEST_MODEL,
        **kw,
    )
    return NewMemory(memory=memory, embedding=_vec(rng), terms=tuple(content.split()))


def _hnsw_index(store: PostgresStore) -> str | None:
    """Definition of the HNSW index when it exists and is valid."""
    with psycopg.connect(_url(store)) as conn:
        row = conn.execute(
            "SELECT i.indexdef FROM pg_indexes i JOIN pg_index x "
            "ON x.indexrelid = (quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))"
            "::regclass WHERE i.indexname = 'memories_embedding_hnsw' "
            "AND x.indisvalid AND x.indisready"
        ).fetchone()
    return str(row[0]) if row else None


def _raw_batch(store: Any, embedder: Any, texts: list[str], scope: Scope, **options: Any) -> list:
    """``raw.write_batch`` of ``texts`` into ``store`` with the raw extractor (actor ``t``);
    ``options``: ``progress``, ``legs``."""
    return raw.write_batch(
        [raw.WriteRequest(text=t) for t in texts],
        scope=scope,
        settings=store.settings,
        store=store,
        embedder=embedder,
        extractor=raw.raw_extractor(store.settings),
        actor="t",
        **options,
    )


def test_bulk_insert_writes_events_and_dedupes(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(21)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    (old,) = pg_store.insert([_item(tenant, "old fact", rng)], scope=scope, actor="t")
    items = [
        _item(tenant, "old fact", rng),  # duplicate of a stored memory
        _item(tenant, "new fact", rng),
        _item(tenant, "new fact", rng),  # duplicate of the previous item
        _item(tenant, "new fact", rng, user_id="u1"),  # another owner: not a duplicate
        _item(tenant, "kept fact", rng, status=MemoryStatus.ARCHIVED),
        _item(tenant, "kept fact", rng, status=MemoryStatus.ARCHIVED),  # only active dedupes
        _item(tenant, "no hash", rng, chash=""),
        _item(tenant, "no hash", rng, chash=""),  # empty hashes are exempt
    ]
    out = pg_store.bulk_insert(iter(items), scope=scope, actor="importer", reason="migration")
    assert [o.memory_id for o in out] == [i.memory.id for i in items]
    assert [o.status for o in out] == [
        "duplicate",
        "created",
        "duplicate",
        "created",
        "created",
        "created",
        "created",
        "created",
    ]
    assert out[0].existing_id == old.memory_id and out[2].existing_id == items[1].memory.id
    created = [o.memory_id for o in out if o.status == "created"]
    for mid in created:
        (event,) = pg_store.history(mid, scope=scope).items
        assert (event.action, event.actor, event.reason) == ("create", "importer", "migration")
        assert event.after is not None and event.after["id"] == str(mid)
        assert event.after["embedding_model"] == PG_TEST_MODEL
    assert pg_store.count(scope=scope) == 1 + len(created)
    assert pg_store.events(scope=scope).total == 1 + len(created)
    got = pg_store.get(items[3].memory.id, scope=scope)
    assert got.user_id == "u1" and got.content == "new fact"
    hits = pg_store.keyword_search(["fact"], scope=scope, k=10)
    assert {c.memory.id for c in hits} == {old.memory_id, items[1].memory.id, items[3].memory.id}
    assert _hnsw_index(pg_store) is not None
    assert pg_store.bulk_insert([], scope=scope, actor="t") == []


def test_bulk_insert_checks_every_item_and_writes_nothing_on_error(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(22)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)

    def items() -> Iterator[NewMemory]:
        yield _item(tenant, "fine one", rng)
        yield _item(tenant, "fine two", rng)
        yield _item(new_tenant_id(), "intruder", rng)

    with pytest.raises(TenantScopeError):
        pg_store.bulk_insert(items(), scope=scope, actor="t")
    assert pg_store.count(scope=scope) == 0
    assert pg_store.events(scope=scope).total == 0


def test_rebuild_keeps_the_index_after_success_and_failure(
    pg_store_factory: Callable[..., PostgresStore],
    caplog: pytest.LogCaptureFixture,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    store = pg_store_factory()
    store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
    before = _hnsw_index(store)
    assert before is not None
    rng = np.random.default_rng(23)
    tenant = new_tenant_id()
    scope = Scope.of(tenant)
    caplog.set_level(logging.INFO, logger="memory_engine.stores.postgres.store")
    monkeypatch.setattr(pg_bulk, "REBUILD_MIN_ROWS", 20)
    monkeypatch.setattr(pg_bulk, "VACUUM_MIN_ROWS", 20)
    out = store.bulk_insert(
        (_item(tenant, f"row {i}", rng) for i in range(60)), scope=scope, actor="t"
    )
    assert [o.status for o in out] == ["created"] * 60
    assert any("HNSW index rebuilt" in r.getMessage() for r in caplog.records)
    assert _hnsw_index(store) == before
    # The rebuilt index is valid and the planner can use it for the tenant's rows.
    with store.conn.tx(scope) as cur:
        cur.execute("SET LOCAL enable_seqscan = off")
        cur.execute("SET LOCAL enable_sort = off")
        q = np.asarray(_vec(rng), dtype=np.float32)
        plan = explain_dense(cur, q, scope=scope, k=5, statuses=["active"], exact=False)
    assert "memories_embedding_hnsw" in plan
    assert len(store.dense_search(_vec(rng), scope=scope, k=5)) == 5

    # A failing import (same id twice) with a forced rebuild: nothing written, index kept.
    dup = _item(tenant, "twin a", rng)
    twin = NewMemory(
        memory=dup.memory.model_copy(update={"content": "twin b", "content_hash": "twin b"}),
        embedding=dup.embedding,
    )
    with pytest.raises(InvalidInputError, match="id already exists"):
        store.bulk_insert([dup, twin], scope=scope, actor="t", rebuild_index=True)
    assert _hnsw_index(store) == before
    assert store.count(scope=scope) == 60
    caplog.clear()
    # Small batch relative to the table: the index is kept and updated row by row.
    monkeypatch.setattr(pg_bulk, "REBUILD_MIN_ROWS", 1000)
    store.bulk_insert([_item(tenant, "one more", rng)], scope=scope, actor="t")
    assert any("HNSW index kept" in r.getMessage() for r in caplog.records)
    assert _hnsw_index(store) == before


def test_should_rebuild() -> None:
    assert pg_bulk.should_rebuild(5000, 0)
    assert pg_bulk.should_rebuild(5000, 20_000)
    assert not pg_bulk.should_rebuild(5000, 100_000)
    assert not pg_bulk.should_rebuild(pg_bulk.REBUILD_MIN_ROWS - 1, 0)


class _HashEmbedder:
    """Deterministic unit vectors; fails on texts containing ``FAIL``."""

    model_name = "bulk-test-hash"
    dim = PG_TEST_DIM
    max_input_chars = 10_000

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any("FAIL" in t for t in texts):
            raise EmbeddingError("embedder failed", model=self.model_name)
        out = []
        for t in texts:
            seed = int.from_bytes(hashlib.sha256(t.encode()).digest()[:8], "little")
            v = np.random.default_rng(seed).normal(size=self.dim)
            out.append((v / np.linalg.norm(v)).tolist())
        return out


def test_write_batch_uses_the_bulk_path_for_large_batches(
    pg_store_factory: Callable[..., PostgresStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    store = pg_store_factory(embedding_batch_size=4)
    embedder = _HashEmbedder()
    store.ensure_embedding(embedder.model_name, embedder.dim)
    monkeypatch.setattr(raw, "BULK_MIN_MEMORIES", 5)
    calls: list[int] = []
    real = store.bulk_insert

    def spy(items: Any, **kw: Any) -> Any:
        calls.append(1)
        return real(items, **kw)

    monkeypatch.setattr(store, "bulk_insert", spy)
    # Groups of 4 memories: [FAIL, f0, f1, f2] fails to embed, [f3..f6], [f7, f8, f9, f3 again].
    texts = ["FAIL here"] + [f"fact number {i}" for i in range(10)] + ["fact number 3", ""]
    progress: list[int] = []
    scope = Scope.of(new_tenant_id())
    results = _raw_batch(store, embedder, texts, scope, progress=progress.append)
    assert calls == [1]
    assert [r.ok for r in results] == [False] * 4 + [True] * 8 + [False]
    assert {r.error["error"] for r in results[:4] if r.error} == {"embedding_error"}
    assert all(r.outcomes[0].status == "created" for r in results[4:11])
    assert results[11].outcomes[0].status == "duplicate"
    assert results[11].outcomes[0].existing_id == results[4].outcomes[0].memory_id
    assert store.count(scope=scope) == 7
    assert progress and progress[-1] == 12  # the empty text failed before embedding
    ids = {r.outcomes[0].memory_id for r in results[4:11]}
    assert {c.memory.id for c in store.keyword_search(["fact"], scope=scope, k=20)} == ids


def test_bulk_load_of_several_tenants_is_one_transaction(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(33)
    a, b = new_tenant_id(), new_tenant_id()
    pg_store.insert([_item(b, "old fact of b", rng)], scope=Scope.of(b), actor="t")
    batch_a = [_item(a, "shared text", rng), _item(a, "only in a", rng), _item(a, "only in a", rng)]
    batch_b = [_item(b, "shared text", rng), _item(b, "old fact of b", rng)]
    out = pg_store.bulk_load(
        [(Scope.of(a), iter(batch_a)), (Scope.of(b), iter([])), (Scope.of(b), iter(batch_b))],
        actor="importer",
        rebuild_index=True,
    )
    assert [[o.status for o in batch] for batch in out] == [
        ["created", "created", "duplicate"],
        [],
        ["created", "duplicate"],  # the same text in another tenant is not a duplicate
    ]
    assert pg_store.count(scope=Scope.of(a)) == 2 and pg_store.count(scope=Scope.of(b)) == 2
    created_a = {e.memory_id for e in pg_store.events(scope=Scope.of(a)).items}
    assert created_a == {batch_a[0].memory.id, batch_a[1].memory.id}
    hits = pg_store.keyword_search(["shared"], scope=Scope.of(b), k=5)
    assert [c.memory.id for c in hits] == [batch_b[0].memory.id]  # tenant b sees only its own
    assert _hnsw_index(pg_store) is not None  # rebuilt in the same transaction

    # A bad item in the second tenant's batch: nothing of either batch is written.
    c, d = new_tenant_id(), new_tenant_id()
    bad = _item(d, "wrong tenant", rng).model_copy(
        update={"memory": _item(c, "wrong tenant", rng).memory}
    )
    with pytest.raises(TenantScopeError):
        pg_store.bulk_load(
            [(Scope.of(c), iter([_item(c, "fine", rng)])), (Scope.of(d), iter([bad]))],
            actor="importer",
        )
    assert pg_store.count(scope=Scope.of(c)) == 0 and pg_store.count(scope=Scope.of(d)) == 0


def test_bulk_load_two_batches_of_one_tenant(pg_store: PostgresStore) -> None:
    """One batch per user of a tenant: each batch gets its own outcomes, every row is written
    once with one create event (the batches were mixed up by tenant before)."""
    rng = np.random.default_rng(5)
    t = new_tenant_id()
    first = [_item(t, "alpha fact", rng, user_id="u1"), _item(t, "beta fact", rng, user_id="u1")]
    second = [_item(t, "gamma fact", rng, user_id="u2")]
    out = pg_store.bulk_load(
        [(Scope.of(t, user_id="u1"), iter(first)), (Scope.of(t, user_id="u2"), iter(second))],
        actor="importer",
    )
    assert [[o.memory_id for o in b] for b in out] == [
        [i.memory.id for i in first],
        [i.memory.id for i in second],
    ]
    assert [[o.status for o in b] for b in out] == [["created", "created"], ["created"]]
    assert pg_store.count(scope=Scope.of(t)) == 3
    events = [e for e in pg_store.events(scope=Scope.of(t)).items if e.action == "create"]
    assert len(events) == 3


def test_bulk_load_two_batches_of_one_tenant_with_archived_rows(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(6)
    t = new_tenant_id()
    first = [_item(t, "held for review", rng, status=MemoryStatus.ARCHIVED)]
    second = [_item(t, "another one", rng, status=MemoryStatus.ARCHIVED)]
    out = pg_store.bulk_load(
        [(Scope.of(t), iter(first)), (Scope.of(t), iter(second))], actor="importer"
    )
    assert [[o.status for o in b] for b in out] == [["created"], ["created"]]


class _OtherModelEmbedder(_HashEmbedder):
    model_name = "another-model"


def test_write_batch_bulk_path_store_refusal_fails_every_request(
    pg_store_factory: Callable[..., PostgresStore], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The store refuses the bulk transaction after reading only some items (here the first:
    another embedding model than the store's): nothing is stored, so every request must get
    the error, not only the ones streamed before the refusal (the rest were reported written
    with no memory)."""
    store = pg_store_factory(embedding_batch_size=2)
    store.ensure_embedding(_HashEmbedder.model_name, _HashEmbedder.dim)
    monkeypatch.setattr(raw, "BULK_MIN_MEMORIES", 5)
    scope = Scope.of(new_tenant_id())
    texts = [f"fact number {i}" for i in range(8)]
    results = _raw_batch(store, _OtherModelEmbedder(), texts, scope)
    assert store.count(scope=scope) == 0
    assert [r.ok for r in results] == [False] * 8


class _LegEmbedder(_HashEmbedder):
    """A second model (the multilingual leg): 24-d vectors; fails on texts with ``NOLEG``."""

    model_name = "bulk-test-leg"
    dim = 24

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if any("NOLEG" in t for t in texts):
            raise EmbeddingError("leg embedder failed", model=self.model_name)
        return super().embed([f"leg|{t}" for t in texts])


def _leg_index(store: PostgresStore) -> str | None:
    with psycopg.connect(_url(store)) as conn:
        row = conn.execute(
            "SELECT i.indexdef FROM pg_indexes i JOIN pg_index x ON x.indexrelid = "
            "(quote_ident(i.schemaname) || '.' || quote_ident(i.indexname))::regclass "
            "WHERE i.indexname = 'memories_embedding_ml_hnsw' AND x.indisvalid AND x.indisready"
        ).fetchone()
    return str(row[0]) if row else None


def test_write_batch_bulk_path_writes_the_leg_vectors_with_the_rows(
    pg_store_factory: Callable[..., PostgresStore],
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    """The bulk path carries each memory's leg vector in its row (one COPY, one INSERT); a
    rebuild drops and rebuilds the leg's HNSW index with the primary one; a leg that fails
    to embed leaves those memories without it, written all the same."""
    store = pg_store_factory(embedding_batch_size=4)
    embedder, leg = _HashEmbedder(), _LegEmbedder()
    store.legs.ensure_leg("dense_ml", leg.model_name, leg.dim)
    store.ensure_embedding(embedder.model_name, embedder.dim)
    leg_index = _leg_index(store)
    assert leg_index is not None
    monkeypatch.setattr(raw, "BULK_MIN_MEMORIES", 5)
    monkeypatch.setattr(raw, "EMBED_WINDOW_MEMORIES", 8)
    monkeypatch.setattr(pg_bulk, "REBUILD_MIN_ROWS", 5)
    caplog.set_level(logging.INFO, logger="memory_engine.stores.postgres.store")
    texts = [f"事实 {i} fact" for i in range(8)] + [f"NOLEG {i}" for i in range(4)]
    scope = Scope.of(new_tenant_id())
    results = _raw_batch(store, embedder, texts, scope, legs={"dense_ml": leg})
    assert all(r.ok for r in results)
    assert any("HNSW index rebuilt" in r.getMessage() for r in caplog.records)
    assert _leg_index(store) == leg_index
    ids = [r.outcomes[0].memory_id for r in results]
    got = store.legs.leg_vectors("dense_ml", ids, scope=scope)
    assert set(got) == set(ids[:8])  # the failed window's memories have no leg vector
    for mid, vec in zip(ids[:8], leg.embed(texts[:8]), strict=True):
        assert np.allclose(got[mid], vec, atol=1e-5)
    hits = store.legs.leg_search("dense_ml", leg.embed([texts[3]])[0], scope=scope, k=1)
    assert [h.memory.id for h in hits] == [ids[3]]
    assert store.count(scope=scope) == 12
