"""Dashboard with both stores configured (AppTest, real PostgreSQL + real Qdrant local mode):
the sidebar store selector, the parity check on Overview and the side-by-side Query Replay;
plus the pure comparison functions of ``memory_engine.dashboard.store_compare``."""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import pytest
from scipy import stats as sstats

from memory_engine import MemoryEngine, Scope
from memory_engine.config import Settings
from memory_engine.dashboard import state, stores
from memory_engine.dashboard.frames import stores as store_compare
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import empty_tenant_hint
from memory_engine.stores.transfer import copy_stores
from tests.dashboard.helpers import OVERVIEW, REPLAY, assert_clean, button, run_app, texts
from tests.dashboard.test_app_replay import submit_search


# ----------------------------------------------------------------------------- pure functions
def test_overlap_at_k() -> None:
    a, b, c, d = (uuid.uuid4() for _ in range(4))
    assert store_compare.overlap_at_k([a, b, c], [c, b, a], 3) == 1.0
    assert store_compare.overlap_at_k([a, b], [a, c], 2) == 0.5
    assert store_compare.overlap_at_k([a, b, d], [a], 2) == 0.5  # top-2 vs top-1
    assert store_compare.overlap_at_k([], [], 5) is None


@pytest.mark.filterwarnings("ignore::scipy.stats.ConstantInputWarning")
def test_rank_correlations_match_scipy_and_edge_cases() -> None:
    rng = np.random.default_rng(3)
    for _ in range(20):
        n = int(rng.integers(2, 12))
        x = [float(v) for v in rng.integers(0, 6, size=n)]
        y = [float(v) for v in rng.integers(0, 6, size=n)]
        rho, tau = store_compare.spearman(x, y), store_compare.kendall_tau_b(x, y)
        ref_rho, ref_tau = sstats.spearmanr(x, y).statistic, sstats.kendalltau(x, y).statistic
        if np.isnan(ref_rho):
            assert rho is None
        else:
            assert rho == pytest.approx(ref_rho)
        if np.isnan(ref_tau):
            assert tau is None
        else:
            assert tau == pytest.approx(ref_tau)
    ids = [uuid.uuid4() for _ in range(4)]
    assert store_compare.rank_correlations(ids, ids) == (pytest.approx(1.0), pytest.approx(1.0), 4)
    rho, tau, n = store_compare.rank_correlations(ids, list(reversed(ids)))
    assert (rho, tau, n) == (pytest.approx(-1.0), pytest.approx(-1.0), 4)
    assert store_compare.rank_correlations(ids[:1], ids) == (None, None, 1)


def test_configured_stores() -> None:
    def make(**values: object) -> Settings:
        fields = {
            "store": "postgres",
            "database_url": None,
            "qdrant_url": None,
            "qdrant_path": None,
        }
        return Settings(_env_file=None, **{**fields, **values})  # type: ignore[arg-type]

    assert stores.configured_stores(make()) == ["postgres"]
    assert stores.configured_stores(make(qdrant_path="/tmp/x")) == ["postgres", "qdrant"]
    only_q = make(store="qdrant", qdrant_url="http://q:6333")
    assert stores.configured_stores(only_q) == ["qdrant"]
    with_pg = make(store="qdrant", qdrant_url="http://q:6333", database_url="postgresql://x/y")
    assert stores.configured_stores(with_pg) == ["postgres", "qdrant"]
    assert stores.pick_store("qdrant", None, ["postgres", "qdrant"], "postgres") == "qdrant"
    assert stores.pick_store("mongo", "qdrant", ["postgres", "qdrant"], "postgres") == "qdrant"
    assert stores.pick_store("qdrant", None, ["postgres"], "postgres") == "postgres"


