"""``forget_user`` also forgets the user's working-memory sessions, on both backends
(in-process and a real redis-server), and ``memory-engine forget-user`` reports how many."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memory_engine import Scope
from memory_engine.context.service import user_session_match, working_session
from memory_engine.context.working_store import RedisWorkingStore
from memory_engine.errors import InvalidInputError
from tests.conftest import new_tenant_id
from tests.context.conftest import engine_on

REPO = Path(__file__).resolve().parents[2]


def _seed(engine: Any, tenant: str) -> dict[str, Scope]:
    """Sessions of u1 (no agent, agent a1, agent a2; a long session id), u2, and tenant-wide."""
    scopes = {
        "u1": Scope.of(tenant, user_id="u1"),
        "u1a1": Scope.of(tenant, user_id="u1", agent_id="a1"),
        "u1a2": Scope.of(tenant, user_id="u1", agent_id="a2"),
        "u2": Scope.of(tenant, user_id="u2"),
        "all": Scope.of(tenant),
        "agent": Scope.of(tenant, agent_id="a1"),
    }
    for name, scope in scopes.items():
        engine.add_turn(scope, "s1", "user", f"hello from {name} 你好")
    engine.add_turn(scopes["u1a1"], "s-" + "x" * 60, "user", "a long session id")
    return scopes


def test_forget_user_clears_only_that_users_sessions(engine_with_store: Any) -> None:
    engine = engine_with_store
    tenant, other = new_tenant_id("fwm"), new_tenant_id("fwm-other")
    scopes = _seed(engine, tenant)
    engine.add_turn(Scope.of(other, user_id="u1"), "s1", "user", "same user id, other tenant")
    engine.write(scopes["u1"], "u1 likes green tea")

    report = engine.forget_user(scopes["u1"], reason="GDPR request")

    assert report.working_sessions_cleared == 4  # s1 x (no agent, a1, a2) + the long id
    assert report.purged == 1
    store = engine.working_memory.store
    for name in ("u1", "u1a1", "u1a2"):
        assert store.load(tenant, working_session(scopes[name], "s1")).messages == []
    for name in ("u2", "all", "agent"):  # other users, tenant-wide and agent-only stay
        kept = store.load(tenant, working_session(scopes[name], "s1"))
        assert [m.content for m in kept.messages] == [f"hello from {name} 你好"]
    same_id = store.load(other, working_session(Scope.of(other, user_id="u1"), "s1"))
    assert len(same_id.messages) == 1  # the same user id in another tenant is untouched
    remaining, _ = store.sessions(tenant)
    assert sorted(remaining) == sorted(
        working_session(scopes[n], "s1") for n in ("u2", "all", "agent")
    )
    again = engine.forget_user(scopes["u1"], reason="again")
    assert again.working_sessions_cleared == 0
    with pytest.raises(InvalidInputError):
        engine.clear_user_sessions(scopes["all"])  # a user is required


def test_user_session_keys() -> None:
    tenant = "t"
    u1 = working_session(Scope.of(tenant, user_id="u1", agent_id="a9"), "s1")
    long_key = working_session(Scope.of(tenant, user_id="u1"), "y" * 64)
    u2 = working_session(Scope.of(tenant, user_id="u2"), "s1")
    assert len(long_key) <= 64 and u1.startswith("s1:u")
    match = user_session_match("u1")
    assert match(u1) and match(long_key) and not match(u2) and not match("s1")


def test_cli_forget_user_reports_cleared_redis_sessions(
    context_engine: Any, redis_url: str, tmp_path: Path
) -> None:
    """The CLI runs in its own process: it reaches the sessions through the shared Redis."""
    tenant = new_tenant_id("fwm-cli")
    store = RedisWorkingStore(redis_url, ttl_seconds=3600)
    try:
        with engine_on(context_engine, store) as engine:  # working store injected
            scopes = _seed(engine, tenant)
        env = {
            **{k: v for k, v in os.environ.items() if not k.startswith("MEMORY_")},
            "MEMORY_DATABASE_URL": context_engine.settings.storage.database_url.get_secret_value(),
            "MEMORY_REDIS_URL": redis_url,
            "PYTHONPATH": str(REPO),
        }
        run = subprocess.run(
            [sys.executable, "-m", "memory_engine.cli", "forget-user", "--tenant", tenant]
            + ["--user", "u1", "--reason", "GDPR", "--json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
            timeout=300,
        )
        assert run.returncode == 0, run.stderr
        data = json.loads(run.stdout)
        assert data["working_sessions_cleared"] == 4
        left, _ = store.sessions(tenant)
        assert sorted(left) == sorted(
            working_session(scopes[n], "s1") for n in ("u2", "all", "agent")
        )
        sessions_left = {k.split("/")[2] for k in store._r.scan_iter(f"memwm/{tenant}/*/*")}
        assert sessions_left and not any(user_session_match("u1")(k) for k in sessions_left)
    finally:
        store.close()
