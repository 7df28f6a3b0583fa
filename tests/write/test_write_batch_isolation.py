"""write_batch on the real PostgreSQL store: a request whose memories the store refuses gets a
clear typed error, every other request of the same transaction is still stored (with its
create event and keyword postings), and nothing of the refused one exists."""

from __future__ import annotations

from collections.abc import Callable

from memory_engine.models import Memory, Scope
from memory_engine.stores.postgres import PostgresStore
from memory_engine.write import raw
from tests.conftest import new_tenant_id
from tests.stores.test_pg_bulk import _HashEmbedder


def test_a_refused_row_fails_only_its_request(
    pg_store_factory: Callable[..., PostgresStore],
) -> None:
    store = pg_store_factory(embedding_batch_size=4)
    embedder = _HashEmbedder()
    store.ensure_embedding(embedder.model_name, embedder.dim)
    scope = Scope.of(new_tenant_id())
    settings = store.settings
    chunked = raw.raw_extractor(settings)

    def extractor(s: Scope, request: raw.WriteRequest, text: str) -> list[Memory]:
        memories = chunked(s, request, text)
        if "ROGUE" in text:  # a memory of another tenant: the store refuses the transaction
            memories = [*memories, memories[0].model_copy(update={"tenant_id": "someone-else"})]
        return memories

    texts = [f"kept fact number {i}" for i in range(9)]
    texts[5] = "ROGUE fact that names another tenant"
    progress: list[int] = []
    results = raw.write_batch(
        [raw.WriteRequest(text=t) for t in texts],
        scope=scope,
        settings=settings,
        store=store,
        embedder=embedder,
        extractor=extractor,
        actor="t",
        progress=progress.append,
    )
    assert [r.ok for r in results] == [True] * 5 + [False] + [True] * 3
    assert results[5].error and results[5].error["error"] == "tenant_scope_error"
    assert results[5].outcomes == []
    assert store.count(scope=scope) == 8  # everything but the refused request
    ids = {r.outcomes[0].memory_id for r in results if r.ok}
    assert len(ids) == 8
    assert {c.memory.id for c in store.keyword_search(["kept"], scope=scope, k=20)} == ids
    created = {e.memory_id for e in store.events(scope=scope).items if e.action == "create"}
    assert created == ids  # one audit event per stored memory, none for the refused one
    assert progress[-1] == len(texts)
