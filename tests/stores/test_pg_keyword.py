"""PostgreSQL keyword leg: the BM25 statistics kept by triggers (migration 0002) always equal a
recount, and search results equal a brute-force BM25 computed in Python over the tenant's rows."""

from __future__ import annotations

import logging
import math
import uuid
from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import psycopg
import pytest
from pydantic import SecretStr

from memory_engine.config import Settings
from memory_engine.models import Memory, MemoryStatus, Scope
from memory_engine.stores.base import NewMemory
from memory_engine.stores.postgres import keyword as pg_keyword
from memory_engine.stores.postgres.migrate import apply_migrations, available_migrations
from memory_engine.stores.postgres.store import PostgresStore
from tests.conftest import PG_TEST_DIM, PG_TEST_MODEL, new_tenant_id

ACTIVE = MemoryStatus.ACTIVE


def _url(store: PostgresStore) -> str:
    assert store.settings.storage.database_url is not None
    return store.settings.storage.database_url.get_secret_value()


def _vec(rng: np.random.Generator) -> tuple[float, ...]:
    v = rng.normal(size=PG_TEST_DIM)
    return tuple(float(x) for x in v / np.linalg.norm(v))


def _item(tenant: str, terms: Sequence[str], rng: np.random.Generator, **fields: Any) -> NewMemory:
    content = " ".join(terms) or "(empty)"
    memory = Memory(tenant_id=tenant, content=content, content_hash=uuid.uuid4().hex, **fields)
    return NewMemory(memory=memory, embedding=_vec(rng), terms=tuple(terms))


# ----------------------------------------------------------------------------- recount


def _assert_consistent(store: PostgresStore, tenant: str) -> None:
    """The trigger-kept tables equal a recount of the tenant's rows (owner connection: the
    test server's owner is a superuser, so RLS does not hide anything)."""
    with psycopg.connect(_url(store)) as conn:
        kept_corpus = {
            tuple(r)
            for r in conn.execute(
                "SELECT status, n, sum_len FROM keyword_corpus WHERE tenant_id = %s AND n <> 0",
                [tenant],
            )
        }
        kept_df = {
            tuple(r)
            for r in conn.execute(
                "SELECT term, status, df FROM keyword_df WHERE tenant_id = %s AND df <> 0",
                [tenant],
            )
        }
        kept_postings = {
            tuple(r)
            for r in conn.execute(
                "SELECT term, memory_id, status, tf, doc_len FROM keyword_postings "
                "WHERE tenant_id = %s",
                [tenant],
            )
        }
        corpus = {
            tuple(r)
            for r in conn.execute(
                "SELECT status, count(*), coalesce(sum(doc_len), 0) FROM memories "
                "WHERE tenant_id = %s GROUP BY status",
                [tenant],
            )
        }
        df = {
            tuple(r)
            for r in conn.execute(
                "SELECT t.term, m.status, count(DISTINCT m.id) FROM memories m, "
                "unnest(m.terms) t(term) WHERE m.tenant_id = %s GROUP BY t.term, m.status",
                [tenant],
            )
        }
        postings = {
            tuple(r)
            for r in conn.execute(
                "SELECT t.term, m.id, m.status, count(*), m.doc_len FROM memories m, "
                "unnest(m.terms) t(term) WHERE m.tenant_id = %s "
                "GROUP BY t.term, m.id, m.status, m.doc_len",
                [tenant],
            )
        }
        bad = conn.execute(
            "SELECT (SELECT count(*) FROM keyword_df WHERE tenant_id = %(t)s AND df < 0) + "
            "(SELECT count(*) FROM keyword_corpus WHERE tenant_id = %(t)s "
            "AND (n < 0 OR sum_len < 0)) + (SELECT count(*) FROM memories "
            "WHERE tenant_id = %(t)s AND doc_len <> cardinality(terms))",
            {"t": tenant},
        ).fetchone()
    assert kept_corpus == corpus
    assert kept_df == df
    assert kept_postings == postings
    assert bad == (0,)