# ----------------------------------------------------------------------------- app tests
@pytest.fixture
def both_stores(
    dash_engine: MemoryEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[dict[str, MemoryEngine]]:
    """PostgreSQL (the dashboard database) and a fresh Qdrant local folder, both configured."""
    monkeypatch.setenv("MEMORY_QDRANT_PATH", str(tmp_path / "qdrant"))
    state.get_engine.clear()
    state.cached_tenant_counts.clear()
    try:
        yield {"postgres": stores.engine_for("postgres"), "qdrant": stores.engine_for("qdrant")}
    finally:
        for engine in (stores.engine_for("qdrant"),):
            engine.close()
        monkeypatch.undo()
        state.get_engine.clear()
        state.cached_tenant_counts.clear()


def _copied_tenant(make_tenant: Callable[..., str], engines: dict[str, MemoryEngine]) -> str:
    tenant = make_tenant(extra=2)
    report = copy_stores(engines["postgres"].store, engines["qdrant"].store, tenants=[tenant])
    assert report["ok"] and report["totals"]["copied"] == 6
    return tenant


def test_selector_only_with_both_stores_and_it_switches_every_page(
    make_tenant: Callable[..., str], both_stores: dict[str, MemoryEngine]
) -> None:
    pg_only = make_tenant()  # only in PostgreSQL
    at = run_app(tenant=pg_only)
    radio = at.sidebar.radio(key=stores.W_STORE)
    assert list(radio.options) == ["PostgreSQL", "Qdrant"] and radio.value == "postgres"
    assert at.query_params["store"] == "postgres"
    assert t("sidebar.store", "en", name="postgres") in texts(at.sidebar.caption)
    radio.set_value("qdrant").run()
    assert_clean(at)
    assert at.query_params["store"] == "qdrant"
    assert t("sidebar.store", "en", name="qdrant") in texts(at.sidebar.caption)
    assert empty_tenant_hint(pg_only, "en") in texts(at.info)
    # the choice survives a page switch
    at.switch_page(REPLAY).run()
    assert_clean(at)
    assert at.sidebar.radio(key=stores.W_STORE).value == "qdrant"
    assert at.query_params["store"] == "qdrant"


def test_selector_hidden_with_one_store(make_tenant: Callable[..., str]) -> None:
    at = run_app(tenant=make_tenant())
    assert not [r for r in at.sidebar.radio if r.key == stores.W_STORE]
    assert "store" not in at.query_params


def test_overview_parity_and_a_difference(
    make_tenant: Callable[..., str], both_stores: dict[str, MemoryEngine]
) -> None:
    tenant = _copied_tenant(make_tenant, both_stores)
    at = run_app(page=OVERVIEW, tenant=tenant)
    frames = [d.value for d in at.dataframe if "memory records" in d.value.columns]
    assert len(frames) == 1
    parity = frames[0]
    assert list(parity["store"]) == ["PostgreSQL", "Qdrant"]
    assert list(parity["memory records"]) == [6, 6] and list(parity["active"]) == [6, 6]
    assert parity["events"].iloc[0] == parity["events"].iloc[1] == 6
    assert texts(at.success) == [t("stores.parity_ok", "en", records=6)]
    # a memory purged in Qdrant only: both counts and ids no longer match
    qd = both_stores["qdrant"]
    victim = qd.list(Scope.of(tenant), limit=1).items[0]
    qd.purge(Scope.of(tenant), victim.id, actor="test", reason="parity test")
    again = run_app(page=OVERVIEW, tenant=tenant, lang="zh")
    warnings = texts(again.warning)
    assert len(warnings) == 1 and warnings[0].startswith("不一致")


def test_replay_runs_one_query_on_both_stores(
    make_tenant: Callable[..., str], both_stores: dict[str, MemoryEngine]
) -> None:
    tenant = _copied_tenant(make_tenant, both_stores)
    at = run_app(page=REPLAY, tenant=tenant)
    submit_search(at, "peanut allergy", k=3)
    button(at, t("stores.compare_run", "en")).click().run()
    assert_clean(at)
    metrics = {m.label: m.value for m in at.metric}
    frames = [d.value for d in at.dataframe if "rank (Qdrant)" in d.value.columns]
    assert len(frames) == 1
    frame = frames[0]
    # the relevance floor keeps only the memories that match (here fewer than k=3); both
    # stores return the same ones, in the same order, with the same cosine
    n = len(frame)
    assert 1 <= n <= 3 and metrics["returned by both"] == str(n)
    assert metrics["overlap@3"] == "1.000"
    if n > 1:
        assert metrics["Spearman ρ"] == "1.000"
    assert list(frame["rank (PostgreSQL)"]) == list(frame["rank (Qdrant)"]) == list(range(1, n + 1))
    assert frame["Δ cosine"].abs().max() < 1e-4  # same vectors, same cosine
    assert "Ann is allergic to peanuts" in frame["content"].iloc[0]
    # Query Replay itself still saved the search in the chosen store only
    assert both_stores["qdrant"].list_traces(Scope.of(tenant)).total == 0
