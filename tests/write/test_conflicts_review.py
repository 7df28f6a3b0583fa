"""Conflict review: judge decisions listed, accepted or rejected, each recorded as an event."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.errors import InvalidInputError, MemoryNotFoundError
from memory_engine.models import MemoryStatus
from tests.conftest import new_tenant_id

Make = Callable[..., MemoryEngine]


def test_reject_restores_accept_records(make_engine: Make) -> None:
    engine = make_engine()
    s = Scope.of(new_tenant_id())
    thu = engine.write(s, "以后周四汇报", mode="extract").outcomes[0].memory_id
    fri = engine.write(s, "改成周五汇报", mode="extract")
    spicy = engine.write(s, "I like spicy food", mode="extract").outcomes[0].memory_id
    engine.write(s, "I can't eat spicy food any more", mode="extract")
    queue = engine.list_conflicts(s)
    assert [(c["action"], c["old_content"]) for c in queue["items"]] == [
        ("supersede", "The user likes spicy food"),
        ("supersede", "用户以后周四汇报"),
    ]
    assert all(c["review"] is None for c in queue["items"]) and not queue["truncated"]

    with pytest.raises(InvalidInputError):
        engine.review_conflict(s, str(fri.write_id), thu, decision="reject", reason=" ")
    with pytest.raises(InvalidInputError):
        engine.review_conflict(s, str(fri.write_id), spicy, decision="reject", reason="x")
    with pytest.raises(MemoryNotFoundError):
        engine.review_conflict(
            Scope.of(new_tenant_id()), str(fri.write_id), thu, decision="reject", reason="x"
        )

    engine.review_conflict(s, str(fri.write_id), thu, decision="reject", reason="both hold")
    old = engine.get(s, thu)
    assert old.status == MemoryStatus.ACTIVE and old.superseded_by is None
    last = engine.history(s, thu).items[-1]
    assert (last.action.value, last.actor) == ("restore", "reviewer")
    assert "conflict review (reject): both hold" in (last.reason or "")

    spicy_write = queue["items"][0]["write_id"]
    engine.review_conflict(s, spicy_write, spicy, decision="accept", reason="correct")
    assert engine.get(s, spicy).status == MemoryStatus.SUPERSEDED
    assert engine.history(s, spicy).items[-1].reason == "conflict review (accept): correct"
    reviews = {c["old_id"]: c["review"]["decision"] for c in engine.list_conflicts(s)["items"]}
    assert reviews == {str(spicy): "accept", str(thu): "reject"}
