"""Engine-level isolation, deletion and dedupe faults (docs/architecture.md#failure-catalogue F1-F3)."""

from __future__ import annotations

import uuid

import pytest

from memory_engine import MemoryEngine, MemoryNotFoundError, Scope, VersionConflictError

MODES = [("dense",), ("keyword",), ("dense", "keyword")]


def _all_ids(result) -> set[uuid.UUID]:  # type: ignore[no-untyped-def]
    ids = {c.memory_id for c in result.trace.candidates}
    for leg in result.trace.legs.values():
        ids |= {c.memory_id for c in leg}
    return ids


@pytest.mark.parametrize("legs", MODES)
def test_falcon_heron_no_leg_leaks(
    engine: MemoryEngine, tenant_pair: tuple[str, str], legs: tuple[str, ...]
) -> None:
    a, b = (Scope.of(t) for t in tenant_pair)
    fa = engine.write(a, "Project codename is Falcon").memory_ids[0]
    hb = engine.write(b, "Project codename is Heron").memory_ids[0]
    result = engine.search(b, "project codename", legs=legs)
    assert [c.memory.content for c in result.memories] == ["Project codename is Heron"]
    assert fa not in _all_ids(result)
    assert hb in _all_ids(result)
    # addressing A's memory from B answers "not found", never "forbidden"
    with pytest.raises(MemoryNotFoundError):
        engine.get(b, fa)


def test_same_user_and_session_strings_never_shared(
    engine: MemoryEngine, tenant_pair: tuple[str, str]
) -> None:
    ta, tb = tenant_pair
    a = Scope.of(ta, user_id="alice", session_id="s1")
    b = Scope.of(tb, user_id="alice", session_id="s1")
    engine.write(a, "Alice prefers green tea in the morning")
    res = engine.search(b, "green tea")
    assert res.memories == [] and _all_ids(res) == set()
    assert engine.list(b).total == 0


def test_user_agent_narrowing(engine: MemoryEngine, tenant: str) -> None:
    engine.write(
        Scope.of(tenant, user_id="u1", agent_id="planner"), "The user's dog is called Biscuit"
    )
    for scope in (
        Scope.of(tenant, user_id="u1"),
        Scope.of(tenant, user_id="u1", agent_id="planner"),
    ):
        assert [c.memory.content for c in engine.search(scope, "dog name").memories] == [
            "The user's dog is called Biscuit"
        ]
    assert (
        engine.search(Scope.of(tenant, user_id="u1", agent_id="coder"), "dog name").memories == []
    )
    assert engine.search(Scope.of(tenant, user_id="u2"), "dog name").memories == []


@pytest.mark.parametrize("legs", MODES)
def test_purge_then_search_returns_the_other(
    engine: MemoryEngine, tenant: str, legs: tuple[str, ...]
) -> None:
    s = Scope.of(tenant)
    first = engine.write(s, "JWT tokens expire after 15 minutes").memory_ids[0]
    second = engine.write(s, "JWT signing key rotates every month").memory_ids[0]
    engine.purge(s, first, reason="wrong")
    # The relevance floor is off: a one-word query on the dense leg alone stays below the
    # match cosine, and this test is about what a purge leaves, not about relevance.
    options = engine.search_options(k=1, legs=legs, relevance_floor=False)
    res = engine.search(s, "JWT", options=options)
    assert [c.memory.id for c in res.memories] == [second]
    assert first not in _all_ids(res)
    with pytest.raises(MemoryNotFoundError):
        engine.get(s, first)
    actions = [e.action.value for e in engine.history(s, first).items]
    assert actions == ["create", "purge"]


def test_archive_restore_cycle(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    one = engine.write(s, "JWT tokens expire after 15 minutes").memory_ids[0]
    two = engine.write(s, "JWT signing key rotates every month").memory_ids[0]
    m = engine.archive(s, one, expected_version=1, reason="stale")
    assert [c.memory.id for c in engine.search(s, "JWT", k=1).memories] == [two]
    assert one not in {c.memory.id for c in engine.search(s, "JWT", k=5).memories}
    engine.restore(s, one, expected_version=m.version, reason="still true")
    assert one in {c.memory.id for c in engine.search(s, "JWT", k=5).memories}
    with pytest.raises(VersionConflictError):
        engine.archive(s, one, expected_version=1, reason="stale again")


def test_purge_everything_shows_zero(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    ids = [
        i for t in ("alpha fact", "beta fact", "gamma fact") for i in engine.write(s, t).memory_ids
    ]
    for i in ids:
        engine.purge(s, i, reason="cleanup")
    for legs in MODES:
        assert engine.search(s, "fact", legs=legs).memories == []
    assert engine.list(s).total == 0
    assert engine.stats(s).total == 0


def test_exact_duplicate_is_reported(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    first = engine.write(s, "I like spicy food")
    again = engine.write(s, "  i like SPICY food ")
    assert first.outcomes[0].status == "created"
    assert again.outcomes[0].status == "duplicate"
    assert again.outcomes[0].existing_id == first.outcomes[0].memory_id
    assert engine.list(s).total == 1


def test_twenty_concurrent_writes_survive_restart(pg_settings_factory, tenant: str) -> None:  # type: ignore[no-untyped-def]
    """docs/architecture.md#f10-concurrency: 20 concurrent writes -> 20 memories, readable after restart."""
    from concurrent.futures import ThreadPoolExecutor

    settings = pg_settings_factory()
    s = Scope.of(tenant)
    with MemoryEngine(settings) as eng:
        with ThreadPoolExecutor(max_workers=8) as pool:
            results = list(
                pool.map(lambda i: eng.write(s, f"concurrent fact number {i}"), range(20))
            )
        assert all(r.outcomes[0].status == "created" for r in results)
    with MemoryEngine(settings) as eng:  # a new engine = a new pool on the same database
        page = eng.list(s, limit=50)
        assert page.total == 20
        assert {m.content for m in page.items} == {f"concurrent fact number {i}" for i in range(20)}
        assert all(len(eng.history(s, m.id).items) == 1 for m in page.items)
