"""Download buttons of one export in its two formats: CSV (for spreadsheets) and JSON (exact).

``export_buttons`` draws the pair side by side; the bytes of each format come from one
function of the format (the frames' ``export_bytes`` / ``receipt_export``), so every export of
the dashboard names its file, type and keys the same way.
"""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st

#: Format -> MIME type of its download.
MIME = {"csv": "text/csv", "json": "application/json"}


def export_buttons(
    data: Callable[[str], bytes],
    *,
    stem: str,
    labels: dict[str, str],
    key: str,
) -> None:
    """A CSV and a JSON download button, side by side.

    Args:
        data: the export's bytes for a format (``"csv"`` or ``"json"``).
        stem: the file name without extension (``audit-<tenant>``).
        labels: the button label per format (``{"csv": ..., "json": ...}``), translated.
        key: widget key prefix; the buttons are ``<key>_csv`` and ``<key>_json``.
    """
    for col, fmt in zip(st.columns(len(MIME)), MIME, strict=True):
        col.download_button(
            labels[fmt],
            data(fmt),
            file_name=f"{stem}.{fmt}",
            mime=MIME[fmt],
            key=f"{key}_{fmt}",
        )
