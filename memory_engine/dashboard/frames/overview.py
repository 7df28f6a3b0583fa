"""Frames of the Overview page: counts per tenant or per category, and writes per day."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import pandas as pd

from memory_engine.dashboard.i18n import t


def counts_frame(counts: Mapping[str, int], lang: str, *, label: str = "col.value") -> pd.DataFrame:
    """``{name: count}`` -> rows ``(name, count)``, largest count first (ties by name)."""
    items = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return pd.DataFrame(
        {t(label, lang): [k for k, _ in items], t("col.count", lang): [v for _, v in items]}
    )


def writes_per_day_frame(writes_per_day: Sequence[tuple[str, int]], lang: str) -> pd.DataFrame:
    """``[(YYYY-MM-DD, count)]`` (UTC days) -> rows ``(day, count)`` oldest first."""
    return pd.DataFrame(
        {
            t("col.day", lang): [d for d, _ in writes_per_day],
            t("col.count", lang): [int(c) for _, c in writes_per_day],
        }
    )
