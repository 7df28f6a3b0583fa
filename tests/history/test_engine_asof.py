"""As-of time travel on both stores: write, edit, supersede, purge at successive
recorded times; the state and search as of each time; world-time validity; a stored trace
re-run as of then versus now."""

from __future__ import annotations

import time
from datetime import datetime, timedelta

from memory_engine import MemoryEngine, Scope
from memory_engine.models import MemoryStatus, utcnow
from memory_engine.stores.redaction import REDACTED


def _tick() -> datetime:
    time.sleep(0.05)
    t = utcnow()
    time.sleep(0.05)
    return t


def test_as_of_each_step(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    t0 = _tick()
    (a,) = engine.write(s, "The team standup is at 9am", importance=0.9).memory_ids
    (b,) = engine.write(s, "The cafeteria serves ramen on Fridays").memory_ids
    trace_id = engine.search(s, "when is the team standup").trace.id
    t1 = _tick()  # day 1: written
    engine.update(s, a, expected_version=1, content="The team standup is at 10am", reason="moved")
    t2 = _tick()  # day 2: edited
    (c,) = engine.write(s, "The team standup moved to 11am").memory_ids
    engine.store.update(
        a,
        scope=s,
        expected_version=2,
        changes={"status": MemoryStatus.SUPERSEDED, "superseded_by": c},
        actor="test",
        action="supersede",
    )
    t3 = _tick()  # day 3: superseded
    engine.purge(s, b, reason="user asked")
    t4 = _tick()  # day 4: purged

    def top(at: datetime, query: str = "when is the team standup") -> list[str]:
        return [m.memory.content for m in engine.search(s, query, as_of=at, k=3).memories]

    assert engine.state_as_of(s, t0) == [] and top(t0) == []
    assert top(t1)[0] == "The team standup is at 9am"
    assert top(t2)[0] == "The team standup is at 10am"
    assert top(t3)[0] == "The team standup moved to 11am"
    assert "The team standup is at 10am" not in top(t3)  # superseded: not an active memory
    assert top(t4) == ["The team standup moved to 11am"]
    # the purged memory existed until day 4, but its text is erased from history
    at3 = {m.id: m for m in engine.state_as_of(s, t3)}
    assert at3[b].content == REDACTED and at3[a].status is MemoryStatus.SUPERSEDED
    assert b not in {m.id for m in engine.state_as_of(s, t4)}
    assert all("ramen" not in x for x in top(t3, "cafeteria ramen Fridays"))
    one = engine.memory_as_of(s, a, t1)
    assert one is not None and one.content == "The team standup is at 9am" and one.version == 1
    assert engine.memory_as_of(s, c, t2) is None
    # the normal search path is unchanged
    assert engine.search(s, "when is the team standup", k=1).memories[0].memory.id == c

    cmp = engine.compare_trace(s, trace_id)
    assert cmp.reproduced and cmp.erased == [b]  # B returned then, but its text is erased
    assert [x.memory_id for x in cmp.entered] == [c]
    assert [x.memory_id for x in cmp.left] == [a]
    assert cmp.left[0].rank_then == 1 and cmp.left[0].rank_now is None
    assert cmp.entered[0].rrf_now is not None and cmp.entered[0].rrf_then is None


def test_as_of_world_time_valid_until(engine: MemoryEngine, tenant: str) -> None:
    s = Scope.of(tenant)
    (a,) = engine.write(s, "Promo code SPRING gives ten percent off").memory_ids
    end = utcnow() + timedelta(days=5)
    engine.store.update(a, scope=s, expected_version=1, changes={"valid_until": end}, actor="t")
    now = _tick()
    hits = engine.search_as_of(s, "promo code", as_of=now, valid_at_time=end - timedelta(days=1))
    assert [m.memory.id for m in hits.memories] == [a]
    assert hits.trace.config["as_of"] == now.isoformat()
    later = engine.search_as_of(s, "promo code", as_of=now, valid_at_time=end + timedelta(days=1))
    assert later.memories == []
