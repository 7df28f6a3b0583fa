"""A store handle that stays open while another process switches the primary embedder
(``memory-engine reembed``) gets the typed ``EmbeddingMismatchError`` on its next search,
never pgvector's raw "different vector dimensions" error, and reads the new record after."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from memory_engine.errors import EmbeddingMismatchError
from memory_engine.models import Scope
from memory_engine.stores.postgres.store import PostgresStore
from memory_engine.stores.reembed import reembed_store
from tests.conformance.helpers import item, put
from tests.support.hash_embedder import HashEmbedder

TEXTS = ["我对花生过敏。", "Team lunch is on Friday at noon.", "周末去西湖划船。"]


def test_a_search_on_a_handle_opened_before_the_switch_gets_the_typed_error(
    pg_settings_factory: Any, tenant: str
) -> None:
    old, new = HashEmbedder("old-model", 16), HashEmbedder("new-model", 24)
    settings = pg_settings_factory()
    switcher = PostgresStore(settings)
    long_lived = PostgresStore(settings)
    try:
        switcher.ensure_embedding(old.model_name, old.dim)
        scope = Scope.of(tenant)
        vecs = old.embed(TEXTS)
        put(
            switcher,
            scope,
            *[item(tenant, t, np.array(v)) for t, v in zip(TEXTS, vecs, strict=True)],
        )
        long_lived.ensure_embedding(old.model_name, old.dim)
        assert long_lived.dense_search(vecs[0], scope=scope, k=1)  # it answers before

        runs = reembed_store(switcher, primary=new, legs={}, tenants=[tenant], all_tenants=True)
        assert runs[0].action == "switched"

        with pytest.raises(EmbeddingMismatchError, match="memory-engine reembed"):
            long_lived.dense_search(old.embed([TEXTS[0]])[0], scope=scope, k=1)
        assert long_lived.embedding_info() == ("new-model", 24)  # read again, not the cache

        # a write of an old-model vector from another handle opened before the switch
        stale = PostgresStore(settings)
        try:
            stale.conn._embedding = (old.model_name, old.dim)  # its record, read before
            with pytest.raises(EmbeddingMismatchError):
                put(stale, scope, item(tenant, "stale write", np.array(old.embed(["x"])[0])))
            assert stale.embedding_info() == ("new-model", 24)
        finally:
            stale.close()
    finally:
        long_lived.close()
        switcher.close()
