"""The PII panels of the Write Inspector and Audit pages (data: :mod:`..frames.pii`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

from memory_engine import SensitiveDataError
from memory_engine.dashboard.frames.pii import action_label, kind_label, only_pii, write_pii
from memory_engine.dashboard.i18n import t


def render_write_pii(row: Mapping[str, Any], lang: str) -> None:
    """The PII panel of one write: kinds, count, what the policy did, the text as processed."""
    st.markdown(f"**{t('pii.header', lang)}**")
    pii = write_pii(row)
    if pii is None:
        st.caption(t("pii.none", lang))
        return
    policy = str(pii.get("policy"))
    kinds = ", ".join(kind_label(k, lang) for k in pii.get("kinds", []))
    found = t(
        "pii.found", lang, kinds=kinds, count=pii.get("count"), action=action_label(policy, lang)
    )
    text = str((row.get("request") or {}).get("text", ""))
    if policy == "block":
        st.error(found)
        st.caption(t("pii.blocked_note", lang))
        st.code(text, language="text")
    elif policy == "redact":
        st.warning(found)
        st.caption(t("pii.redacted_note", lang))
        st.code(text, language="text")
    else:
        st.warning(found)
        st.caption(t("pii.off_note", lang))


def show_refusal(error: SensitiveDataError, lang: str) -> str | None:
    """Say that a write was refused (kinds only); returns the refused write's id, if any."""
    kinds = [k for k in str(error.details.get("kinds", "")).split(",") if k]
    st.error(t("pii.refused_now", lang, kinds=", ".join(kind_label(k, lang) for k in kinds)))
    write_id = error.details.get("write_id")
    return str(write_id) if write_id else None


def pii_facet(rows: Sequence[Mapping[str, Any]], lang: str, *, key: str) -> bool:
    """Checkbox "only events with PII findings (n)"; returns whether it is ticked."""
    return st.checkbox(t("audit.facet_pii", lang, n=len(only_pii(rows))), key=key)
