"""Deletion receipts on every store (the session ``engine`` runs PostgreSQL and Qdrant): the
preview counts every copy of a memory, the purge erases them all, and the receipt stored as
the ``purge_proof`` event re-queries every index and read path, before and after."""

from __future__ import annotations

from datetime import UTC, datetime

from memory_engine import MemoryEngine, Scope
from memory_engine.lifecycle.erasure import INDEX_CHECKS, READ_PATHS
from memory_engine.models import EventAction
from memory_engine.stores.redaction import REDACTED


def test_receipt_counts_before_and_proves_every_path_after(
    engine: MemoryEngine, tenant: str
) -> None:
    s = Scope.of(tenant, user_id="u1")
    secret = "Mia's locker code at Acme Corp is 7731 保险柜"
    (a,) = engine.write(s, secret, entities=["Acme Corp"]).memory_ids
    (b,) = engine.write(s, "Mia likes green tea in the morning").memory_ids
    engine.update(s, a, expected_version=1, tags=["keys"], reason="tagged", actor="t")
    engine.search(s, "locker code Acme")  # a stored trace that quotes the memory
    engine.add_turn(s, "chat-1", "user", secret)  # a working-memory entry quoting it
    engine.add_turn(s, "chat-1", "assistant", "Noted, thanks.")
    engine.search(s, "locker code", as_of=datetime.now(UTC))  # caches the text's embedding

    preview = engine.purge_preview(s, a)
    assert set(preview.counts) == set(INDEX_CHECKS)
    assert set(preview.reads) == set(READ_PATHS) and preview.errors == {}
    assert (preview.counts["row"], preview.counts["vector"]) == (1, 1)
    assert preview.counts["keyword_terms"] >= 1 and preview.counts["entity_links"] == 1
    assert preview.counts["events_with_content"] == 2  # create + update snapshots
    assert preview.counts["traces_with_content"] >= 1
    assert preview.counts["working_memory_entries"] == 1
    assert preview.counts["as_of_cache_entries"] == 1
    assert preview.reads == {"get": 1, "list": 1, "search": 1, "as_of": 1}
    assert engine.get(s, a).content == secret  # a preview erases nothing

    receipt = engine.purge_verified(s, a, reason="user asked", actor="t")

    assert receipt.ok and receipt.failed == [] and receipt.tenant_id == tenant
    by_name = {c.name: c for c in receipt.checks}
    assert set(by_name) == set(INDEX_CHECKS) | set(READ_PATHS)
    assert all(c.after == 0 and c.ok and c.error is None for c in receipt.checks)
    assert {n: by_name[n].before for n in INDEX_CHECKS} == preview.counts
    assert {n: by_name[n].before for n in READ_PATHS} == preview.reads
    assert {c.kind for c in receipt.checks if c.name in READ_PATHS} == {"read_path"}
    assert receipt.redacted.get("working_memory_entries") == 1
    # the receipt is the purge_proof event's details, as stored
    proof_event = engine.history(Scope.of(tenant), a).items[-1]
    assert proof_event.action is EventAction.PURGE_PROOF
    assert proof_event.details == receipt.model_dump(mode="json")
    assert proof_event.reason == "verified deletion"
    # the erased text is gone from every read; the rest of the tenant is not
    then = engine.memory_as_of(s, a, datetime.fromisoformat(receipt.probes["as_of"]))
    assert then is not None and then.content == REDACTED  # as recorded just before the purge
    hits = engine.search(s, secret, save_trace=False)
    assert a not in {c.memory.id for c in hits.memories}
    assert engine.get(s, b).content == "Mia likes green tea in the morning"
    left = engine.working_memory.store.load(tenant, _session(engine, s, "chat-1"))
    assert [m.content for m in left.messages] == ["Noted, thanks."]


def _session(engine: MemoryEngine, s: Scope, session_id: str) -> str:
    """The working-memory key of a scope's session (as ``add_turn`` stores it)."""
    from memory_engine.context.service import working_session

    return working_session(s, session_id)
