"""Streamlit, plotly and pandas are the ``dashboard`` extra (``pip install
memory-engine[dashboard]``): the library, the CLI and the MCP server import without them.

A subprocess blocks the three packages with a ``sys.meta_path`` finder that raises
``ImportError``, then imports ``memory_engine``, ``memory_engine.engine``, the CLI and the MCP
server, and every other module outside ``memory_engine.dashboard`` (whose scoped reads, used by
the isolation check, need none of them either).
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import tomllib

from tests.dashboard.helpers import ROOT

EXTRA = ("streamlit", "plotly", "pandas")

_PROBE = textwrap.dedent(
    """
    import importlib, pkgutil, sys

    BLOCKED = {blocked!r}

    class Blocked:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{{name}} is blocked (the dashboard extra is not installed)")
            return None

    sys.meta_path.insert(0, Blocked())
    import memory_engine, memory_engine.engine, memory_engine.cli, memory_engine.mcp_server
    import memory_engine.dashboard.reads

    for name in BLOCKED:  # the finder works
        try:
            importlib.import_module(name)
        except ImportError:
            continue
        raise SystemExit(f"{{name}} was not blocked")

    failed = []
    for info in pkgutil.walk_packages(memory_engine.__path__, "memory_engine."):
        name = info.name
        if name.startswith("memory_engine.dashboard.") or name.endswith(".__main__"):
            continue
        try:
            importlib.import_module(name)
        except ImportError as exc:
            failed.append(f"{{name}}: {{exc}}")
    loaded = sorted({{m.split(".")[0] for m in sys.modules}} & set(BLOCKED))
    print("FAILED", failed)
    print("LOADED", loaded)
    raise SystemExit(1 if failed or loaded else 0)
    """
)


def test_library_cli_and_mcp_import_without_the_dashboard_extra() -> None:
    code = _PROBE.format(blocked=EXTRA)
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=300
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_the_extra_lists_streamlit_plotly_and_pandas_and_the_core_does_not() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text("utf-8"))["project"]

    def names(requirements: list[str]) -> set[str]:
        return {r.split(">")[0].split("=")[0].split("[")[0].strip() for r in requirements}

    assert set(EXTRA) <= names(project["optional-dependencies"]["dashboard"])
    assert not set(EXTRA) & names(project["dependencies"])
