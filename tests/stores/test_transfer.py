"""``memory-engine copy`` and :mod:`memory_engine.stores.transfer` on real stores: the embedded
PostgreSQL (a fresh database per store) and Qdrant local mode (a fresh folder per store)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from memory_engine.cli.app import app
from memory_engine.errors import EmbeddingMismatchError, TransferConflictError
from memory_engine.models import MemoryStatus, Scope
from memory_engine.stores.base import MemoryStore, VectorLegs
from memory_engine.stores.record_compare import record_differences
from memory_engine.stores.transfer import copy_stores, copy_tenant, verify_tenant
from tests.conformance.helpers import item, put, unit
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL, new_tenant_id, open_qdrant_store


def _fill(store: MemoryStore, tenant: str, rng: np.random.Generator, n: int = 6) -> list[Any]:
    """n memories (Chinese and English); #0 updated twice, #1 archived, #2 purged."""
    store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
    s = Scope.of(tenant, user_id="u1")
    texts = [f"fact {i}: 用户喜欢喝茶 and hiking trip {i}" for i in range(n)]
    mids = put(store, s, *(item(tenant, t, unit(rng)) for t in texts))
    m = store.update(
        mids[0], scope=s, expected_version=1, changes={"importance": 0.9}, actor="ed", reason="r1"
    )
    store.update(mids[0], scope=s, expected_version=m.version, changes={"tags": ("x",)}, actor="ed")
    store.update(
        mids[1],
        scope=s,
        expected_version=1,
        changes={"status": MemoryStatus.ARCHIVED},
        actor="job",
        action="archive",
    )
    store.purge(mids[2], scope=s, actor="user", reason="forget")
    return mids


@pytest.fixture
def rng() -> np.random.Generator:
    return np.random.default_rng(7)


@pytest.fixture
def qdrant_folder_store(
    qdrant_settings_factory: Callable[..., Any],
) -> Callable[[], MemoryStore]:
    made: list[MemoryStore] = []

    def make() -> MemoryStore:
        store: MemoryStore = open_qdrant_store(qdrant_settings_factory("qdrant_path"))
        made.append(store)
        return store

    yield make  # type: ignore[misc]
    for store in made:
        store.close()


def _all_records(store: MemoryStore, tenant: str) -> dict[uuid.UUID, Any]:
    scope = Scope.of(tenant)
    ids = list(store.record_ids(scope=scope, limit=500).items)
    return {r.memory_id: r for r in store.read_records(ids, scope=scope)}


def _same(a: MemoryStore, b: MemoryStore, tenant: str) -> None:
    ra, rb = _all_records(a, tenant), _all_records(b, tenant)
    assert ra.keys() == rb.keys() and ra
    for mid, rec in ra.items():
        assert record_differences(rec, rb[mid]) == [], mid


def test_copy_tenant_pg_to_qdrant_and_back(
    pg_store_factory: Callable[..., Any],
    qdrant_folder_store: Callable[[], MemoryStore],
    rng: np.random.Generator,
) -> None:
    pg = pg_store_factory()
    tenant, other = new_tenant_id("a"), new_tenant_id("b")
    _fill(pg, tenant, rng)
    _fill(pg, other, rng, n=3)
    qd = qdrant_folder_store()
    seen: list[tuple[str, str, int, int]] = []
    report = copy_stores(pg, qd, tenants=[tenant], batch=2, progress=lambda *a: seen.append(a))
    assert report["ok"] is True
    entry = report["tenants"][tenant]
    assert entry["copy"]["copied"] == 6 and entry["copy"]["unchanged"] == 0
    assert entry["copy"]["events_copied"] == 6 + 2 + 1 + 1
    assert entry["verify"]["source"] == entry["verify"]["target"]
    assert entry["verify"]["source"]["by_status"] == {"active": 4, "archived": 1}
    assert seen[-1] == (tenant, "verify", 6, 6) and (tenant, "copy", 6, 6) in seen
    assert qd.embedding_info() == (PG_TEST_MODEL, PG_TEST_DIM)
    assert qd.record_ids(scope=Scope.of(other), limit=10).items == []  # only the asked tenant
    _same(pg, qd, tenant)
    # and back into a fresh PostgreSQL database
    pg2 = pg_store_factory()
    back = copy_stores(qd, pg2, tenants=[tenant])
    assert back["ok"] and back["totals"]["copied"] == 6
    _same(pg, pg2, tenant)
    s = Scope.of(tenant)
    (mid0,) = [m.id for m in pg.list(scope=s).items if m.version == 3]
    assert [e.actor for e in pg2.history(mid0, scope=s).items] == ["test", "ed", "ed"]
    assert pg2.get(mid0, scope=s).updated_at == pg.get(mid0, scope=s).updated_at


