"""Context Preview: the exact prompt the model would get for a session (stored, or pasted
turns) and an input, with tokens per section, the recalled memories and why, and what the
token budget trimmed. Token counts come from ``engine.context`` itself."""

from __future__ import annotations

import streamlit as st

from memory_engine import ContextResult
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import context as context_view
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import open_page

page = open_page("ctx.title", caption_key="ctx.caption")
scope = page.require_tenant()
lang, engine, tenant = page.lang, page.engine, scope.tenant_id
settings = engine.settings

with guard(lang):
    sessions, more = engine.working_memory.store.sessions(tenant, limit=50)
sources = ["session", "paste"] if sessions else ["paste"]
source = st.radio(
    t("ctx.source", lang),
    sources,
    format_func=lambda s: t(f"ctx.source_{s}", lang),
    horizontal=True,
    key="mi_c_source",
)
if not sessions:
    st.caption(t("ctx.no_sessions", lang))
elif more:
    st.caption(t("ctx.sessions_cut", lang, shown=len(sessions)))

with st.form("mi_context"):
    session = pasted = None
    if source == "session":
        session = st.selectbox(
            t("ctx.session", lang),
            sessions,
            key="mi_c_session",
            placeholder=t("common.choose_one", lang),
        )
    else:
        pasted = st.text_area(
            t("ctx.paste", lang), key="mi_c_paste", help=t("ctx.paste_help", lang), height=180
        )
    query = st.text_input(t("ctx.query", lang), key="mi_c_query")
    c = st.columns(2)
    task = c[0].selectbox(
        t("ctx.task_type", lang),
        ["", *context_view.TASK_TYPES],
        format_func=lambda v: t(f"ctx.task.{v}", lang) if v else t("ctx.task_none", lang),
        key="mi_c_task",
        placeholder=t("common.choose_one", lang),
    )
    budget = c[1].number_input(
        t("ctx.budget", lang),
        16,
        value=settings.context.window - settings.context.reserve_tokens,
        step=100,
        key="mi_c_budget",
    )
    system_prompt = st.text_area(
        t("ctx.system_prompt", lang), value=settings.context.system_prompt, key="mi_c_system"
    )
    submitted = st.form_submit_button(t("ctx.run", lang), type="primary")

if not submitted:
    st.stop()
if not query.strip():
    st.error(t("ctx.need_query", lang))
    st.stop()
result: ContextResult | None = None
with guard(lang, stop=False), st.spinner(t("common.searching", lang)):
    view = None
    session_id = session or context_view.PASTE_SESSION
    if source == "paste":
        turns = context_view.parse_turns(pasted or "")
        view = context_view.pasted_view(turns, tenant, settings)
    result = engine.context(
        scope,
        session_id,
        query,
        task or None,
        system_prompt=system_prompt,
        budget_tokens=int(budget),
        view=view,
    )
if result is None:
    st.stop()

m = st.columns(4)
m[0].metric(
    t("ctx.total", lang),
    t("ctx.total_value", lang, total=result.total_tokens, budget=result.budget_tokens),
)
m[1].metric(t("ctx.mode", lang), t(f"ctx.mode_{result.mode}", lang))
m[2].metric(t("ctx.history", lang), result.history_tokens)
m[3].metric(t("ctx.summarized", lang), result.summarized_rounds)

st.subheader(t("ctx.sections", lang))
st.dataframe(context_view.sections_frame(result, lang), hide_index=True, key="mi_c_sections")

st.subheader(t("ctx.messages", lang))
for row in context_view.message_rows(result, lang):
    st.markdown(f"**{row['label']}**")
    st.code(row["content"], language=None, wrap_lines=True)

st.subheader(t("ctx.memories", lang))
if result.memories:
    st.dataframe(context_view.memories_frame(result, lang), hide_index=True, key="mi_c_memories")
else:
    st.caption(t("ctx.no_memories", lang))
if result.trace_id is not None:
    st.page_link(
        "pages/query_replay.py",
        label=t("ctx.trace_link", lang),
        icon=":material/manage_search:",
        query_params={"tenant": tenant, "lang": lang, "trace": str(result.trace_id)},
    )

st.subheader(t("ctx.trimmed", lang))
st.caption(t("ctx.trim_order", lang))
if result.trimmed:
    st.dataframe(context_view.trimmed_frame(result, lang), hide_index=True, key="mi_c_trimmed")
else:
    st.caption(t("ctx.nothing_trimmed", lang))
