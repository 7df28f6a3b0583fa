"""Context Preview: the exact prompt the model would get for a session (stored, or pasted
turns) and an input, with tokens per section, the recalled memories and why, and what the
token budget trimmed. Token counts come from ``engine.context`` itself.

URL parameters (besides ``tenant``, ``lang``), written when the form is run: ``src``
(``session`` or ``paste``), ``session``, ``q`` (the input), ``task``, ``budget``, ``paste`` (the
pasted turns, up to ``MAX_URL_TEXT`` characters) and ``system`` (a changed system prompt). A
link or a reload with ``q`` shows the same preview (computed once per session and view) as a
what-if that records nothing: opening a link stores no search trace, counts no access and
restores no archived memory (only a press of Assemble does, and links its trace)."""

from __future__ import annotations

import streamlit as st

from memory_engine import ContextResult
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import context as context_view
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.page import open_page
from memory_engine.dashboard.url_state import TEXT, UrlParam, UrlState, number, one_of, text

MAX_URL_TEXT = 4000  # characters of pasted turns / system prompt kept in a link
RESULT = "mi_c_result"  # (the view's URL values, its ContextResult)

page = open_page("ctx.title", caption_key="ctx.caption")
scope = page.require_tenant()
lang, engine, tenant = page.lang, page.engine, scope.tenant_id
settings = engine.settings

with guard(lang):
    sessions, more = engine.working_memory.store.sessions(tenant, limit=50)
sources = ["session", "paste"] if sessions else ["paste"]
default_budget = settings.context.window - settings.context.reserve_tokens
source_url = UrlState((UrlParam("src", "mi_c_source", one_of(sources, sources[0])),))
source_url.restore()
form_url = UrlState(
    (
        UrlParam("session", "mi_c_session", one_of(sessions, sessions[0] if sessions else None)),
        UrlParam("q", "mi_c_query", TEXT),
        UrlParam("task", "mi_c_task", one_of(["", *context_view.TASK_TYPES], "")),
        UrlParam("budget", "mi_c_budget", number(16, 10**9, default_budget, whole=True)),
        UrlParam("paste", "mi_c_paste", text("", max_chars=MAX_URL_TEXT)),
        UrlParam(
            "system",
            "mi_c_system",
            text(settings.context.system_prompt, max_chars=MAX_URL_TEXT),
        ),
    )
)
form_url.restore(when_changed=True)  # a submit is not overwritten by the old URL
source = st.radio(
    t("ctx.source", lang),
    sources,
    format_func=lambda s: t(f"ctx.source_{s}", lang),
    horizontal=True,
    **source_url.bind("src"),
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
    budget = c[1].number_input(t("ctx.budget", lang), 16, step=100, key="mi_c_budget")
    system_prompt = st.text_area(t("ctx.system_prompt", lang), key="mi_c_system")
    submitted = st.form_submit_button(t("ctx.run", lang), type="primary")

if submitted:
    if not query.strip():
        st.error(t("ctx.need_query", lang))
        st.stop()
    form_url.write()  # the link now shows this preview
    source_url.write()
url_view = (source, *form_url.snapshot())
if source == "paste" and len((pasted or "").strip()) > MAX_URL_TEXT:
    st.caption(t("ctx.paste_not_linked", lang, n=MAX_URL_TEXT))
cached = st.session_state.get(RESULT)
linked = bool(query.strip()) and (source == "session" or bool((pasted or "").strip()))
result: ContextResult | None = None
recorded = submitted  # the preview's recall stored its trace (a run, not a link)
if not submitted and cached is not None and cached[0] == url_view:
    result, recorded = cached[1], cached[2]  # this view's preview, computed in this session
elif submitted or linked:  # a submit, or a link / reload holding a whole view
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
            save_trace=submitted,  # a link or a reload records nothing (see module doc)
        )
        st.session_state[RESULT] = (url_view, result, submitted)
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
if not recorded:
    st.caption(t("ctx.link_not_recorded", lang))
elif result.trace_id is not None:
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
