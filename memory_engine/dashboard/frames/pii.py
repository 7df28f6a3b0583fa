"""PII findings on the Write Inspector and Audit pages: which kinds were found, how many, and
what the tenant's policy did (redacted / blocked / kept as is). Never the value itself: the
engine records only ``{"policy", "kinds", "count"}`` (``security.policy.WriteScreen``) in a
memory's metadata, a journalled request's metadata, or a refusal event's details.

The pure part; the panels that draw are :mod:`memory_engine.dashboard.widgets.pii`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import pandas as pd

from memory_engine.dashboard.i18n import label, t
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
    return label(f"pii.kind.{kind}", lang, kind)


def action_label(policy: str, lang: str) -> str:
    """What the policy did: ``redact`` -> redacted, ``block`` -> blocked, ``off`` -> kept."""
    return label(f"pii.action.{policy}", lang, policy)


def summary(pii: Mapping[str, Any] | None, lang: str) -> str:
    """One cell: ``kinds (count) · action``; ``""`` when nothing was found."""
    if not pii:
        return ""
    kinds = ", ".join(kind_label(k, lang) for k in pii.get("kinds", []))
    return f"{kinds} ({pii.get('count', '?')}) · {action_label(str(pii.get('policy')), lang)}"


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
    """Audit rows (``frames.audit.event_rows`` of ``events``, same order) with a ``pii``
    summary (``""`` when the event's memory had no findings)."""
    return [
        {**row, PII_KEY: summary(event_pii(e), lang)} for row, e in zip(rows, events, strict=True)
    ]


def only_pii(rows: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    """Rows whose memory (or refused write) had PII findings."""
    return [r for r in rows if r.get(PII_KEY)]
