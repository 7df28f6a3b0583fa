"""The cross-tenant alarm of a trace on the Query Replay page (``Trace.tenant_alarms``)."""

from __future__ import annotations

import streamlit as st

from memory_engine.dashboard.frames.traces import alarm_text
from memory_engine.dashboard.i18n import t
from memory_engine.models import Trace


def render_alarm(trace: Trace, lang: str) -> None:
    """A red error badge and the alarm message when ``trace`` met another tenant's rows."""
    text = alarm_text(trace, lang)
    if text is None:
        return
    st.badge(t("alarm.badge", lang), icon=":material/gpp_bad:", color="red")
    st.error(text)
