"""PostgreSQL-specific tests of the store: row-level security seen from raw SQL, grants, plans,
migrations, the embedded server. Store-agnostic behaviour lives in tests/conformance."""

from __future__ import annotations

import logging
import shutil
import tempfile
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import psycopg
import pytest
from psycopg import sql
from pydantic import SecretStr

from memory_engine.config import Settings
from memory_engine.errors import InvalidInputError, StoreUnavailableError
from memory_engine.models import Memory, Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres.embedded import (
    resolve_database_url,
    start_embedded_server,
    stop_embedded_server,
)
from memory_engine.stores.postgres.keyword import explain_keyword
from memory_engine.stores.postgres.migrate import (
    applied_versions,
    apply_migrations,
    available_migrations,
)
from memory_engine.stores.postgres.sql import dense_search, explain_dense, hnsw_ef_search
from memory_engine.stores.postgres.store import PostgresStore
from tests.conftest import PG_TEST_DIM, new_tenant_id


def _vec(rng: np.random.Generator, dim: int = PG_TEST_DIM) -> tuple[float, ...]:
    v = rng.normal(size=dim)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def _put(store: PostgresStore, tenant: str, n: int, rng: np.random.Generator) -> None:
    store.insert(
        [
            NewMemory(
                memory=Memory(tenant_id=tenant, content=f"{tenant} {i}", content_hash=f"{i}"),
                embedding=_vec(rng),
                terms=("row", str(i)),
            )
            for i in range(n)
        ],
        scope=Scope.of(tenant),
        actor="t",
    )


def _url(store: PostgresStore) -> str:
    assert store.settings.storage.database_url is not None
    return store.settings.storage.database_url.get_secret_value()


