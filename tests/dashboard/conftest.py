"""Fixtures of the dashboard tests.

The app under test builds its engine itself (``memory_engine.dashboard.state.get_engine``:
``MemoryEngine(Settings())``, settings from ``MEMORY_*``), exactly as in production. These
fixtures point ``MEMORY_DATABASE_URL`` at the test database before that engine is created, and
hand the tests that very engine (``st.cache_resource`` keeps one per process) to seed data and
to read results back. Every test works in its own fresh tenant, so tests never see each other's
rows and need no cleanup.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from memory_engine import MemoryEngine, MemorySource, MemoryType, Scope, WriteRequest
from memory_engine.dashboard import state

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APP = os.path.join(ROOT, "app.py")


@pytest.fixture(autouse=True)
def _navigation_app_mode(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make AppTest run ``app.py`` on every rerun, as a live server does.

    Streamlit treats a ``pages/`` folder next to the entrypoint as a legacy (v1) multipage app
    until ``st.navigation`` runs once, which then turns that mode off for the server process
    (``PagesManager.uses_pages_directory = False``). AppTest resets the flag before *every*
    run, so from the second run on it would execute ``pages/x.py`` alone, without ``app.py``
    (no sidebar, no URL sync). Here the flag stays off, as in a server after its first run.
    (A live server whose first request is a page URL has the same problem; the pages call
    ``state.ensure_router()`` for it, checked by a browser test.)
    """
    from streamlit.runtime.pages_manager import PagesManager

    original = PagesManager.__init__

    def init(self: PagesManager, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)  # type: ignore[arg-type]
        PagesManager.uses_pages_directory = False

    monkeypatch.setattr(PagesManager, "__init__", init)


@pytest.fixture(scope="session")
def dashboard_database_url(make_pg_database: Callable[[str], str]) -> str:
    """Owner URL of a fresh database on the session's embedded PostgreSQL (tests/conftest.py)."""
    return make_pg_database("dashboard")


@pytest.fixture(scope="session")
def dashboard_env(dashboard_database_url: str) -> Iterator[dict[str, str]]:
    """``MEMORY_*`` environment of the app under test (set for the whole session)."""
    env = {
        "MEMORY_DATABASE_URL": dashboard_database_url,
        "MEMORY_STORE": "postgres",
        "MEMORY_DASHBOARD_AUTH": "none",  # sign-in has its own tests (test_app_auth.py)
    }
    with pytest.MonkeyPatch.context() as mp:
        for key, value in env.items():
            mp.setenv(key, value)
        state.get_engine.clear()
        state.cached_tenant_counts.clear()
        yield env
        state.get_engine.clear()


@pytest.fixture
def dash_engine(dashboard_env: dict[str, str]) -> MemoryEngine:
    """The engine the app under test uses (same process, same ``st.cache_resource``)."""
    engine = state.get_engine()
    assert engine.settings.storage.database_url is not None
    assert (
        engine.settings.storage.database_url.get_secret_value()
        == dashboard_env["MEMORY_DATABASE_URL"]
    )
    state.cached_tenant_counts.clear()
    return engine


def new_tenant(prefix: str = "dash") -> str:
    """A tenant id no other test uses."""
    return f"{prefix}-{uuid.uuid4().hex[:10]}"


SAMPLE_FACTS = (
    ("Ann is allergic to peanuts", MemoryType.SEMANTIC, ("health",)),
    ("Ann prefers green tea in the morning", MemoryType.SEMANTIC, ("food",)),
    ("Ann flew to Lisbon on 12 May", MemoryType.EPISODIC, ("travel",)),
    ("To reset the router, hold the button for ten seconds", MemoryType.PROCEDURAL, ()),
)


@pytest.fixture
def make_tenant(dash_engine: MemoryEngine) -> Callable[..., str]:
    """``make_tenant(extra=0)``: a fresh tenant with the 4 sample facts plus ``extra`` numbered
    conversation memories (created one second apart, newest last)."""

    def make(extra: int = 0, prefix: str = "dash") -> str:
        tenant = new_tenant(prefix)
        start = datetime(2024, 5, 1, 9, 0, tzinfo=UTC)
        requests = [
            WriteRequest(
                text=text,
                memory_type=mtype,
                tags=tags,
                source=MemorySource.MANUAL,
                observed_at=start,
            )
            for text, mtype, tags in SAMPLE_FACTS
        ] + [
            WriteRequest(
                text=f"Conversation note number {i:03d} about the garden",
                source=MemorySource.CONVERSATION,
                observed_at=start + timedelta(minutes=i),
            )
            for i in range(extra)
        ]
        results = dash_engine.write_many(Scope.of(tenant), requests, actor="test")
        assert all(r.ok for r in results), [r.error for r in results if not r.ok]
        state.cached_tenant_counts.clear()
        return tenant

    return make


@pytest.fixture
def journal_engine(
    dash_engine: MemoryEngine, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Iterator[MemoryEngine]:
    """The engine the pages get during this test: the app engine's settings, store and
    embedder, with a write journal in this test's tmp folder injected through the constructor
    (``stores.engine_for`` serves it in place of the app's engine)."""
    from memory_engine.dashboard import stores
    from memory_engine.write.journal import WriteJournal

    journal = WriteJournal(tmp_path / "journal.sqlite3")
    engine = MemoryEngine(
        dash_engine.settings,
        store=dash_engine.store,
        embedder=dash_engine.embedder,
        journal=journal,
    )
    monkeypatch.setattr(stores, "engine_for", lambda store: engine)
    yield engine
    engine.stop_write_worker()
    engine.flush_accesses()
    journal.close()


@pytest.fixture
def dashboard_server(dashboard_env: dict[str, str], tmp_path: Path) -> Iterator[str]:
    """URL of ``streamlit run app.py`` on a free port, using the test database."""
    from tests.dashboard.browser import streamlit_server

    with streamlit_server(dashboard_env, tmp_path) as url:
        yield url
