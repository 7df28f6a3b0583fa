"""Frames of the Isolation page, from the isolation check's report (``report.to_dict()``)."""

from __future__ import annotations

from typing import Any

import pandas as pd

from memory_engine.dashboard.i18n import t


def per_path_frame(report: dict[str, Any], lang: str) -> pd.DataFrame:
    """Probes and leaks per frontend path (engine, cli, mcp, dashboard), labels translated."""
    per_path = report.get("paths", {})
    return pd.DataFrame(
        {
            t("isolation.col_path", lang): [t(f"isolation.path.{p}", lang) for p in per_path],
            t("isolation.col_probes", lang): [v["probes"] for v in per_path.values()],
            t("isolation.col_leaks", lang): [v["leaks"] for v in per_path.values()],
        }
    )


def calls_frame(report: dict[str, Any], lang: str) -> pd.DataFrame:
    """Probes and leaks per probed call (``probes_by_path``; leaks counted from the details)."""
    probes = report["probes_by_path"]
    return pd.DataFrame(
        {
            t("isolation.col_path", lang): list(probes),
            t("isolation.col_probes", lang): list(probes.values()),
            t("isolation.col_leaks", lang): [
                sum(1 for x in report["leak_details"] if x["path"] == p) for p in probes
            ],
        }
    )


def leaks_frame(report: dict[str, Any]) -> pd.DataFrame:
    """One row per leak found (the report's ``leak_details`` as they are)."""
    return pd.DataFrame(report["leak_details"])
