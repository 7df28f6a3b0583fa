"""Lifecycle edge cases an attacker (or a confused agent) reaches: a deleted memory changes only
by restore or purge (a second delete, an update or an archive is the typed ``memory_deleted``
error and changes nothing), and a memory written through the durable queue (``wait=False``)
leaves no text in the SQLite write journal after ``purge`` / ``purge_verified``, whose proof
checks the journal. Real engine, Qdrant local mode, offline embedder."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from memory_engine import MemoryEngine, Scope
from memory_engine.errors import MemoryEngineError
from tests.conftest import new_tenant_id


@pytest.fixture(scope="module")
def engine(
    qdrant_settings_factory: Callable[..., Any], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[MemoryEngine]:
    data_dir = tmp_path_factory.mktemp("lifecycle-edges")
    eng = MemoryEngine(qdrant_settings_factory("qdrant_memory", data_dir=str(data_dir)))
    yield eng
    eng.close()


def _refused_as_deleted(call: Callable[[], Any]) -> None:
    with pytest.raises(MemoryEngineError) as info:
        call()
    assert info.value.code == "memory_deleted", info.value.to_dict()


def test_a_deleted_memory_changes_only_by_restore(engine: MemoryEngine) -> None:
    scope = Scope.of(new_tenant_id("del"))
    mid = engine.write(scope, "Dana's desk is on floor 7").memory_ids[0]
    deleted = engine.delete(scope, mid, expected_version=1, reason="wrong floor")
    events = len(engine.history(scope, mid).items)
    v = deleted.version
    _refused_as_deleted(lambda: engine.delete(scope, mid, expected_version=v, reason="again"))
    _refused_as_deleted(
        lambda: engine.update(scope, mid, expected_version=v, content="floor 9", reason="edit")
    )
    _refused_as_deleted(
        lambda: engine.update(scope, mid, expected_version=v, importance=0.9, reason="edit")
    )
    _refused_as_deleted(lambda: engine.archive(scope, mid, expected_version=v, reason="hide"))
    after = engine.get(scope, mid)
    assert (after.version, after.status.value, after.content) == (
        v,
        "deleted",
        "Dana's desk is on floor 7",
    )
    assert len(engine.history(scope, mid).items) == events  # no event for a refused change
    restored = engine.restore(scope, mid, expected_version=v, reason="it was right")
    assert restored.status.value == "active" and restored.version == v + 1
    edited = engine.update(
        scope, mid, expected_version=v + 1, content="Dana's desk is on floor 8", reason="moved"
    )
    assert edited.content == "Dana's desk is on floor 8"


def _journal_text(engine: MemoryEngine, scope: Scope, write_id: str) -> str:
    row = engine.write_status(scope, write_id)
    listed = [w for w in engine.list_writes(scope, limit=50).items if w["id"] == write_id]
    raw = engine.write_journal.path.read_bytes().decode("utf-8", errors="replace")
    return json.dumps([row, listed], ensure_ascii=False, default=str) + raw


@pytest.mark.parametrize("verified", [True, False], ids=["purge_verified", "purge"])
def test_purge_leaves_no_text_in_the_write_journal(engine: MemoryEngine, verified: bool) -> None:
    scope = Scope.of(new_tenant_id("jrnl"))
    secret = f"Erin's locker code is {'4471' if verified else '5582'} 储物柜密码"
    accepted = engine.write(scope, secret, wait=False)
    assert accepted.write_id
    engine.start_write_worker()
    (row,) = engine.wait_for_writes([accepted.write_id], scope, timeout=120)
    assert row["status"] == "done", row
    (mid,) = row["result"]["rows"]
    assert secret in _journal_text(engine, scope, accepted.write_id)
    if verified:
        proof = engine.purge_verified(scope, mid, reason="erase on request")
        assert proof.ok, proof
        assert proof.checked["journal_writes_with_content"] == 0
    else:
        engine.purge(scope, mid, reason="erase on request")
    text = _journal_text(engine, scope, accepted.write_id)
    assert secret not in text and "4471" not in text and "5582" not in text
    assert engine.write_status(scope, accepted.write_id)["status"] == "done"


def test_purge_erases_a_queued_write_that_quotes_the_memory(engine: MemoryEngine) -> None:
    scope = Scope.of(new_tenant_id("proof"))
    text = "Frank's badge number is 30917"
    mid = engine.write(scope, text).memory_ids[0]
    # a queued write of the same words that has not run yet also quotes the memory (put in
    # the journal directly, with no worker running, so that it stays pending)
    engine.stop_write_worker()
    pending = engine.write_journal.accept(scope, "raw", {"text": text}, "api", "h")
    assert engine.write_status(scope, pending)["status"] == "pending"
    proof = engine.purge_verified(scope, mid, reason="erase")
    assert proof.ok and proof.checked["journal_writes_with_content"] == 0
    row = engine.write_status(scope, pending)
    assert text not in json.dumps(row, ensure_ascii=False, default=str)
    assert row["status"] == "refused"  # never runs with the erased input


def test_restoring_an_active_memory_is_refused_and_changes_nothing(engine: MemoryEngine) -> None:
    scope = Scope.of(new_tenant_id("res"))
    mid = engine.write(scope, "Eli's locker is number 12 / 12号柜").memory_ids[0]
    events = len(engine.history(scope, mid).items)
    with pytest.raises(MemoryEngineError) as info:
        engine.restore(scope, mid, expected_version=1, reason="again")
    assert info.value.code == "invalid_input" and "already active" in str(info.value)
    after = engine.get(scope, mid)
    assert (after.version, after.status.value) == (1, "active")
    assert len(engine.history(scope, mid).items) == events