def test_copy_every_tenant_and_rerun_is_idempotent(
    pg_store_factory: Callable[..., Any],
    qdrant_folder_store: Callable[[], MemoryStore],
    rng: np.random.Generator,
) -> None:
    pg = pg_store_factory()
    tenants = [new_tenant_id("x"), new_tenant_id("y")]
    for t in tenants:
        _fill(pg, t, rng, n=4)
    gone = new_tenant_id("gone")  # a tenant whose only memory was purged
    (mid,) = put(pg, Scope.of(gone), item(gone, "purged soon", unit(rng)))
    pg.purge(mid, scope=Scope.of(gone), actor="t")
    qd = qdrant_folder_store()
    report = copy_stores(pg, qd)
    assert set(report["tenants"]) == {*tenants, gone}
    assert report["ok"] and report["totals"]["copied"] == 4 + 4 + 1
    assert report["totals"]["tenants"] == 3
    assert [e.action.value for e in qd.history(mid, scope=Scope.of(gone)).items] == [
        "create",
        "purge",
    ]
    again = copy_stores(pg, qd)
    assert again["ok"] and again["totals"]["copied"] == 0 and again["totals"]["unchanged"] == 9


def test_verify_catches_a_tampered_target_and_copy_refuses_to_overwrite(
    pg_store_factory: Callable[..., Any],
    qdrant_folder_store: Callable[[], MemoryStore],
    rng: np.random.Generator,
) -> None:
    pg = pg_store_factory()
    tenant = new_tenant_id()
    mids = _fill(pg, tenant, rng)
    qd = qdrant_folder_store()
    copy_tenant(pg, qd, tenant)
    assert verify_tenant(pg, qd, tenant)["ok"]
    s = Scope.of(tenant)
    qd.update(mids[3], scope=s, expected_version=1, changes={"importance": 0.1}, actor="evil")
    qd.purge(mids[4], scope=s, actor="evil")
    extra = put(qd, s, item(tenant, "only in the target", unit(rng)))[0]
    result = verify_tenant(pg, qd, tenant)
    assert result["ok"] is False and result["mismatched"] == 2
    by_id = {m["memory_id"]: m["differences"] for m in result["mismatches"]}
    assert "memory.importance" in by_id[str(mids[3])] and "memory.version" in by_id[str(mids[3])]
    assert "events (1 vs 2)" in by_id[str(mids[3])]
    assert "memory missing" in by_id[str(mids[4])]
    assert result["extra_in_target"] == [str(extra)] and result["extra"] == 1
    assert result["source"]["records"] == 6 and result["target"]["records"] == 7
    # a re-run never overwrites the tampered records
    with pytest.raises(TransferConflictError) as info:
        copy_tenant(pg, qd, tenant, batch=500)
    assert str(mids[3]) in info.value.details["memory_ids"]
    assert qd.get(mids[3], scope=s).importance == pytest.approx(0.1)


