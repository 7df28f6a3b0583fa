"""Conformance of the extra dense legs (``store.legs``, ``VectorLegs``) and of the in-place
re-embedding (``stores.reembed``) on every store.

Vectors come from a small deterministic embedder (a hashed bag of characters): each text has a
fixed vector, so a memory searched with its own text comes first, and two embedders with
different seeds and sizes stand for two models.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
import pytest

from memory_engine.errors import (
    EmbeddingError,
    EmbeddingMismatchError,
    InvalidInputError,
    LegUnavailableError,
)
from memory_engine.models import MemoryStatus, Scope
from memory_engine.stores.base import STAGING_LEG, LegRecord, MemoryStore, VectorLegs
from memory_engine.stores.reembed import reembed_store
from tests.conformance.conftest import DIM, MODEL
from tests.conformance.helpers import ids, item, put
from tests.support.hash_embedder import HashEmbedder

LEG = "dense_ml"


TEXTS = [
    "我对花生过敏，吃了会起疹子。",
    "The database password rotates every ninety days.",
    "周末我们去了西湖划船。",
    "Team lunch is on Friday at noon.",
    "我喜欢喝乌龙茶，不太喜欢咖啡。",
    "The office plants need water on Mondays.",
]


def _legs(store: MemoryStore) -> VectorLegs:
    legs = getattr(store, "legs", None)
    assert isinstance(legs, VectorLegs)
    return legs


def _fill(store: MemoryStore, scope: Scope, primary: HashEmbedder) -> list:
    vecs = primary.embed(TEXTS)
    return put(
        store,
        scope,
        *[item(scope.tenant_id, t, np.array(v)) for t, v in zip(TEXTS, vecs, strict=True)],
    )


def test_leg_recorded_on_a_new_store_is_ready_and_searched(store_factory) -> None:
    store = store_factory.new()
    legs = _legs(store)
    ml = HashEmbedder("ml-model", 24)
    record = legs.ensure_leg(LEG, ml.model_name, ml.dim)
    assert record == LegRecord(leg=LEG, model="ml-model", dim=24, state="ready")
    store.ensure_embedding(MODEL, DIM)
    a, b = Scope.of("legs-a"), Scope.of("legs-b")
    mine = _fill(store, a, HashEmbedder(MODEL, DIM))
    theirs = _fill(store, b, HashEmbedder(MODEL, DIM))
    vectors = dict(zip(mine, ml.embed(TEXTS), strict=True))
    assert legs.set_leg_vectors(LEG, vectors, scope=a) == len(TEXTS)
    # another tenant's ids are skipped, never written
    assert legs.set_leg_vectors(LEG, dict(zip(theirs, ml.embed(TEXTS), strict=True)), scope=a) == 0
    assert legs.leg_counts(LEG, scope=a) == (len(TEXTS), len(TEXTS))
    assert legs.leg_counts(LEG, scope=b) == (0, len(TEXTS))
    for mid, text in zip(mine, TEXTS, strict=True):
        hits = legs.leg_search(LEG, ml.embed([text])[0], scope=a, k=3)
        assert ids(hits)[0] == mid
        assert hits[0].scores["cosine"] == pytest.approx(1.0, abs=1e-4)
        assert all(h.memory.tenant_id == "legs-a" for h in hits)
    assert legs.leg_search(LEG, ml.embed([TEXTS[0]])[0], scope=b, k=3) == []  # none filled
    assert {r for r in legs.leg_records()} == {LEG}
    # a reopened store keeps the leg, its state and its vectors
    again = store_factory.reopen(store)
    assert _legs(again).leg_records()[LEG].state == "ready"
    assert ids(_legs(again).leg_search(LEG, ml.embed([TEXTS[2]])[0], scope=a, k=1)) == [mine[2]]


def test_leg_vectors_are_checked_and_cleared_when_the_content_changes(store_factory) -> None:
    store = store_factory.new()
    legs = _legs(store)
    ml = HashEmbedder("ml-model", 24)
    legs.ensure_leg(LEG, ml.model_name, ml.dim)
    store.ensure_embedding(MODEL, DIM)
    scope = Scope.of("legs-edit")
    primary = HashEmbedder(MODEL, DIM)
    mine = _fill(store, scope, primary)
    with pytest.raises(InvalidInputError):
        legs.set_leg_vectors(LEG, {mine[0]: [1.0] * 5}, scope=scope)  # wrong dimension
    with pytest.raises(InvalidInputError):
        legs.ensure_leg("dense_unknown", "x", 3)
    legs.set_leg_vectors(LEG, dict(zip(mine, ml.embed(TEXTS), strict=True)), scope=scope)
    assert legs.leg_missing(LEG, scope=scope) == []
    with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed"):
        legs.leg_search(LEG, [1.0] * 5, scope=scope, k=1)  # a query of another model
    current = store.get(mine[1], scope=scope)
    store.update(
        mine[1],
        scope=scope,
        expected_version=current.version,
        changes={"content": "The password rotates monthly now."},
        embedding=primary.embed(["The password rotates monthly now."])[0],
        actor="test",
    )
    # the old text's leg vector is gone (never searched stale); the memory waits for a refill
    assert legs.leg_missing(LEG, scope=scope) == [(mine[1], "The password rotates monthly now.")]
    assert legs.leg_counts(LEG, scope=scope) == (len(TEXTS) - 1, len(TEXTS))


def test_reembed_fills_a_leg_added_to_an_existing_store(store_factory) -> None:
    """A store made before the leg (one vector per memory) keeps working; the re-embedding
    adds the leg (PostgreSQL: its column; Qdrant: a rebuilt collection) and makes it ready."""
    store = store_factory.new()
    store.ensure_embedding(MODEL, DIM)
    primary, ml = HashEmbedder(MODEL, DIM), HashEmbedder("ml-model", 24)
    scopes = [Scope.of("old-a"), Scope.of("old-b")]
    made = {s.tenant_id: _fill(store, s, primary) for s in scopes}
    legs = _legs(store)
    try:
        assert legs.ensure_leg(LEG, ml.model_name, ml.dim).state == "filling"
    except LegUnavailableError:
        pass  # Qdrant: the collection has no such vector until the rebuild
    # a crash in the middle (the embedder fails after one batch): nothing half-recorded
    broken = HashEmbedder("ml-model", 24, fail_after=1)
    with pytest.raises(EmbeddingError):
        reembed_store(
            store, primary=primary, legs={LEG: broken}, tenants=["old-a", "old-b"],
            all_tenants=True, batch=2,
        )  # fmt: skip
    assert legs.leg_records()[LEG].state == "filling"
    assert store.dense_search(primary.embed([TEXTS[0]])[0], scope=scopes[0], k=1)  # still works
    runs = reembed_store(
        store, primary=primary, legs={LEG: ml}, tenants=["old-a", "old-b"], all_tenants=True,
        batch=2,
    )  # fmt: skip
    assert [r.leg for r in runs] == [LEG] and runs[0].ok
    assert runs[0].embedded <= 2 * len(TEXTS) - 2  # the batch done before the crash is kept
    assert legs.leg_records()[LEG].state == "ready"
    for s in scopes:
        assert legs.leg_counts(LEG, scope=s) == (len(TEXTS), len(TEXTS))
        hits = legs.leg_search(LEG, ml.embed([TEXTS[4]])[0], scope=s, k=1)
        assert ids(hits) == [made[s.tenant_id][4]]
        # the primary vectors, payloads and keyword terms survived
        assert ids(store.dense_search(primary.embed([TEXTS[3]])[0], scope=s, k=1)) == [
            made[s.tenant_id][3]
        ]
        assert made[s.tenant_id][1] in ids(store.keyword_search(["database"], scope=s, k=3))
    again = reembed_store(
        store, primary=primary, legs={LEG: ml}, tenants=["old-a", "old-b"], all_tenants=True
    )
    assert again[0].action == "unchanged" and again[0].embedded == 0


def test_reembed_switches_the_primary_embedder_in_one_step(store_factory) -> None:
    store = store_factory.new()
    store.ensure_embedding(MODEL, DIM)
    old, new = HashEmbedder(MODEL, DIM), HashEmbedder("new-model", 20)
    scope = Scope.of("switch")
    made = _fill(store, scope, old)
    store.insert(
        [item("switch", "archived note about tea", np.array(old.embed(["x"])[0]),
              status=MemoryStatus.ARCHIVED)],
        scope=scope, actor="test",
    )  # fmt: skip
    with pytest.raises(InvalidInputError):
        reembed_store(store, primary=new, legs={}, tenants=["switch"], all_tenants=False)
    with pytest.raises(InvalidInputError):
        _legs(store).commit_primary("new-model", 20)  # nothing staged yet
    crashing = HashEmbedder("new-model", 20, fail_after=1)
    with pytest.raises(EmbeddingError):
        reembed_store(store, primary=crashing, legs={}, tenants=["switch"], all_tenants=True,
                      batch=3)  # fmt: skip
    # killed before the switch: the store still holds and searches the old vectors
    assert store.embedding_info() == (MODEL, DIM)
    assert ids(store.dense_search(old.embed([TEXTS[2]])[0], scope=scope, k=1)) == [made[2]]
    runs = reembed_store(store, primary=new, legs={}, tenants=["switch"], all_tenants=True, batch=3)
    assert runs[0].leg == "dense" and runs[0].action == "switched" and runs[0].ok
    assert store.embedding_info() == ("new-model", 20)
    assert STAGING_LEG not in _legs(store).leg_records()
    for mid, text in zip(made, TEXTS, strict=True):
        assert ids(store.dense_search(new.embed([text])[0], scope=scope, k=1)) == [mid]
    assert store.get(made[0], scope=scope).embedding_model == "new-model"
    with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed"):
        store.dense_search(old.embed([TEXTS[0]])[0], scope=scope, k=1)  # the old dimension
    # the store keeps the switch across a reopen
    again = store_factory.reopen(store)
    assert again.embedding_info() == ("new-model", 20)


def test_leg_vectors_reads_back_the_tenants_stored_vectors(store_factory) -> None:
    store = store_factory.new()
    legs = _legs(store)
    ml = HashEmbedder("ml-model", 24)
    a, b = Scope.of("legs-read-a"), Scope.of("legs-read-b")
    assert legs.leg_vectors(LEG, [], scope=a) == {}
    legs.ensure_leg(LEG, ml.model_name, ml.dim)
    store.ensure_embedding(MODEL, DIM)
    primary = HashEmbedder(MODEL, DIM)
    mine, theirs = _fill(store, a, primary), _fill(store, b, primary)
    wanted = dict(zip(mine[:4], ml.embed(TEXTS[:4]), strict=True))
    legs.set_leg_vectors(LEG, wanted, scope=a)
    legs.set_leg_vectors(LEG, dict(zip(theirs, ml.embed(TEXTS), strict=True)), scope=b)
    got = legs.leg_vectors(LEG, [*mine, *theirs], scope=a)
    assert set(got) == set(mine[:4])  # without a vector, or another tenant's: left out
    for mid, vec in wanted.items():
        assert np.allclose(got[mid], vec, atol=1e-5)
    with pytest.raises(InvalidInputError):
        legs.leg_vectors("dense_unknown", mine, scope=a)


def test_leg_vectors_travel_in_the_insert(store_factory) -> None:
    """A new memory's leg vectors (``NewMemory.legs``) are written by its insert: searched
    on the leg and read back right after, for a few rows and a batch large enough for the
    store's bulk statement; a bad leg vector refuses the whole insert."""
    store = store_factory.new()
    legs = _legs(store)
    ml = HashEmbedder("ml-model", 24)
    legs.ensure_leg(LEG, ml.model_name, ml.dim)
    store.ensure_embedding(MODEL, DIM)
    scope = Scope.of("legs-insert")
    primary = HashEmbedder(MODEL, DIM)
    many = [f"{t} #{i}" for i in range(12) for t in TEXTS]  # 72 rows: one large batch

    def with_legs(texts: list[str], leg_vectors: list[list[float]]) -> list:
        base = [
            item(scope.tenant_id, t, np.array(v))
            for t, v in zip(texts, primary.embed(texts), strict=True)
        ]
        return [
            b.model_copy(update={"legs": {LEG: tuple(v)}})
            for b, v in zip(base, leg_vectors, strict=True)
        ]

    few = put(store, scope, *with_legs(TEXTS, ml.embed(TEXTS)))
    batch = put(store, scope, *with_legs(many, ml.embed(many)))
    assert legs.leg_counts(LEG, scope=scope) == (len(TEXTS) + len(many),) * 2
    assert legs.leg_missing(LEG, scope=scope) == []
    got = legs.leg_vectors(LEG, [*few, *batch[:5]], scope=scope)
    for mid, vec in zip([*few, *batch[:5]], ml.embed([*TEXTS, *many[:5]]), strict=True):
        assert np.allclose(got[mid], vec, atol=1e-5)
    for mid, text in zip(few, TEXTS, strict=True):
        assert ids(legs.leg_search(LEG, ml.embed([text])[0], scope=scope, k=1)) == [mid]
    # a memory inserted without leg vectors has none (found by the other legs only)
    (plain,) = put(store, scope, item(scope.tenant_id, "没有第二个向量。", np.ones(DIM)))
    assert legs.leg_vectors(LEG, [plain], scope=scope) == {}
    bad = [
        with_legs(["wrong size"], [[1.0] * 5])[0],  # another dimension than the record
        with_legs(["unknown leg"], ml.embed(["x"]))[0].model_copy(
            update={"legs": {"dense_unknown": tuple(ml.embed(["x"])[0])}}
        ),
        with_legs(["staging leg"], ml.embed(["x"]))[0].model_copy(
            update={"legs": {STAGING_LEG: tuple(ml.embed(["x"])[0])}}
        ),
    ]
    for one in bad:
        before = store.stats(scope=scope).total
        with pytest.raises(InvalidInputError):
            store.insert([with_legs(["fine"], ml.embed(["fine"]))[0], one], scope=scope, actor="t")
        assert store.stats(scope=scope).total == before  # nothing of the insert written


