"""PII findings on the Write Inspector and Audit pages: which kinds were found, how many, and
what the tenant's policy did (redacted / blocked / kept as is). Never the value itself: the
engine records only ``{"policy", "kinds", "count"}`` (``security.policy.WriteScreen``) in a
memory's metadata, a journalled request's metadata, or a refusal event's details.

The data helpers are plain functions (unit-testable); ``render_*`` and ``*_facet`` draw.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd
import streamlit as st

from memory_engine.dashboard.i18n import STRINGS, t
from memory_engine.errors import SensitiveDataError
from memory_engine.models import Event

#: Key of the PII summary in the Audit page's event rows (also in its JSON export).
PII_KEY = "pii"


def pii_of(metadata: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The ``pii`` record of a metadata mapping, or None when there is none."""
    if not metadata:
        return None
    pii = metadata.get("pii")
    return dict(pii) if isinstance(pii, Mapping) and pii.get("kinds") else None


def kind_label(kind: str, lang: str) -> str:
    """Display name of a PII kind (the kind id itself when unknown)."""
    key = f"pii.kind.{kind}"
    return t(key, lang) if key in STRINGS else kind


def action_label(policy: str, lang: str) -> str:
    """What the policy did: ``redact`` -> redacted, ``block`` -> blocked, ``off`` -> kept."""
    key = f"pii.action.{policy}"
    return t(key, lang) if key in STRINGS else policy


def summary(pii: Mapping[str, Any] | None, lang: str) -> str:
    """One cell: ``kinds (count) · action``; ``""`` when nothing was found."""
    if not pii:
        return ""
    kinds = ", ".join(kind_label(k, lang) for k in pii.get("kinds", []))
    return f"{kinds} ({pii.get('count', '?')}) · {action_label(str(pii.get('policy')), lang)}"


# ----------------------------------------------------------------------------- Write Inspector
def write_pii(row: Mapping[str, Any]) -> dict[str, Any] | None:
    """The PII record of one journal row (its request's metadata), or None."""
    return pii_of((row.get("request") or {}).get("metadata"))


def with_write_pii(
    frame: pd.DataFrame, items: Sequence[Mapping[str, Any]], lang: str
) -> pd.DataFrame:
    """``frame`` (one row per journal row, same order) with a PII column."""
    out = frame.copy()
    out[t("pcol.pii", lang)] = [summary(write_pii(w), lang) for w in items]
    return out


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


# ----------------------------------------------------------------------------- Audit
def event_pii(event: Event) -> dict[str, Any] | None:
    """PII record of an event: a refusal's details, else the memory snapshot's metadata."""
    if isinstance(event.details.get("pii"), Mapping):
        return pii_of(event.details)
    for snap in (event.after, event.before):
        if snap:
            found = pii_of(snap.get("metadata"))
            if found:
                return found
    return None


def add_event_pii(
    rows: Sequence[Mapping[str, Any]], events: Iterable[Event], lang: str
) -> list[dict[str, Any]]:
    """Audit rows (``lifecycle_view.event_rows`` of ``events``, same order) with a ``pii``
    summary (``""`` when the event's memory had no findings)."""
    return [
        {**row, PII_KEY: summary(event_pii(e), lang)} for row, e in zip(rows, events, strict=True)
    ]


def only_pii(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows whose memory (or refused write) had PII findings."""
    return [r for r in rows if r.get(PII_KEY)]


def pii_facet(rows: Sequence[Mapping[str, Any]], lang: str, *, key: str) -> bool:
    """Checkbox "only events with PII findings (n)"; returns whether it is ticked."""
    return st.checkbox(t("audit.facet_pii", lang, n=len(only_pii(rows))), key=key)