def test_rls_hides_other_tenants_from_raw_sql(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(1)
    ta, tb = new_tenant_id("a"), new_tenant_id("b")
    _put(pg_store, ta, 2, rng)
    _put(pg_store, tb, 3, rng)
    role = sql.Identifier(pg_store.settings.storage.db_app_role)
    with psycopg.connect(_url(pg_store), autocommit=True) as conn:
        conn.execute(sql.SQL("SET ROLE {}").format(role))
        with conn.transaction():
            conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
            tenants = {r[0] for r in conn.execute("SELECT tenant_id FROM memories").fetchall()}
            assert tenants == {ta}
            events = conn.execute("SELECT DISTINCT tenant_id FROM events").fetchall()
            assert {r[0] for r in events} == {ta}
            hidden = conn.execute("SELECT count(*) FROM memories WHERE tenant_id = %s", [tb])
            assert hidden.fetchone() == (0,)
        # No tenant set: nothing visible at all.
        assert conn.execute("SELECT count(*) FROM memories").fetchone() == (0,)
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
            conn.execute(
                "INSERT INTO memories (id, tenant_id, content, memory_type, source, status, "
                "created_at, updated_at) VALUES (gen_random_uuid(), %s, 'x', 'episodic', "
                "'manual', 'active', now(), now())",
                [tb],
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
            conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
            conn.execute("UPDATE memories SET tenant_id = %s", [tb])


def test_app_role_is_restricted(pg_store: PostgresStore) -> None:
    role = pg_store.settings.storage.db_app_role
    with psycopg.connect(_url(pg_store), autocommit=True) as conn:
        row = conn.execute(
            "SELECT rolsuper, rolbypassrls, rolcanlogin FROM pg_roles WHERE rolname = %s", [role]
        ).fetchone()
        # LOGIN since the engine's pool logs in as it (it used to be NOLOGIN, reached by SET
        # ROLE from the superuser, which RESET ROLE undid: tests/security/test_database_role.py)
        assert row == (False, False, True)
        forced = conn.execute(
            "SELECT relname FROM pg_class WHERE relrowsecurity AND relforcerowsecurity "
            "AND relname IN ('memories', 'events', 'traces')"
        ).fetchall()
        assert sorted(r[0] for r in forced) == ["events", "memories", "traces"]
        conn.execute(sql.SQL("SET ROLE {}").format(sql.Identifier(role)))
        for statement in (
            "UPDATE events SET actor = 'x'",
            "DELETE FROM events",
            "SELECT * FROM admin_audit",
            "SELECT * FROM schema_migrations",
            "INSERT INTO embedding_config (model, dim) VALUES ('x', 3)",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege), conn.transaction():
                conn.execute(statement)


def test_pooled_connections_use_app_role_without_prepared_statements(
    pg_store: PostgresStore,
) -> None:
    scope = Scope.of(new_tenant_id())
    with pg_store.conn.tx(scope) as cur:
        row = cur.execute(
            "SELECT current_user, current_setting('app.tenant_id'), current_setting('TimeZone')"
        ).fetchone()
        assert row == (pg_store.settings.storage.db_app_role, scope.tenant_id, "UTC")
        assert cur.connection.prepare_threshold is None
    with pg_store.conn.tx(None) as cur:  # SET LOCAL did not outlive the transaction
        assert cur.execute("SELECT current_setting('app.tenant_id', true)").fetchone() in (
            ("",),
            (None,),
        )


def test_admin_read_is_audited(pg_store: PostgresStore) -> None:
    pg_store.admin_tenant_counts(actor="auditor-7", reason="quarterly check")
    with psycopg.connect(_url(pg_store)) as conn:
        row = conn.execute(
            "SELECT actor, reason, action FROM admin_audit ORDER BY id DESC LIMIT 1"
        ).fetchone()
    assert row == ("auditor-7", "quarterly check", "admin_read")


def test_embedding_column_and_hnsw_index(pg_store: PostgresStore) -> None:
    with psycopg.connect(_url(pg_store)) as conn:
        coltype = conn.execute(
            "SELECT format_type(atttypid, atttypmod) FROM pg_attribute "
            "WHERE attrelid = 'memories'::regclass AND attname = 'embedding'"
        ).fetchone()
        index = conn.execute(
            "SELECT indexdef FROM pg_indexes WHERE indexname = 'memories_embedding_hnsw'"
        ).fetchone()
    assert coltype == (f"vector({PG_TEST_DIM})",)
    assert index is not None and "hnsw" in index[0] and "vector_cosine_ops" in index[0]


def test_hnsw_plan_and_iterative_scan_fills_a_small_tenant(
    pg_store_factory: Callable[..., PostgresStore], caplog: pytest.LogCaptureFixture
) -> None:
    # ef_search capped at 10 with 10 tenants: a post-filtered HNSW scan (pgvector 0.6) yielded
    # ~1 row of the tenant per query and the store went to the exact scan; the iterative scan
    # (pgvector 0.8) keeps scanning until k rows of the tenant passed the filter.
    store = pg_store_factory(exact_search_max_rows=0, hnsw_ef_search_max=10)
    store.ensure_embedding("m", PG_TEST_DIM)
    assert store.conn.iterative_scan
    rng = np.random.default_rng(4)
    names = [new_tenant_id(f"s{i}") for i in range(10)]
    for name in names:
        _put(store, name, 80, rng)
    with psycopg.connect(_url(store), autocommit=True) as conn:
        conn.execute("ANALYZE memories")
    scope = Scope.of(names[0])
    q = np.asarray(_vec(rng), dtype=np.float32)
    with store.conn.tx(scope) as cur:
        exact = explain_dense(cur, q, scope=scope, k=10, statuses=["active"], exact=True)
        # At 800 rows pgvector 0.8's cost model prefers the tenant btree and a sort of its 80
        # rows (exact, and cheaper); without the sort the ordered HNSW scan is the plan.
        cur.execute("SET LOCAL enable_sort = off")
        approx = explain_dense(cur, q, scope=scope, k=10, statuses=["active"], exact=False)
    assert "memories_embedding_hnsw" not in exact
    assert "memories_embedding_hnsw" in approx
    caplog.set_level(logging.DEBUG, logger="memory_engine.stores.postgres.store")
    found = [store.dense_search(_vec(rng), scope=Scope.of(n), k=10) for n in names[:5]]
    assert [len(f) for f in found] == [10] * 5
    assert all(c.memory.tenant_id == n for f, n in zip(found, names, strict=False) for c in f)
    assert all(
        [c.scores["cosine"] for c in f] == sorted((c.scores["cosine"] for c in f), reverse=True)
        for f in found
    )
    assert any("hnsw iterative scan ef_search=10" in r.getMessage() for r in caplog.records)
    assert not any("exact scan" in r.getMessage() for r in caplog.records)
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_hnsw_shortfall_reruns_exactly(
    pg_store_factory: Callable[..., PostgresStore], caplog: pytest.LogCaptureFixture
) -> None:
    # Two tenants of equal size, but tenant "far" lies entirely on the other side of the query:
    # a plain HNSW scan (ef_search 40) finds none of its rows. The iterative scan reaches them;
    # stopped after 20 index tuples (hnsw_max_scan_tuples) it cannot, and the store re-runs
    # the search exactly.
    store = pg_store_factory(
        exact_search_max_rows=0, hnsw_ef_search_max=40, hnsw_max_scan_tuples=20
    )
    store.ensure_embedding("m", PG_TEST_DIM)
    rng = np.random.default_rng(8)
    near, far = new_tenant_id("near"), new_tenant_id("far")
    axis = np.zeros(PG_TEST_DIM)
    axis[0] = 1.0
    for name, sign in ((near, 1.0), (far, -1.0)):
        vecs = [sign * axis * 5 + rng.normal(scale=0.3, size=PG_TEST_DIM) for _ in range(200)]
        store.insert(
            [
                NewMemory(
                    memory=Memory(tenant_id=name, content=f"{name} {i}", content_hash=f"{i}"),
                    embedding=tuple(float(x) for x in v / np.linalg.norm(v)),
                    terms=("row",),
                )
                for i, v in enumerate(vecs)
            ],
            scope=Scope.of(name),
            actor="t",
        )
    with psycopg.connect(_url(store), autocommit=True) as conn:
        conn.execute("ANALYZE memories")
    caplog.set_level(logging.DEBUG, logger="memory_engine.stores.postgres.store")
    scope = Scope.of(far)
    storage = store.conn.settings.storage

    def search(max_scan_tuples: int) -> list[Any]:
        with store.conn.tx(scope) as cur:
            # 400 rows: the planner would sort the tenant's rows from its btree (exact); without
            # the sort the HNSW scan is the plan, as in a large table.
            cur.execute("SET LOCAL enable_sort = off")
            return dense_search(
                cur,
                np.asarray(axis, dtype=np.float32),
                scope=scope,
                k=10,
                statuses=["active"],
                exact_max_rows=storage.exact_search_max_rows,
                ef_max=storage.hnsw_ef_search_max,
                max_scan_tuples=max_scan_tuples,
            )

    found = search(storage.hnsw_max_scan_tuples)
    assert len(found) == 10 and {c.memory.tenant_id for c in found} == {far}
    assert any("hnsw iterative scan ef_search=40" in r.getMessage() for r in caplog.records)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert warnings and "re-running exactly" in warnings[0].getMessage()
    assert found == store.dense_search(tuple(axis), scope=scope, k=10)  # the store's own path
    exact_ids = [c.memory.id for c in found]

    caplog.clear()
    iterative = search(20_000)  # pgvector's default: the scan goes on to the far rows
    assert len(iterative) == 10 and {c.memory.tenant_id for c in iterative} == {far}
    assert len({c.memory.id for c in iterative} & set(exact_ids)) >= 8  # HNSW recall
    assert not [r for r in caplog.records if r.levelno == logging.WARNING]


def test_exact_path_below_threshold(
    pg_store: PostgresStore, caplog: pytest.LogCaptureFixture
) -> None:
    rng = np.random.default_rng(5)
    tenant = new_tenant_id()
    _put(pg_store, tenant, 12, rng)
    caplog.set_level(logging.DEBUG, logger="memory_engine.stores.postgres.store")
    assert len(pg_store.dense_search(_vec(rng), scope=Scope.of(tenant), k=5)) == 5
    assert any("exact scan over 12 rows" in r.getMessage() for r in caplog.records)


def test_nul_character_is_invalid_input_and_nothing_is_written(pg_store: PostgresStore) -> None:
    tenant = new_tenant_id()
    rng = np.random.default_rng(6)
    good = NewMemory(memory=Memory(tenant_id=tenant, content="fine"), embedding=_vec(rng))
    bad = NewMemory(memory=Memory(tenant_id=tenant, content="nul\x00byte"), embedding=_vec(rng))
    with pytest.raises(InvalidInputError):
        pg_store.insert([good, bad], scope=Scope.of(tenant), actor="t")
    assert pg_store.count(scope=Scope.of(tenant)) == 0


def test_dedupe_lookup_uses_the_unique_index(pg_store: PostgresStore) -> None:
    with psycopg.connect(_url(pg_store)) as conn:
        conn.execute("SET enable_seqscan = off")
        plan = "\n".join(
            r[0]
            for r in conn.execute(
                "EXPLAIN SELECT id FROM memories WHERE tenant_id = 't' AND status = 'active' "
                "AND content_hash <> '' AND coalesce(user_id, '') = ANY('{u}') "
                "AND content_hash = ANY('{h1,h2}')"
            ).fetchall()
        )
    assert "memories_active_content_hash" in plan


def test_keyword_candidates_come_from_an_index_under_rls(pg_store: PostgresStore) -> None:
    """Under row-level security PostgreSQL turns only LEAKPROOF operators into index
    conditions. The array operators of a GIN index on memories.terms are not leakproof, so the
    app role never used that index (migration 0002 dropped it); text equality is, so the btree
    of keyword_postings serves candidate generation and the BM25 contributions."""
    scope = Scope.of(new_tenant_id())
    with pg_store.conn.tx(scope) as cur:  # the app role, tenant set
        assert cur.execute("SELECT current_user").fetchone() == (
            pg_store.settings.storage.db_app_role,
        )
        leakproof = dict(
            cur.execute(
                "SELECT proname, proleakproof FROM pg_proc "
                "WHERE proname IN ('arrayoverlap', 'arraycontains', 'texteq')"
            ).fetchall()
        )
        cur.execute("SET LOCAL enable_seqscan = off")
        plan = explain_keyword(cur, scope, ["peanut", "allergy"], ["active"])
        gin = cur.execute("SELECT to_regclass('memories_terms_gin')").fetchone()
    assert leakproof == {"arrayoverlap": False, "arraycontains": False, "texteq": True}
    assert "Index Only Scan using keyword_postings_pkey on keyword_postings" in plan
    assert "Seq Scan on keyword_postings" not in plan
    assert gin == (None,)


def test_ef_search_formula() -> None:
    # The iterative scan replaced the ef_search sized by the tenant's share of the table
    # (k * table / matching * 2): the candidate list is pgvector's default 40, or k when larger.
    assert hnsw_ef_search(10, 1000) == 40
    assert hnsw_ef_search(50, 1000) == 50
    assert hnsw_ef_search(500, 400) == 400  # capped by hnsw_ef_search_max
    assert hnsw_ef_search(10, 10) == 10


def test_migrations_are_recorded_idempotent_and_race_free(
    make_pg_database: Callable[[str], str],
) -> None:
    url = make_pg_database("mig")
    results: list[list[int]] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(apply_migrations(url, "memory_app"))
        except BaseException as exc:  # noqa: BLE001 - asserted below
            errors.append(exc)

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    versions = [m.version for m in available_migrations()]
    assert versions[:2] == [1, 2]
    # each migration is applied exactly once; with several files, two starters may each
    # apply some of them (each file is its own locked transaction)
    assert sorted(v for r in results for v in r) == versions
    assert applied_versions(url) == versions
    assert apply_migrations(url, "memory_app") == []


def test_other_app_role_name(make_pg_database: Callable[[str], str]) -> None:
    url = make_pg_database("role")
    settings = Settings(_env_file=None, database_url=SecretStr(url), db_app_role="mem_other")  # type: ignore[call-arg]
    with PostgresStore(settings) as store, store.conn.tx(Scope.of("x")) as cur:
        assert cur.execute("SELECT current_user").fetchone() == ("mem_other",)


def test_deep_data_dir_uses_short_socket() -> None:
    base = Path(tempfile.mkdtemp(prefix="memory-engine-test-deep-"))
    deep = base.joinpath(*["a_rather_long_folder_name_segment"] * 4, "memory data")
    assert len(str(deep / ".s.PGSQL.5432")) > 108  # too long for a unix socket
    settings = Settings(_env_file=None, data_dir=deep, database_url=None)  # type: ignore[call-arg]
    try:
        url = resolve_database_url(settings)
        with psycopg.connect(url) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
        assert (deep / "postgres" / "PG_VERSION").exists()  # a new folder: PG in postgres/
        assert resolve_database_url(settings) == url  # same server on the second call
    finally:
        stop_embedded_server(deep)
        shutil.rmtree(base, ignore_errors=True)


def test_foreign_data_dir_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a database")
    with pytest.raises(StoreUnavailableError, match="not a PostgreSQL data folder"):
        start_embedded_server(tmp_path)


def test_unreachable_server_and_closed_store(pg_store_factory: Callable[..., Any]) -> None:
    bad = Settings(  # type: ignore[call-arg]
        _env_file=None,
        database_url=SecretStr("postgresql://nobody@/none?host=/nonexistent-dir&connect_timeout=2"),
    )
    with pytest.raises(StoreUnavailableError):
        PostgresStore(bad)
    store = pg_store_factory()
    store.close()
    store.close()
    with pytest.raises(StoreUnavailableError):
        store.count(scope=Scope.of("x"))