def test_cli_copy_json_report_and_conflict_error(
    pg_store_factory: Callable[..., Any],
    qdrant_settings_factory: Callable[..., Any],
    rng: np.random.Generator,
    tmp_path: Path,
) -> None:
    pg = pg_store_factory()
    tenant = new_tenant_id()
    _fill(pg, tenant, rng)
    assert pg.settings.storage.database_url is not None
    env = {
        "MEMORY_DATABASE_URL": pg.settings.storage.database_url.get_secret_value(),
        "MEMORY_STORE": "postgres",
        "MEMORY_QDRANT_PATH": None,
        "MEMORY_QDRANT_URL": None,
    }
    folder = str(tmp_path / "qdrant")
    args = ["copy", "--from", "postgres", "--to", "qdrant", "--to-path", folder, "--json"]
    result = CliRunner().invoke(app, [*args, "--tenant", tenant], env=env)
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["ok"] and report["tenants"][tenant]["copy"]["copied"] == 6
    assert report["target_location"].startswith(f"qdrant {folder}")
    assert "password" not in result.stdout
    # tamper with the target, then a re-run is a typed conflict (exit 2, canonical JSON)
    qd = open_qdrant_store(qdrant_settings_factory("qdrant_path", qdrant_path=folder))
    (first,) = [m for m in qd.list(scope=Scope.of(tenant)).items if m.version == 1][:1]
    qd.update(
        first.id, scope=Scope.of(tenant), expected_version=1, changes={"tags": ("t",)}, actor="x"
    )
    qd.close()
    again = CliRunner().invoke(app, [*args, "--tenant", tenant], env=env)
    assert again.exit_code == 2
    assert json.loads(again.stderr.strip().splitlines()[-1])["error"] == "transfer_conflict"
    # the same store twice is refused before anything is opened
    same = CliRunner().invoke(app, ["copy", "--from", "postgres", "--to", "postgres"], env=env)
    assert same.exit_code == 2 and "same store" in same.stderr


_COPY_CHILD = """
import os, signal, sys
from memory_engine.config import Settings
from memory_engine.models import Scope
from memory_engine.stores.base import MemoryRecord
from memory_engine.stores.qdrant.store import QdrantStore

folder, tenant, records_file, die_after = sys.argv[1:5]
records = [MemoryRecord.model_validate_json(line) for line in open(records_file, encoding="utf-8")]
store = QdrantStore(Settings(_env_file=None, store="qdrant", qdrant_path=folder))

def die(self, step):
    if step == die_after:
        os.kill(os.getpid(), signal.SIGKILL)  # hard kill: no cleanup, no close

QdrantStore._step_done = die
store.write_records(records, scope=Scope.of(tenant))
print("not killed")
"""


