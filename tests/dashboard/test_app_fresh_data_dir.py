"""The Write Inspector on a user's first run: only ``MEMORY_DATA_DIR`` (an empty folder) set,
no database URL, no journal path (issue 15, item 1; the engine side:
tests/engine/test_fresh_data_dir.py)."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from memory_engine import Scope
from memory_engine.config.layout import JOURNAL_FILE, POSTGRES_DIR
from memory_engine.dashboard import state
from memory_engine.dashboard.i18n import t
from memory_engine.stores.postgres.embedded import stop_embedded_server
from tests.dashboard.conftest import new_tenant
from tests.dashboard.helpers import assert_clean, button, run_app


@pytest.fixture
def fresh_data_dir(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """An empty data folder as the app's only storage setting (mkdtemp: see tests/conftest.py)."""
    root = Path(tempfile.mkdtemp(prefix="memory-engine-test-dash-fresh-"))
    (root / "cwd").mkdir()
    (root / "data").mkdir()
    for key in list(os.environ):
        if key.startswith("MEMORY_"):
            monkeypatch.delenv(key)
    monkeypatch.setenv("MEMORY_DATA_DIR", str(root / "data"))
    monkeypatch.setenv("MEMORY_DASHBOARD_AUTH", "none")  # sign-in has its own tests
    monkeypatch.chdir(root / "cwd")
    state.get_engine.clear()
    try:
        yield root / "data"
    finally:
        try:
            state.get_engine().close()
        finally:
            state.get_engine.clear()
            stop_embedded_server(root / "data")
            shutil.rmtree(root, ignore_errors=True)


def test_write_inspector_extract_write_in_an_empty_data_dir(fresh_data_dir: Path) -> None:
    tenant = new_tenant("fresh")
    at = run_app(page="pages/write_inspector.py", tenant=tenant)
    at.text_area(key="mi_w_text").input("我对花生过敏")
    at.checkbox(key="mi_w_dry").set_value(False)
    button(at, t("write.run", "en")).click().run()
    assert_clean(at)
    assert not at.error, [e.value for e in at.error]
    (mem,) = state.get_engine().list(Scope.of(tenant)).items
    assert "花生" in mem.content
    assert (fresh_data_dir / JOURNAL_FILE).exists()
    assert (fresh_data_dir / POSTGRES_DIR / "PG_VERSION").exists()