class _RacingLegs:
    """The store's legs part with a write landing just before the leg is marked ready: a new
    memory without the leg's vector (its writer's leg embedder failed), the race
    ``reembed_store`` must not leave behind a ready leg."""

    def __init__(self, legs: VectorLegs, write: object) -> None:
        self._legs, self._write = legs, write

    def __getattr__(self, name: str) -> object:
        return getattr(self._legs, name)

    def set_leg_state(self, leg: str, state: str) -> None:
        if state == "ready":
            self._write()  # type: ignore[operator]
        self._legs.set_leg_state(leg, state)  # type: ignore[arg-type]


class _StoreView:
    def __init__(self, store: MemoryStore, legs: _RacingLegs) -> None:
        self._store, self.legs = store, legs

    def __getattr__(self, name: str) -> object:
        return getattr(self._store, name)


def test_a_write_between_the_verification_and_the_ready_mark_gets_its_vector(
    store_factory,
) -> None:
    store = store_factory.new()
    store.ensure_embedding(MODEL, DIM)
    primary, ml = HashEmbedder(MODEL, DIM), HashEmbedder("ml-model", 24)
    scope = Scope.of("late-write")
    _fill(store, scope, primary)
    legs = _legs(store)
    try:
        legs.ensure_leg(LEG, ml.model_name, ml.dim)
    except LegUnavailableError:
        pass  # Qdrant: rebuilt by the run
    late_text = "会议改到周四下午三点。"
    written: list = []

    def racing_write() -> None:
        vec = np.array(primary.embed([late_text])[0])
        written.extend(put(store, scope, item(scope.tenant_id, late_text, vec)))

    racing = _StoreView(store, _RacingLegs(_legs(store), racing_write))
    runs = reembed_store(
        racing, primary=primary, legs={LEG: ml}, tenants=[scope.tenant_id], all_tenants=True
    )
    assert written and runs[0].ok
    assert _legs(store).leg_records()[LEG].state == "ready"
    assert _legs(store).leg_counts(LEG, scope=scope) == (len(TEXTS) + 1, len(TEXTS) + 1)
    assert runs[0].verified[scope.tenant_id]["late"] == 1
    hits = _legs(store).leg_search(LEG, ml.embed([late_text])[0], scope=scope, k=1)
    assert ids(hits) == written


