"""An external PostgreSQL whose URL user is NOT a superuser (a CREATEROLE owner, as on a
managed database): migrations, SET ROLE to the app role, RLS and the audited admin read."""

from __future__ import annotations

import uuid

import numpy as np
import psycopg
import pytest
from psycopg import sql
from psycopg.conninfo import conninfo_to_dict, make_conninfo
from pydantic import SecretStr

from memory_engine import Memory, Scope, Settings
from memory_engine.stores.base import NewMemory
from memory_engine.text import content_hash, tokenize
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL


@pytest.fixture
def external(pg_server_url: str) -> tuple[str, str]:
    """(URL as a non-superuser CREATEROLE owner of a fresh database, app role name)."""
    suffix = uuid.uuid4().hex[:8]
    owner, db = f"owner_{suffix}", f"extdb_{suffix}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN CREATEROLE").format(sql.Identifier(owner)))
        conn.execute(
            sql.SQL("CREATE DATABASE {} OWNER {}").format(sql.Identifier(db), sql.Identifier(owner))
        )
    db_url = make_conninfo(pg_server_url, dbname=db)
    with psycopg.connect(db_url, autocommit=True) as conn:  # extensions need a superuser
        conn.execute("CREATE EXTENSION IF NOT EXISTS vector")
    params = conninfo_to_dict(db_url)
    params["user"] = owner
    params.pop("password", None)
    return make_conninfo(**params), f"app_{suffix}"


def _new(scope: Scope, text: str) -> NewMemory:
    vec = np.random.default_rng(len(text)).normal(size=PG_TEST_DIM)
    vec /= np.linalg.norm(vec)
    mem = Memory(
        tenant_id=scope.tenant_id,
        content=text,
        content_hash=content_hash(text),
        embedding_model=PG_TEST_MODEL,
    )
    return NewMemory(
        memory=mem, embedding=tuple(float(x) for x in vec), terms=tuple(tokenize(text))
    )


def test_non_superuser_owner_works_end_to_end(external: tuple[str, str]) -> None:
    from memory_engine.stores.postgres.store import PostgresStore

    url, app_role = external
    with psycopg.connect(url) as conn:
        row = conn.execute("SELECT rolsuper FROM pg_roles WHERE rolname = current_user").fetchone()
        assert row == (False,)
    settings = Settings(_env_file=None, database_url=SecretStr(url), db_app_role=app_role)  # type: ignore[call-arg]
    store = PostgresStore(settings)
    try:
        store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
        a, b = Scope.of("ext-a"), Scope.of("ext-b")
        store.insert([_new(a, "alpha fact")], scope=a, actor="t")
        store.insert([_new(b, "beta fact")], scope=b, actor="t")
        assert store.count(scope=a) == 1 and store.count(scope=b) == 1
        assert [
            c.memory.content for c in store.keyword_search(["alpha", "beta"], scope=a, k=5)
        ] == ["alpha fact"]
        counts = store.admin_tenant_counts(actor="test", reason="external owner")
        assert counts == {"ext-a": 1, "ext-b": 1}
        # Outside the audited admin path the owner sees nothing across tenants (FORCE RLS).
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
            conn.execute("SELECT set_config('memory_engine.admin_read', 'on', false)")
            conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(app_role)))
            # the admin policy is TO the owner only: the app role gains nothing from the flag
            assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    finally:
        store.close()


def test_bulk_vacuum_by_a_non_owner_is_logged(
    external: tuple[str, str], pg_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    """PostgreSQL skips a table the login role does not own with a WARNING notice only; the
    bulk import's VACUUM (ANALYZE) must log it rather than pass silently."""
    import logging

    from memory_engine.stores.postgres import bulk as pg_bulk
    from memory_engine.stores.postgres.store import PostgresStore

    url, app_role = external
    settings = Settings(database_url=SecretStr(url), db_app_role=app_role)
    PostgresStore(settings, conninfo=url).close()  # migrations: tables owned by the owner
    stranger = f"stranger_{uuid.uuid4().hex[:8]}"
    with psycopg.connect(pg_server_url, autocommit=True) as conn:
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN").format(sql.Identifier(stranger)))
    params = conninfo_to_dict(url)
    params["user"] = stranger
    with caplog.at_level(logging.WARNING, logger="memory_engine.stores.postgres.store"):
        with psycopg.connect(make_conninfo(**params), autocommit=True) as conn:
            pg_bulk._vacuum(conn)
    skipped = [r.getMessage() for r in caplog.records if "VACUUM/ANALYZE" in r.getMessage()]
    assert len(skipped) >= 4, skipped
    assert all("memories" in m or "keyword_" in m for m in skipped)


def test_reembed_switch_by_a_non_superuser_owner_reaches_every_tenant(
    external: tuple[str, str],
) -> None:
    """The primary switch runs on the owner's connection, which FORCE row-level security binds
    when the owner is not a superuser: it must still check and relabel every tenant's rows,
    and leave FORCE on."""
    from memory_engine.errors import InvalidInputError
    from memory_engine.stores.postgres.store import PostgresStore
    from memory_engine.stores.reembed import reembed_store
    from tests.support.hash_embedder import HashEmbedder

    url, app_role = external
    settings = Settings(_env_file=None, database_url=SecretStr(url), db_app_role=app_role)  # type: ignore[call-arg]
    store = PostgresStore(settings)
    try:
        store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
        scopes = [Scope.of("ext-a"), Scope.of("ext-b")]
        made = {s.tenant_id: store.insert([_new(s, f"{s.tenant_id} 的事实")], scope=s, actor="t")
                for s in scopes}  # fmt: skip
        new = HashEmbedder("new-model", 20)
        # told ext-a is every tenant: the switch must refuse, for it sees ext-b's unstaged row
        # (had RLS hidden it, the switch would have dropped ext-b's vector)
        with pytest.raises(InvalidInputError):
            reembed_store(store, primary=new, legs={}, tenants=["ext-a"], all_tenants=True)
        assert store.embedding_info() == (PG_TEST_MODEL, PG_TEST_DIM)
        runs = reembed_store(
            store, primary=new, legs={}, tenants=["ext-a", "ext-b"], all_tenants=True
        )
        assert runs[0].action == "switched" and runs[0].ok
        for s in scopes:
            (outcome,) = made[s.tenant_id]
            assert store.get(outcome.memory_id, scope=s).embedding_model == "new-model"
            hits = store.dense_search(new.embed([f"{s.tenant_id} 的事实"])[0], scope=s, k=1)
            assert [h.memory.id for h in hits] == [outcome.memory_id]
        with psycopg.connect(url) as conn:
            forced = conn.execute(
                "SELECT relforcerowsecurity FROM pg_class WHERE relname = 'memories'"
            ).fetchone()
            assert forced == (True,)
            assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
    finally:
        store.close()
