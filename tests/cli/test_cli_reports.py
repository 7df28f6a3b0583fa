"""Human output of isolation-check: verdict, per-path table, bounded leak list."""

from __future__ import annotations

from rich.console import Console

from memory_engine.cli.reports import MAX_DETAIL_ROWS, print_isolation
from memory_engine.isolation.check import IsolationReport, Leak


def _render(report: IsolationReport) -> str:
    console = Console(record=True, width=120)
    print_isolation(console, report.to_dict())
    return console.export_text()


def test_clean_report_shows_paths_and_no_leak() -> None:
    report = IsolationReport(
        run_id="r1",
        tenants=["a", "b"],
        memories_planted=8,
        probes=30,
        probes_by_path={"engine.search": 20, "mcp.search": 6, "dashboard.get": 4},
        duration_s=1.5,
        cleaned_up=True,
    )
    text = _render(report)
    assert "no leak" in text and "30 probes, 0 leaks" in text
    for path, n in (("engine", 20), ("mcp", 6), ("dashboard", 4)):
        assert any(line.split()[:2] == ["│", path] and str(n) in line for line in text.splitlines())
    assert "{" not in text  # not JSON


def test_leaks_are_listed_and_bounded() -> None:
    leaks = [Leak("mcp.search", "a", "b", f"canary [x] {i}") for i in range(MAX_DETAIL_ROWS + 3)]
    report = IsolationReport(
        run_id="r2",
        tenants=["a", "b"],
        memories_planted=8,
        probes=40,
        probes_by_path={"mcp.search": 40},
        leaks=leaks,
    )
    text = _render(report)
    assert "LEAKS FOUND" in text
    assert "canary [x] 0" in text  # markup in details is shown literally
    assert f"Leaks ({MAX_DETAIL_ROWS + 3})" in text and "truncated: 3 more" in text
    assert "Canary memories were kept" in text