@pytest.mark.parametrize("die_after", ["event", "point"])
def test_copy_into_qdrant_killed_between_steps_is_whole_or_absent_and_rerun_completes(
    tmp_path: Path,
    qdrant_settings_factory: Callable[..., Any],
    rng: np.random.Generator,
    die_after: str,
) -> None:
    import signal
    import subprocess
    import sys

    source: MemoryStore = open_qdrant_store(qdrant_settings_factory("qdrant_path"))
    tenant = new_tenant_id()
    _fill(source, tenant, rng, n=4)  # 3 stored (1 updated twice, 1 archived), 1 purged
    scope = Scope.of(tenant)
    records = list(_all_records(source, tenant).values())
    records_file = tmp_path / "records.jsonl"
    records_file.write_text(
        "\n".join(r.model_dump_json() for r in records) + "\n", encoding="utf-8"
    )
    folder = str(tmp_path / "target")
    root = Path(__file__).resolve().parents[2]
    proc = subprocess.run(
        [sys.executable, "-c", _COPY_CHILD, folder, tenant, str(records_file), die_after],
        cwd=root,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == -signal.SIGKILL, proc.stdout + proc.stderr
    target = open_qdrant_store(qdrant_settings_factory("qdrant_path", qdrant_path=folder))
    try:
        got = _all_records(target, tenant) if target.embedding_info() else {}
        for rec in records:  # the reconciler left every record whole or absent
            mine = target.read_records([rec.memory_id], scope=scope)[0]
            if mine.empty:
                assert die_after == "event" and rec.memory is not None
            else:
                assert record_differences(rec, mine) == []
        if die_after == "point":
            assert len(got) == len(records)
        # a re-run copies what is missing and the verification passes
        report = copy_stores(source, target, tenants=[tenant])
        assert report["ok"], report
        copied = report["tenants"][tenant]["copy"]
        assert copied["copied"] + copied["unchanged"] == len(records)
        assert copied["copied"] == (3 if die_after == "event" else 0)
    finally:
        target.close()
        source.close()


# ------------------------------------------------------------- extra dense legs (dense_ml)
LEG, LEG_MODEL, LEG_DIM = "dense_ml", "test-ml-12", 12


def _legs(store: MemoryStore) -> VectorLegs:
    part = getattr(store, "legs", None)
    assert isinstance(part, VectorLegs)
    return part


def _fill_legs(store: MemoryStore, tenant: str, rng: np.random.Generator, *, skip: int = 0) -> Any:
    """A leg recorded before the first write (``ready``), the memories of ``_fill`` and a leg
    vector for each stored memory but the last ``skip``; returns (ids, leg vectors)."""
    _legs(store).ensure_leg(LEG, LEG_MODEL, LEG_DIM)
    mids = _fill(store, tenant, rng)
    stored = [m for m in mids if store.read_records([m], scope=Scope.of(tenant))[0].memory]
    vectors = {m: tuple(unit(rng, LEG_DIM)) for m in stored[: len(stored) - skip]}
    _legs(store).set_leg_vectors(LEG, vectors, scope=Scope.of(tenant))
    return stored, vectors


@pytest.fixture(params=[("postgres", "qdrant"), ("qdrant", "postgres")], ids=["pg-qd", "qd-pg"])
def pair(
    request: pytest.FixtureRequest,
    pg_store_factory: Callable[..., Any],
    qdrant_folder_store: Callable[[], MemoryStore],
) -> tuple[MemoryStore, MemoryStore]:
    """(source, target): a fresh store of each kind, in both directions."""
    src, dst = request.param
    return tuple(
        pg_store_factory() if k == "postgres" else qdrant_folder_store() for k in (src, dst)
    )  # type: ignore[return-value]


def test_copy_carries_every_legs_vectors_and_its_record(
    pair: tuple[MemoryStore, MemoryStore], rng: np.random.Generator
) -> None:
    """The copied store searches the multilingual leg at once (no reembed): same record
    (model, dimension, ready), same vectors, same leg ranking; a re-run copies nothing."""
    source, target = pair
    tenant = new_tenant_id("legs")
    stored, vectors = _fill_legs(source, tenant, rng)
    report = copy_stores(source, target)
    assert report["ok"] and report["legs"] == {LEG: "ready"}
    assert report["totals"]["leg_vectors_copied"] == len(vectors) == len(stored)
    assert _legs(target).leg_records() == _legs(source).leg_records()
    scope = Scope.of(tenant)
    got = _legs(target).leg_vectors(LEG, stored, scope=scope)
    assert set(got) == set(vectors)
    for mid, vec in vectors.items():
        assert np.allclose(got[mid], vec, atol=1e-5)
    query = tuple(unit(rng, LEG_DIM))
    src_hits = _legs(source).leg_search(LEG, query, scope=scope, k=3)
    dst_hits = _legs(target).leg_search(LEG, query, scope=scope, k=3)
    assert [h.memory.id for h in dst_hits] == [h.memory.id for h in src_hits] and dst_hits
    for a, b in zip(src_hits, dst_hits, strict=True):
        assert a.scores["cosine"] == pytest.approx(b.scores["cosine"], abs=1e-4)
    again = copy_stores(source, target)
    assert again["ok"] and again["totals"]["copied"] == 0
    assert again["totals"]["leg_vectors_copied"] == 0


def test_copy_fills_leg_vectors_a_target_record_lacks(
    pair: tuple[MemoryStore, MemoryStore], rng: np.random.Generator
) -> None:
    """A target written without the leg (a copy killed between a batch's records and its leg
    vectors, or made by an earlier version: on Qdrant a collection without the leg, rebuilt
    with it) gets the vectors; the leg becomes ready there once every memory has one."""
    source, target = pair
    tenant = new_tenant_id("fill")
    stored, vectors = _fill_legs(source, tenant, rng)
    scope = Scope.of(tenant)
    ids = list(source.record_ids(scope=scope, limit=100).items)
    target.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
    target.write_records(source.read_records(ids, scope=scope), scope=scope)  # no leg vectors
    report = copy_stores(source, target)
    assert report["ok"], report
    assert report["totals"]["copied"] == 0 and report["totals"]["unchanged"] == len(ids)
    assert report["totals"]["leg_vectors_copied"] == len(vectors)
    assert report["legs"] == {LEG: "ready"}
    assert set(_legs(target).leg_vectors(LEG, stored, scope=scope)) == set(stored)


def test_copy_of_a_leg_still_filling_stays_filling_and_a_mismatch_is_refused(
    pg_store_factory: Callable[..., Any],
    qdrant_folder_store: Callable[[], MemoryStore],
    rng: np.random.Generator,
) -> None:
    pg = pg_store_factory()
    tenant = new_tenant_id("part")
    stored, vectors = _fill_legs(pg, tenant, rng, skip=2)
    _legs(pg).set_leg_state(LEG, "filling")
    qd = qdrant_folder_store()
    report = copy_stores(pg, qd)
    assert report["ok"] and report["legs"] == {LEG: "filling"}
    assert _legs(qd).leg_counts(LEG, scope=Scope.of(tenant)) == (len(vectors), len(stored))
    other = pg_store_factory()
    _legs(other).ensure_leg(LEG, "another-ml-model", LEG_DIM)
    with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed --leg dense_ml"):
        copy_stores(pg, other)
    assert other.record_ids(scope=Scope.of(tenant), limit=1).total == 0  # nothing written


def test_a_target_leg_the_source_does_not_carry_is_left_filling_not_ready(
    pair: tuple[MemoryStore, MemoryStore], rng: np.random.Generator
) -> None:
    """A source without the multilingual leg copied into a target that records it ``ready``:
    the copied memories have no leg vector, so the leg must not stay ``ready`` (a search would
    use it and silently miss them; Chinese queries lean on that leg): it becomes ``filling``
    and the CLI-facing report says so, until ``reembed --leg`` fills it."""
    source, target = pair
    tenant = new_tenant_id("noleg")
    _fill(source, tenant, rng)  # no extra leg in the source
    assert _legs(target).ensure_leg(LEG, LEG_MODEL, LEG_DIM).state == "ready"  # a new target
    report = copy_stores(source, target)
    assert report["ok"], report
    assert report["legs"] == {LEG: "filling"}
    assert _legs(target).leg_records()[LEG].state == "filling"
    filled, total = _legs(target).leg_counts(LEG, scope=Scope.of(tenant))
    assert filled == 0 and total > 0
    # once every copied memory has its vector (what reembed does), a re-run keeps it ready
    scope = Scope.of(tenant)
    ids = list(target.record_ids(scope=scope, limit=100).items)
    live = [r.memory_id for r in target.read_records(ids, scope=scope) if r.memory is not None]
    _legs(target).set_leg_vectors(LEG, {m: tuple(unit(rng, LEG_DIM)) for m in live}, scope=scope)
    _legs(target).set_leg_state(LEG, "ready")
    again = copy_stores(source, target)
    assert again["ok"] and again["totals"]["copied"] == 0 and again["legs"] == {LEG: "ready"}


def test_copy_of_one_tenant_carries_only_its_own_leg_vectors(
    pair: tuple[MemoryStore, MemoryStore], rng: np.random.Generator
) -> None:
    source, target = pair
    mine, theirs = new_tenant_id("mine"), new_tenant_id("theirs")
    stored, vectors = _fill_legs(source, mine, rng)
    other_ids = _fill(source, theirs, rng)
    _legs(source).set_leg_vectors(
        LEG, {m: tuple(unit(rng, LEG_DIM)) for m in other_ids[3:]}, scope=Scope.of(theirs)
    )
    report = copy_stores(source, target, tenants=[mine])
    assert report["ok"] and list(report["tenants"]) == [mine]
    assert report["totals"]["leg_vectors_copied"] == len(vectors)
    assert target.record_ids(scope=Scope.of(theirs), limit=10).total == 0
    assert _legs(target).leg_vectors(LEG, other_ids, scope=Scope.of(theirs)) == {}
    assert _legs(target).leg_vectors(LEG, other_ids, scope=Scope.of(mine)) == {}
    assert report["legs"] == {LEG: "ready"}


def test_a_target_of_another_primary_model_is_refused_before_its_legs_are_touched(
    pair: tuple[MemoryStore, MemoryStore], rng: np.random.Generator
) -> None:
    """The primary mismatch is found first: the target records no leg of the source (on
    Qdrant, adding one rebuilds the collection) and holds no record."""
    source, target = pair
    tenant = new_tenant_id("prim")
    _fill_legs(source, tenant, rng)
    target.ensure_embedding("another-primary-model", PG_TEST_DIM)
    with pytest.raises(EmbeddingMismatchError):
        copy_stores(source, target)
    assert LEG not in _legs(target).leg_records()
    assert target.record_ids(scope=Scope.of(tenant), limit=1).total == 0
