"""Golden sets and roles on Query Replay (AppTest, real engine + DB, password sign-in): saving
and importing a golden set need the editor role. A viewer sees a translated notice instead of
the save form and the uploader, writes nothing, and may still run and export a set."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from memory_engine import MemoryEngine, Scope
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.widgets import golden as golden_ui
from memory_engine.retrieval.golden import GoldenCase, GoldenStore
from tests.dashboard.helpers import REPLAY, assert_clean, button, texts
from tests.dashboard.test_app_auth import auth_app, hashes, sign_in  # noqa: F401 - fixtures
from tests.dashboard.test_app_replay import submit_search


@pytest.fixture
def gold_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The app keeps golden sets under <data_dir>/golden; these tests keep them in tmp_path."""
    monkeypatch.setattr(golden_ui, "store_for", lambda engine, scope: GoldenStore(tmp_path, scope))
    return tmp_path


def _replay(at: AppTest, lang: str) -> AppTest:
    at.query_params["lang"] = lang
    at.switch_page(REPLAY).run()
    assert_clean(at)
    return submit_search(at, "peanut allergy", lang=lang, k=2)


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_viewer_cannot_save_or_import_but_runs_and_exports(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    gold_dir: Path,
    lang: str,
) -> None:
    tenant = make_tenant(extra=2)
    scope = Scope.of(tenant)
    store = GoldenStore(gold_dir, scope)
    peanut = [m.id for m in dash_engine.list(scope).items if "peanut" in m.content]
    store.add_case("kept", GoldenCase(query="peanut allergy", expected=peanut, k=5))
    at = _replay(sign_in(auth_app(tenant), "vera"), lang)
    assert t("gold.editor_only", lang) in texts(at.info)
    role, action = t("auth.role.viewer", lang), t("auth.action.edit", lang)
    assert t("auth.denied", lang, role=role, action=action) in texts(at.caption)
    # no save form, no name field, no uploader
    assert t("gold.save", lang) not in [b.label for b in at.button]
    assert not [w for w in at.text_input if w.key == "mi_gold_name"]
    assert not at.get("file_uploader")
    # running and exporting still work; the only change on disk is the recorded run
    button(at, t("gold.run", lang)).click().run()
    assert_clean(at)
    assert store.names() == ["kept"]
    golden = store.load("kept")
    assert len(golden.cases) == 1 and len(golden.runs) == 1
    assert [d for d in at.get("download_button") if d.proto.label == t("gold.export", lang)]


def test_editor_still_saves_and_sees_the_uploader(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
    dash_engine: MemoryEngine,
    gold_dir: Path,
) -> None:
    tenant = make_tenant(extra=2)
    at = _replay(sign_in(auth_app(tenant), "ed"), "en")
    assert t("gold.editor_only", "en") not in texts(at.info)
    assert at.get("file_uploader")
    at.text_input(key="mi_gold_name").input("allergies")
    button(at, t("gold.save", "en")).click().run()
    assert_clean(at)
    assert t("gold.saved", "en", name="allergies", n=1) in texts(at.success)
    assert GoldenStore(gold_dir, Scope.of(tenant)).names() == ["allergies"]
