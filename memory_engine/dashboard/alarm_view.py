"""The cross-tenant alarm of a trace on the Query Replay page (``Trace.tenant_alarms``)."""

from __future__ import annotations

import streamlit as st

from memory_engine.dashboard.i18n import t
from memory_engine.models import Trace


def alarm_text(trace: Trace, lang: str) -> str | None:
    """The alarm message of ``trace`` in ``lang``, or None when it has no alarm."""
    if not trace.tenant_alarms:
        return None
    dropped = sum(int(a.get("dropped", 0)) for a in trace.tenant_alarms)
    stages = ", ".join(str(a.get("stage", "?")) for a in trace.tenant_alarms)
    return t("alarm.detail", lang, dropped=dropped, stages=stages)


def render_alarm(trace: Trace, lang: str) -> None:
    """A red error badge and the alarm message when ``trace`` met another tenant's rows."""
    text = alarm_text(trace, lang)
    if text is None:
        return
    st.badge(t("alarm.badge", lang), icon=":material/gpp_bad:", color="red")
    st.error(text)
