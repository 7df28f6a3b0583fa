"""Frames of the Write Evaluation page: two suite reports (A and B, the JSON of
``bench/write_eval.py``) side by side."""

from __future__ import annotations

from typing import Any

import pandas as pd

from memory_engine.dashboard.i18n import t

#: Metrics of the side-by-side table, in order (report keys; ``cases_passed`` is derived).
METRICS = (
    "cases_passed",
    "should_remember_accuracy",
    "fact_recall",
    "fact_precision",
    "update_decision_accuracy",
    "polarity_errors",
    "forbidden_active",
    "raw_tool_output_stored",
    "distilled_fact_share",
    "memory_type_accuracy",
    "importance_ok",
    "temporary_ok",
    "entity_linking_accuracy",
    "entity_mention_recall",
    "write_errors",
)


def _value(report: dict[str, Any], key: str) -> float | None:
    if key == "cases_passed":
        return round(report["passed"] / report["cases"], 4) if report.get("cases") else None
    value = report.get(key)
    return None if value is None else float(value)


def _delta(a: float | None, b: float | None) -> float | None:
    return None if a is None or b is None else round(b - a, 4)


def metrics_frame(a: dict[str, Any], b: dict[str, Any], lang: str) -> pd.DataFrame:
    """One row per metric: its name, A's value, B's value and B − A (empty when unknown)."""
    rows = []
    for key in METRICS:
        va, vb = _value(a, key), _value(b, key)
        rows.append(
            {
                t("weval.col_metric", lang): t(f"weval.m_{key}", lang),
                "A": va,
                "B": vb,
                t("weval.col_delta", lang): _delta(va, vb),
            }
        )
    return pd.DataFrame(rows)


def category_frame(a: dict[str, Any], b: dict[str, Any], lang: str) -> pd.DataFrame:
    """Fact recall per category (every category either report has), A, B and B − A."""
    cats = sorted(set(a.get("by_category") or {}) | set(b.get("by_category") or {}))
    rows = []
    for cat in cats:
        va = (a.get("by_category") or {}).get(cat, {}).get("fact_recall")
        vb = (b.get("by_category") or {}).get(cat, {}).get("fact_recall")
        rows.append(
            {
                t("weval.col_category", lang): cat,
                "A": va,
                "B": vb,
                t("weval.col_delta", lang): _delta(va, vb),
            }
        )
    return pd.DataFrame(rows)


def failing_frame(report: dict[str, Any], lang: str) -> pd.DataFrame:
    """The failing cases of one report and their reasons (one line per reason)."""
    failing = report.get("failing_cases") or {}
    if isinstance(failing, list):
        failing = {case: [] for case in failing}
    return pd.DataFrame(
        [
            {t("weval.col_case", lang): case, t("weval.col_reasons", lang): "\n".join(why)}
            for case, why in failing.items()
        ],
        columns=[t("weval.col_case", lang), t("weval.col_reasons", lang)],
    )