def test_statistics_follow_every_change(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(11)
    tenant, other = new_tenant_id(), new_tenant_id()
    scope = Scope.of(tenant)
    ids = [
        o.memory_id
        for o in pg_store.insert(
            [
                _item(tenant, ["peanut", "allergy", "peanut"], rng),
                _item(tenant, ["peanut", "butter", "toast"], rng, user_id="u1"),
                _item(tenant, ["coffee", "morning", "coffee", "coffee"], rng),
                _item(tenant, [], rng),
                _item(tenant, ["old", "fact"], rng, status=MemoryStatus.ARCHIVED),
            ],
            scope=scope,
            actor="t",
        )
    ]
    pg_store.insert([_item(other, ["peanut", "coffee"], rng)], scope=Scope.of(other), actor="t")
    _assert_consistent(pg_store, tenant)

    def change(i: int, action: str = "update", terms: Sequence[str] | None = None, **kw: Any):
        current = pg_store.get(ids[i], scope=scope)
        pg_store.update(
            ids[i],
            scope=scope,
            expected_version=current.version,
            changes=kw,
            terms=terms,
            actor="t",
            action=action,
        )
        _assert_consistent(pg_store, tenant)

    change(0, terms=["peanut", "free", "snack", "snack"], content="peanut free snack snack")
    change(2, importance=0.9)  # no keyword change
    change(2, terms=["coffee"])  # terms only (doc_len shrinks)
    change(0, "archive", status=MemoryStatus.ARCHIVED)
    change(0, "restore", status=MemoryStatus.ACTIVE)
    change(1, "delete", status=MemoryStatus.DELETED)
    change(2, "supersede", status=MemoryStatus.SUPERSEDED, superseded_by=ids[0])
    change(4, "restore", status=MemoryStatus.ACTIVE, terms=["new", "fact", "fact"])
    pg_store.purge(ids[3], scope=scope, actor="t")
    _assert_consistent(pg_store, tenant)
    pg_store.purge(ids[0], scope=scope, actor="t")
    _assert_consistent(pg_store, tenant)
    pg_store.bulk_insert(
        (_item(tenant, ["bulk", "peanut"][: 1 + i % 2] * (1 + i % 3), rng) for i in range(30)),
        scope=scope,
        actor="t",
        rebuild_index=False,
    )
    _assert_consistent(pg_store, tenant)
    _assert_consistent(pg_store, other)


def test_keyword_tables_have_row_level_security(pg_store: PostgresStore) -> None:
    rng = np.random.default_rng(12)
    ta, tb = new_tenant_id("a"), new_tenant_id("b")
    pg_store.insert([_item(ta, ["alpha"], rng)], scope=Scope.of(ta), actor="t")
    pg_store.insert([_item(tb, ["alpha"], rng)], scope=Scope.of(tb), actor="t")
    tables = ("keyword_corpus", "keyword_df", "keyword_postings")
    with psycopg.connect(_url(pg_store), autocommit=True) as conn:
        forced = conn.execute(
            "SELECT relname FROM pg_class WHERE relrowsecurity AND relforcerowsecurity "
            "AND relname = ANY(%s)",
            [list(tables)],
        ).fetchall()
        assert sorted(r[0] for r in forced) == sorted(tables)
        conn.execute(f"SET ROLE {pg_store.settings.storage.db_app_role}")
        for table in tables:
            with conn.transaction():
                conn.execute("SELECT set_config('app.tenant_id', %s, true)", [ta])
                seen = conn.execute(f"SELECT DISTINCT tenant_id FROM {table}").fetchall()
                assert seen == [(ta,)]
            assert conn.execute(f"SELECT count(*) FROM {table}").fetchone() == (0,)


# ----------------------------------------------------------------------------- brute force


def _brute_force(
    docs: dict[uuid.UUID, list[str]], query: Sequence[str], k: int
) -> list[tuple[uuid.UUID, float]]:
    """Exhaustive BM25 (k1 = 1.2, b = 0.75, Lucene idf) over ``docs``: top k by score, id."""
    n = len(docs)
    if n == 0:
        return []
    avgdl = sum(len(t) for t in docs.values()) / n
    terms = list(dict.fromkeys(t for t in query if t))
    df = {t: sum(1 for d in docs.values() if t in d) for t in terms}
    scored = []
    for mid, d in docs.items():
        tf = Counter(d)
        score = 0.0
        hit = False
        for t in terms:
            if tf[t]:
                hit = True
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                score += idf * tf[t] * 2.2 / (tf[t] + 1.2 * (1 - 0.75 + 0.75 * len(d) / avgdl))
        if hit:
            scored.append((mid, score))
    scored.sort(key=lambda x: (-x[1], str(x[0])))
    return scored[:k]


def _corpus(
    store: PostgresStore, tenant: str, n: int, rng: np.random.Generator
) -> dict[uuid.UUID, tuple[list[str], str | None, MemoryStatus]]:
    """``n`` rows like LoCoMo turns: ``said`` in every row, two speakers, mid-frequency and rare
    words with repetition, and a unique length per row (so no two rows tie)."""
    mids = [f"mid{i}" for i in range(6)]
    rares = [f"rare{i}" for i in range(40)]
    rows: dict[uuid.UUID, tuple[list[str], str | None, MemoryStatus]] = {}
    items = []
    for i in range(n):
        terms = ["said", "ann" if i % 2 else "bob"]
        terms += [m for m in mids if rng.random() < 0.25] * int(rng.integers(1, 3))
        terms += [r for r in rares if rng.random() < 0.02]
        terms += [f"filler{i}x{j}" for j in range(30 + i - len(terms))]  # length 30 + i
        rng.shuffle(terms)
        user = "u1" if i % 3 == 0 else None
        status = MemoryStatus.ARCHIVED if i % 7 == 0 else ACTIVE
        it = _item(tenant, terms, rng, user_id=user, status=status)
        rows[it.memory.id] = (terms, user, status)
        items.append(it)
    store.bulk_insert(items, scope=Scope.of(tenant), actor="t", rebuild_index=False)
    return rows


QUERIES = [
    ["rare3"],
    ["rare3", "rare7", "said"],
    ["said"],
    ["ann", "said"],
    ["mid1", "mid2", "ann", "rare11"],
    ["mid0", "mid1", "mid2", "mid3", "mid4", "mid5"],
    ["nothing", "rare5", "bob"],
    ["rare1", "rare2", "rare4", "rare8", "mid3", "said", "bob"],
]


@pytest.mark.parametrize("rare_min", [pg_keyword.RARE_DF_MIN, 5])
def test_keyword_search_equals_brute_force_bm25(
    pg_store: PostgresStore,
    rare_min: int,
    monkeypatch: pytest.MonkeyPatch,
    caplog: pytest.LogCaptureFixture,
) -> None:
    rng = np.random.default_rng(13)
    tenant = new_tenant_id()
    rows = _corpus(pg_store, tenant, 240, rng)
    # rare_min=5 makes the 5% rule bite at this size: candidates come from rare terms first,
    # common ones only when needed (several rounds); the default makes every term rare.
    monkeypatch.setattr(pg_keyword, "RARE_DF_MIN", rare_min)
    caplog.set_level(logging.DEBUG, logger="memory_engine.stores.postgres.store")
    views: list[tuple[Scope, tuple[MemoryStatus, ...]]] = [
        (Scope.of(tenant), (ACTIVE,)),
        (Scope.of(tenant), (ACTIVE, MemoryStatus.ARCHIVED)),
        (Scope.of(tenant, user_id="u1"), (ACTIVE,)),
    ]
    for scope, statuses in views:
        docs = {
            mid: terms
            for mid, (terms, user, status) in rows.items()
            if status in statuses and (scope.user_id is None or user == scope.user_id)
        }
        for query in QUERIES:
            for k in (1, 7, 50, 300):
                want = _brute_force(docs, query, k)
                got = pg_store.keyword_search(query, scope=scope, k=k, statuses=statuses)
                assert [c.memory.id for c in got] == [mid for mid, _ in want], (query, k)
                for c, (_, score) in zip(got, want, strict=True):
                    assert abs(c.scores["bm25"] - score) <= 1e-9
                assert [c.ranks["keyword"] for c in got] == list(range(1, len(got) + 1))
    rounds = [r.getMessage() for r in caplog.records if "rounds" in r.getMessage()]
    if rare_min == 5:  # the widening path ran
        assert any(" 1 rounds" not in m for m in rounds)


def test_migration_backfills_statistics(make_pg_database: Callable[[str], str]) -> None:
    """Rows written before 0002 (as under 0001) get their statistics from the backfill."""
    url = make_pg_database("backfill")
    first = available_migrations()[0]
    with psycopg.connect(url, autocommit=True) as conn, conn.transaction():
        conn.execute(
            "CREATE TABLE schema_migrations (version integer PRIMARY KEY, name text NOT NULL, "
            "applied_at timestamptz NOT NULL DEFAULT now())"
        )
        conn.execute(first.sql.encode())
        conn.execute("INSERT INTO schema_migrations (version, name) VALUES (1, %s)", [first.name])
        for i, terms in enumerate([["a", "b", "a"], ["b"], [], ["c", "a"]]):
            conn.execute(
                "INSERT INTO memories (id, tenant_id, content, memory_type, source, status, "
                "created_at, updated_at, terms, doc_len) VALUES (gen_random_uuid(), %s, %s, "
                "'episodic', 'manual', %s, now(), now(), %s, %s)",
                [
                    "t-old" if i < 3 else "t-other",
                    f"row {i}",
                    "active" if i else "archived",
                    terms,
                    len(terms),
                ],
            )
    assert apply_migrations(url, "memory_app")[0] == 2
    settings = Settings(_env_file=None, database_url=SecretStr(url))  # type: ignore[call-arg]
    with PostgresStore(settings) as store:
        _assert_consistent(store, "t-old")
        _assert_consistent(store, "t-other")
        store.ensure_embedding(PG_TEST_MODEL, PG_TEST_DIM)
        assert [
            c.memory.content for c in store.keyword_search(["b"], scope=Scope.of("t-old"), k=5)
        ] == ["row 1"]
