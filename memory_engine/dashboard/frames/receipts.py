"""Rows and frames of deletion receipts on the Audit page: what a purge will erase (its
preview, counted) and what was re-queried after it (the receipt stored as the details of a
``purge_proof`` event), with the CSV/JSON exports of a receipt."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

import pandas as pd

from memory_engine import spreadsheet_csv
from memory_engine.dashboard.i18n import label, t
from memory_engine.lifecycle.erasure import INDEX_CHECKS, READ_PATHS, PurgePreview

#: Columns of a receipt's CSV export: one row per check, with the receipt it belongs to.
RECEIPT_CSV_FIELDS = (
    "memory_id",
    "tenant_id",
    "at",
    "receipt_ok",
    "check",
    "kind",
    "before",
    "after",
    "ok",
    "error",
)


def check_label(name: str, lang: str) -> str:
    """The label of a check (``audit.check_<name>``; unknown names as they are)."""
    return label(f"audit.check_{name}", lang, name)


def preview_frame(preview: PurgePreview, lang: str) -> pd.DataFrame:
    """What a purge would erase: one row per index place, then per read path (hits now)."""
    rows = [
        {
            t("audit.col_place", lang): check_label(name, lang),
            t("audit.col_kind", lang): t("audit.kind_index", lang),
            t("audit.col_count", lang): preview.counts.get(name, 0),
        }
        for name in (*INDEX_CHECKS, *(k for k in preview.counts if k not in INDEX_CHECKS))
    ]
    rows += [
        {
            t("audit.col_place", lang): check_label(name, lang),
            t("audit.col_kind", lang): t("audit.kind_read_path", lang),
            t("audit.col_count", lang): preview.reads.get(name, 0),
        }
        for name in preview.reads
    ]
    cols = [t(k, lang) for k in ("audit.col_place", "audit.col_kind", "audit.col_count")]
    return pd.DataFrame(rows, columns=cols)


def is_receipt(details: Mapping[str, Any] | None) -> bool:
    """True for the details of a ``purge_proof`` event that carry a receipt's checks."""
    return bool(details) and isinstance(details.get("checks"), list)  # type: ignore[union-attr]


def receipt_rows(details: Mapping[str, Any]) -> list[dict[str, Any]]:
    """One plain row per check of a receipt (``RECEIPT_CSV_FIELDS``)."""
    return [
        {
            "memory_id": details.get("memory_id", ""),
            "tenant_id": details.get("tenant_id", ""),
            "at": details.get("at", ""),
            "receipt_ok": bool(details.get("ok")),
            "check": c.get("name", ""),
            "kind": c.get("kind", ""),
            "before": c.get("before", 0),
            "after": c.get("after", 0),
            "ok": bool(c.get("ok")),
            "error": c.get("error") or "",
        }
        for c in details.get("checks", [])
    ]


def receipt_frame(details: Mapping[str, Any], lang: str) -> pd.DataFrame:
    """A receipt's checks: place, kind, before, after and the result, in ``lang``."""
    rows = [
        {
            t("audit.col_place", lang): check_label(r["check"], lang),
            t("audit.col_kind", lang): t(f"audit.kind_{r['kind']}", lang),
            t("audit.col_before", lang): r["before"],
            t("audit.col_after", lang): r["after"],
            t("audit.col_result", lang): t("audit.pass" if r["ok"] else "audit.fail", lang)
            + (f" ({r['error']})" if r["error"] else ""),
        }
        for r in receipt_rows(details)
    ]
    keys = ("audit.col_place", "audit.col_kind", "audit.col_before", "audit.col_after")
    cols = [t(k, lang) for k in (*keys, "audit.col_result")]
    return pd.DataFrame(rows, columns=cols)


def receipt_export(details: Mapping[str, Any], fmt: str) -> bytes:
    """A receipt as UTF-8 ``json`` (the stored details as they are) or ``csv`` (one row per
    check, ``RECEIPT_CSV_FIELDS``)."""
    if fmt == "json":
        return json.dumps(dict(details), ensure_ascii=False, indent=1).encode("utf-8")
    return spreadsheet_csv(receipt_rows(details), RECEIPT_CSV_FIELDS)


__all__ = [
    "READ_PATHS",
    "RECEIPT_CSV_FIELDS",
    "check_label",
    "is_receipt",
    "preview_frame",
    "receipt_export",
    "receipt_frame",
    "receipt_rows",
]
