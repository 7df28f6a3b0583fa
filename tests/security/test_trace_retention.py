"""One noisy client cannot wipe a tenant's search history: traces are kept per client (user and
agent id) by count, and by age, on every store (PostgreSQL and each Qdrant kind)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from memory_engine.models import Scope
from tests.conformance.conftest import store_factory  # noqa: F401
from tests.support.traces import one_candidate_trace


def _queries(store: Any, tenant: str) -> list[str]:
    return sorted(r["query"] for r in store.list_traces(scope=Scope.of(tenant), limit=100).items)


def test_a_noisy_client_keeps_only_its_own_traces(
    store_factory: Any,  # noqa: F811
    tenant: str,
) -> None:
    store = store_factory.new(trace_retention=3)
    tenant_scope = Scope.of(tenant)
    base = datetime(2026, 6, 1, tzinfo=UTC)
    quiet = Scope.of(tenant, user_id="quiet")
    for i in range(2):
        store.save_trace(
            one_candidate_trace(quiet, f"quiet {i}", base + timedelta(minutes=i)), scope=quiet
        )
    store.save_trace(one_candidate_trace(tenant_scope, "server", base), scope=tenant_scope)
    noisy = Scope.of(tenant, user_id="noisy", agent_id="bot")
    for i in range(12):
        when = base + timedelta(hours=1, minutes=i)
        store.save_trace(one_candidate_trace(noisy, f"noisy {i:02d}", when), scope=noisy)
    assert _queries(store, tenant) == [
        "noisy 09",
        "noisy 10",
        "noisy 11",
        "quiet 0",
        "quiet 1",
        "server",
    ]


def test_traces_older_than_the_age_limit_are_removed(
    store_factory: Any,  # noqa: F811
    tenant: str,
) -> None:
    store = store_factory.new(trace_retention=100, trace_retention_days=30)
    scope = Scope.of(tenant, user_id="u")
    base = datetime(2026, 6, 1, tzinfo=UTC)
    store.save_trace(one_candidate_trace(scope, "old", base - timedelta(days=31)), scope=scope)
    store.save_trace(one_candidate_trace(scope, "recent", base - timedelta(days=29)), scope=scope)
    store.save_trace(one_candidate_trace(scope, "now", base), scope=scope)
    assert _queries(store, tenant) == ["now", "recent"]
