"""Conformance of the extra dense legs (``store.legs``, ``VectorLegs``) and of the in-place
re-embedding (``stores.reembed``) on every store.

Vectors come from a small deterministic embedder (a hashed bag of characters): each text has a
fixed vector, so a memory searched with its own text comes first, and two embedders with
different seeds and sizes stand for two models.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
import pytest

from memory_engine.errors import EmbeddingError, InvalidInputError, LegUnavailableError
from memory_engine.models import MemoryStatus, Scope
from memory_engine.stores.base import STAGING_LEG, LegRecord, MemoryStore, VectorLegs
from memory_engine.stores.reembed import reembed_store
from tests.conformance.conftest import DIM, MODEL
from tests.conformance.helpers import ids, item, put

LEG = "dense_ml"


class HashEmbedder:
    """Deterministic unit vectors from the character trigrams of a text (a stand-in model)."""

    max_input_chars = 2000

    def __init__(self, name: str, dim: int, *, fail_after: int | None = None) -> None:
        self.model_name, self.dim = name, dim
        self.calls = 0
        self.fail_after = fail_after

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        self.calls += 1
        if self.fail_after is not None and self.calls > self.fail_after:
            raise EmbeddingError("stopped on purpose", model=self.model_name)
        out = []
        for text in texts:
            v = np.zeros(self.dim)
            for i in range(max(1, len(text) - 2)):
                h = hashlib.blake2b(f"{self.model_name}|{text[i : i + 3]}".encode()).digest()
                v[int.from_bytes(h[:4], "little") % self.dim] += 1.0 if h[4] & 1 else -1.0
            v = v if np.linalg.norm(v) else np.ones(self.dim)
            out.append((v / np.linalg.norm(v)).tolist())
        return out


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
    with pytest.raises(InvalidInputError):
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
