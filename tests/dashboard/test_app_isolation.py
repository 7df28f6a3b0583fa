"""Isolation page (AppTest, real engine + DB): an admin runs the check and sees zero leaks per
path; a viewer is refused."""

from __future__ import annotations

from collections.abc import Callable

from streamlit.testing.v1 import AppTest

from memory_engine.dashboard.i18n import t
from tests.dashboard.helpers import assert_clean, run_app, texts
from tests.dashboard.test_app_auth import auth_app, hashes, sign_in  # noqa: F401

ISOLATION = "pages/isolation.py"


def test_admin_runs_the_isolation_check(dashboard_env: dict[str, str]) -> None:
    at = run_app(page=ISOLATION)
    at.button(key="mi_iso_run").click().run()
    assert_clean(at)
    (ok,) = [s for s in texts(at.success)]
    assert ok.startswith("No leak:")
    per_path, calls = [d.value for d in at.dataframe if "path" in d.value.columns]
    assert list(per_path["path"]) == [
        "engine (Python API)",
        "cli (commands)",
        "mcp (MCP server)",
        "dashboard (page reads)",
    ]
    assert per_path["leaks"].sum() == 0 and (per_path["probes"] > 0).all()
    # the engine's probes for 3 tenants (120 before the entity index and the database-role
    # probe on the engine's own connection joined them)
    assert per_path["probes"].iloc[0] == 157
    assert calls["leaks"].sum() == 0 and calls["probes"].sum() == per_path["probes"].sum()
    assert set(calls["path"]) >= {
        "search.hybrid",
        "get",
        "export",
        "cli.search",
        "mcp.search",
        "mcp.tenant_argument",
        "dashboard.search",
        "dashboard.grant",
    }


def test_viewer_cannot_run_it(
    auth_app: Callable[..., AppTest],  # noqa: F811
    make_tenant: Callable[..., str],
) -> None:
    at = sign_in(auth_app(make_tenant()), "vera")
    at.switch_page(ISOLATION).run()
    assert_clean(at)
    assert not [b for b in at.button if b.key == "mi_iso_run"]
    assert any(t("auth.role.viewer", "en") in s for s in texts(at.caption))
