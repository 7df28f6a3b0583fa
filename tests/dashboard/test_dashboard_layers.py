"""The dashboard's own layers: ``frames`` is pure data shaping (no Streamlit, no plotly), and
the pages and ``app.py`` import only ``memory_engine``'s top-level names and the dashboard
package (``memory_engine.dashboard``), never engine internals."""

from __future__ import annotations

import ast
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.dashboard.helpers import ROOT

FRAMES = ROOT / "memory_engine" / "dashboard" / "frames"
PAGES = [ROOT / "app.py", *sorted((ROOT / "pages").glob("*.py"))]
#: The one page that composes across frontends: the Isolation page runs the isolation check with
#: the prober of each frontend (CLI, MCP, dashboard); it is the composition root of that check,
#: so it alone may import the check and the other frontends' probers (.importlinter says the same).
PAGE_EXCEPTIONS = {
    "memory_engine.isolation.check",
    "memory_engine.cli.isolation_probe",
    "memory_engine.mcp_server.isolation_probe",
}


def _imports(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_frames_import_no_streamlit_or_plotly() -> None:
    code = textwrap.dedent(
        """
        import importlib, pkgutil, sys

        class Blocked:
            def find_spec(self, name, path=None, target=None):
                if name.split(".")[0] in ("streamlit", "plotly"):
                    raise ImportError(name + " is blocked")
                return None

        sys.meta_path.insert(0, Blocked())
        import memory_engine.dashboard.frames as frames
        for info in pkgutil.iter_modules(frames.__path__, frames.__name__ + "."):
            importlib.import_module(info.name)
        """
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    for path in FRAMES.glob("*.py"):
        assert not {n.split(".")[0] for n in _imports(path)} & {"streamlit", "plotly"}, path


def test_pages_use_the_public_api_and_the_dashboard_package_only() -> None:
    for path in PAGES:
        engine_modules = {n for n in _imports(path) if n.split(".")[0] == "memory_engine"}
        wrong = {
            n
            for n in engine_modules - PAGE_EXCEPTIONS
            if n != "memory_engine" and not n.startswith("memory_engine.dashboard")
        }
        assert not wrong, f"{path.name} imports engine internals: {sorted(wrong)}"


def test_every_tenant_page_starts_with_the_page_preamble() -> None:
    for path in sorted((ROOT / "pages").glob("*.py")):
        text = path.read_text("utf-8")
        assert "open_page(" in text, path.name
        for repeated in ("state.ensure_router()", "state.current_lang()", "st.title("):
            assert repeated not in text, (path.name, repeated)