class _WritesATenantMidRun(HashEmbedder):
    """An embedder whose first call stands for another process writing a new tenant's first
    memories (with the old primary vectors, no leg vectors) while the re-embedding runs."""

    def __init__(self, name: str, dim: int, *, store: MemoryStore, tenant: str) -> None:
        super().__init__(name, dim)
        self._store, self._tenant = store, tenant
        self.written: list = []

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        if not self.written:
            self.written = _fill(self._store, Scope.of(self._tenant), HashEmbedder(MODEL, DIM))
        return super().embed(texts)


def _every_tenant(store: MemoryStore) -> Callable[[], list[str]]:
    return lambda: store.admin_tenant_ids(actor="test", reason="reembed tenants")


def test_a_tenant_created_during_a_leg_fill_is_filled_before_the_leg_is_ready(
    store_factory,
) -> None:
    store = store_factory.new()
    store.ensure_embedding(MODEL, DIM)
    _fill(store, Scope.of("early"), HashEmbedder(MODEL, DIM))
    ml = _WritesATenantMidRun("ml-model", 24, store=store, tenant="late-tenant-ml")
    runs = reembed_store(
        store, primary=HashEmbedder(MODEL, DIM), legs={LEG: ml}, tenants=["early"],
        all_tenants=True, batch=2, list_tenants=_every_tenant(store),
    )  # fmt: skip
    late = Scope.of("late-tenant-ml")
    assert ml.written and runs[0].ok and set(runs[0].verified) == {"early", "late-tenant-ml"}
    assert _legs(store).leg_records()[LEG].state == "ready"
    assert _legs(store).leg_counts(LEG, scope=late) == (len(TEXTS), len(TEXTS))
    hits = _legs(store).leg_search(LEG, HashEmbedder("ml-model", 24).embed([TEXTS[2]])[0],
                                   scope=late, k=1)  # fmt: skip
    assert ids(hits) == [ml.written[2]]


def test_a_tenant_created_during_a_primary_switch_is_switched_too(store_factory) -> None:
    store = store_factory.new()
    store.ensure_embedding(MODEL, DIM)
    _fill(store, Scope.of("early"), HashEmbedder(MODEL, DIM))
    new = _WritesATenantMidRun("new-model", 20, store=store, tenant="late-tenant")
    runs = reembed_store(
        store, primary=new, legs={}, tenants=["early"], all_tenants=True, batch=2,
        list_tenants=_every_tenant(store),
    )  # fmt: skip
    assert new.written and runs[0].action == "switched" and runs[0].ok
    assert "late-tenant" in runs[0].verified
    assert store.embedding_info() == ("new-model", 20)
    plain = HashEmbedder("new-model", 20)
    late = Scope.of("late-tenant")
    for mid, text in zip(new.written, TEXTS, strict=True):
        assert ids(store.dense_search(plain.embed([text])[0], scope=late, k=1)) == [mid]
