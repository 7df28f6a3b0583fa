"""Memories: facets with counts, entity / user / agent / session filters, keyset-paginated
table, detail (with the memory's entities) + history, edit with diff preview + reason + version
check, archive/restore/delete (delete confirmed, archive and delete undoable), purge behind a
typed confirmation, bulk actions on several memories, CSV/JSON export.

Every filter, the page number and the memory shown are in the URL (``url_state``): a reload
or a shared link shows the same view, and the back button walks the views."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from memory_engine import Memory, MemorySource, MemoryStatus, MemoryType, Scope
from memory_engine.dashboard import reads, selection, signin, state, url_state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import memories as frames
from memory_engine.dashboard.frames.cells import clip, list_caption, short_id
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.page import empty_tenant_hint, open_page
from memory_engine.dashboard.signin import Action
from memory_engine.dashboard.url_state import DATES, TEXT, UrlParam, UrlState, choices, one_of
from memory_engine.dashboard.widgets import memory_actions as actions

PAGE_SIZES = (25, 50, 100)
EXPORT_MAX_ROWS = 50_000
W_TYPES, W_STATUSES, W_SOURCES = "mi_f_types", "mi_f_statuses", "mi_f_sources"
W_TEXT, W_DATES, W_SIZE, W_MEMORY = "mi_f_text", "mi_f_dates", "mi_f_size", "mi_w_memory"
W_ENTITY = "mi_f_entity"
W_USER, W_AGENT, W_SESSION, W_PAGE = "mi_f_user", "mi_f_agent", "mi_f_session", "mi_page"
#: Most entities offered by the entity filter (the most linked ones).
ENTITY_OPTIONS = 200
#: Bumped when a memory is picked outside the table, so the table re-renders with that row.
TABLE_GENERATION = "mi_table_generation"
#: The memory shown and the URL values a late rerun may still carry (``selection.Picked``).
SELECTED = "mi_selected"

page = open_page("memories.title")
lang, engine = page.lang, page.engine
# the memory shown: the session's choice over a URL the browser sent before it caught up
selection.resolve(SELECTED, state.QP_MEMORY)
url_id, bad_id = state.url_id(state.QP_MEMORY)
if bad_id is not None:
    st.warning(
        t("common.invalid_id", lang, param=t("common.param_memory", lang), value=md(bad_id[:80]))
    )
scope = page.require_tenant()
tenant = scope.tenant_id
can_edit = signin.allowed(Action.EDIT, tenant)  # viewers see the controls disabled
can_purge = signin.allowed(Action.PURGE, tenant)

actions.render_flash(engine, scope, lang, can_edit=can_edit)

with guard(lang):
    everything = engine.facet_counts(scope)
if sum(everything.get("memory_type", {}).values()) == 0:
    st.info(empty_tenant_hint(tenant, lang))
    st.stop()

# ---- filters (facet counts of each facet ignore that facet's own selection)
with guard(lang):
    entity_page = reads.list_entities(
        engine, signin.current_account(), tenant, limit=ENTITY_OPTIONS
    )
entity_names = {
    e.key: t("memories.entity_option", lang, name=e.name, count=e.memory_count)
    for e in entity_page.items
}
# ---- the view in the URL (a reload, a shared link or the back button restores it)
view = UrlState(
    (
        UrlParam("type", W_TYPES, choices(MemoryType)),
        UrlParam("status", W_STATUSES, choices(MemoryStatus)),
        UrlParam("source", W_SOURCES, choices(MemorySource)),
        UrlParam("entity", W_ENTITY, one_of(entity_names)),  # unknown (e.g. purged) = any
        UrlParam("q", W_TEXT, TEXT),
        UrlParam("created", W_DATES, DATES),
        UrlParam("user", W_USER, TEXT),
        UrlParam("agent", W_AGENT, TEXT),
        UrlParam("session", W_SESSION, TEXT),
        UrlParam("size", W_SIZE, one_of(PAGE_SIZES, PAGE_SIZES[0])),
        UrlParam("page", W_PAGE, url_state.positive_int(), resets_with=False),
    ),
    resets=("page",),
)
view.restore()
narrow: dict[str, str | None] = {}
for field, key in (("user_id", W_USER), ("agent_id", W_AGENT), ("session_id", W_SESSION)):
    value = str(st.session_state.get(key) or "").strip()
    if value and not url_state.valid_id(value):
        st.warning(t("memories.filter_bad_id", lang, value=md(value[:80])))
        value = ""
    narrow[field] = value or None
list_scope = Scope.of(tenant, **narrow)
filters = state.build_filter(
    types=st.session_state.get(W_TYPES, []),
    statuses=st.session_state.get(W_STATUSES, []),
    sources=st.session_state.get(W_SOURCES, []),
    text=st.session_state.get(W_TEXT, ""),
    dates=st.session_state.get(W_DATES) or None,
    entity=st.session_state.get(W_ENTITY),
)
with guard(lang):
    facets = {
        facet: engine.facet_counts(list_scope, filters=state.without_facet(filters, facet)).get(
            facet, {}
        )
        for facet in ("memory_type", "status", "source")
    }


def facet_label(facet: str):  # noqa: ANN201 - a format_func
    def label(value: str) -> str:
        kind = {"memory_type": "type"}.get(facet, facet)
        shown = value_label(kind, value, lang)
        return t("memories.facet_option", lang, value=shown, count=facets[facet].get(value, 0))

    return label


with st.expander(t("memories.filters", lang), expanded=True):
    row1 = st.columns(3)
    row1[0].multiselect(
        t("memories.filter_type", lang),
        [v.value for v in MemoryType],
        format_func=facet_label("memory_type"),
        **view.bind("type"),
        placeholder=t("memories.filter_any", lang),
    )
    row1[1].multiselect(
        t("memories.filter_status", lang),
        [v.value for v in MemoryStatus],
        format_func=facet_label("status"),
        **view.bind("status"),
        placeholder=t("memories.filter_any", lang),
    )
    row1[2].multiselect(
        t("memories.filter_source", lang),
        [v.value for v in MemorySource],
        format_func=facet_label("source"),
        **view.bind("source"),
        placeholder=t("memories.filter_any", lang),
    )
    row2 = st.columns([2, 2, 2, 1])
    row2[0].selectbox(
        t("memories.filter_entity", lang),
        list(entity_names),
        index=None,
        format_func=lambda key: entity_names.get(key, key),
        **view.bind("entity"),
        placeholder=t("memories.filter_any", lang),
    )
    row2[1].text_input(t("memories.filter_text", lang), **view.bind("q"))
    row2[2].date_input(t("memories.filter_dates", lang), **view.bind("created"))
    row2[3].selectbox(
        t("memories.page_size", lang),
        PAGE_SIZES,
        placeholder=t("common.choose_one", lang),
        **view.bind("size"),
    )
    row3 = st.columns(3)
    row3[0].text_input(t("memories.filter_user", lang), **view.bind("user"))
    row3[1].text_input(t("memories.filter_agent", lang), **view.bind("agent"))
    row3[2].text_input(t("memories.filter_session", lang), **view.bind("session"))
    if entity_page.truncated:
        st.caption(t("memories.entities_truncated", lang, n=ENTITY_OPTIONS))

# ---- the current page (keyset pagination; cursor stack reset when filters change)
page_size = int(st.session_state.get(W_SIZE) or PAGE_SIZES[0])
signature = json.dumps([tenant, narrow, filters.model_dump(mode="json"), page_size], sort_keys=True)
stack = state.CursorStack(st.session_state, "mi_cursors", signature)


def read_page(cursor: str | None):  # noqa: ANN201 - a Page
    return reads.list_memories(
        engine,
        signin.current_account(),
        tenant,
        filters=filters,
        limit=page_size,
        cursor=cursor,
        narrow=narrow,
    )


asked = int(st.session_state.get(W_PAGE) or 1)
with guard(lang):
    reached = stack.seek(asked - 1, lambda cursor: read_page(cursor).next_cursor)
    page = read_page(stack.cursor)
if reached + 1 != asked:  # a link beyond the last page: show the last one, say so
    st.warning(t("memories.page_beyond", lang, asked=asked, pages=reached + 1))
    view.set("page", reached + 1)
total = page.total if page.total is not None else len(page.items)
first, last = stack.bounds(page_size, len(page.items))
if not page.items:
    st.info(t("memories.no_match", lang))
else:
    st.caption(t("memories.rows", lang, first=first, last=last, total=total))
    page_frame = frames.memories_frame(page.items, lang)
    page_ids = [str(m.id) for m in page.items]
    # One key per page (filters, cursor, rows shown): a selection never carries over to
    # another page; the memory of the URL starts checked when it is on this page.
    table_key = state.table_key(
        "mi_table",
        signature,
        stack.cursor,
        ",".join(page_ids),
        st.session_state.get(TABLE_GENERATION, 0),
    )
    url_row = page_ids.index(str(url_id)) if str(url_id) in page_ids else None

    def on_row_selected() -> None:
        rows = st.session_state[table_key].selection.rows
        if rows and rows[0] < len(page_ids):
            selection.choose(SELECTED, state.QP_MEMORY, page_ids[rows[0]])
        elif not rows:  # the checked row was clicked again: close the detail
            selection.choose(SELECTED, state.QP_MEMORY, None)

    st.dataframe(
        page_frame,
        hide_index=True,
        key=table_key,
        on_select=on_row_selected,
        selection_mode="single-row",
        selection_default={"selection": {"rows": [url_row]}} if url_row is not None else None,
        column_config={t("col.id", lang): st.column_config.TextColumn(width="small")},
        placeholder="",
    )


def export_data(fmt: str) -> Callable[[], bytes]:
    """Deferred export (runs only when the download button is clicked)."""

    def data() -> bytes:
        return engine.export(list_scope, filters=filters, fmt=fmt, max_rows=EXPORT_MAX_ROWS)[0]

    return data


def go_next(cursor: str | None, number: int) -> None:
    """Next page: its cursor is known, so the next run reads only that page."""
    stack.push(cursor)
    view.set("page", number)


nav = st.columns([1, 1, 1, 1, 2])
nav[0].button(
    t("memories.prev", lang),
    on_click=view.set,
    args=("page", stack.page_index),  # the 1-based number of the page before
    disabled=stack.page_index == 0,
    key="mi_prev",
)
nav[1].button(
    t("memories.next", lang),
    on_click=go_next,
    args=(page.next_cursor, stack.page_index + 2),
    disabled=not page.next_cursor,
    key="mi_next",
)
for col, fmt, key in (
    (nav[2], "csv", "memories.export_csv"),
    (nav[3], "json", "memories.export_json"),
):
    col.download_button(
        t(key, lang),
        data=export_data(fmt),
        file_name=f"memories-{tenant}.{fmt}",
        mime="text/csv" if fmt == "csv" else "application/json",
        key=f"mi_export_{fmt}",
        on_click="ignore",
        disabled=total == 0,
    )
st.caption(t("memories.export_caption", lang, max=EXPORT_MAX_ROWS))
if total > EXPORT_MAX_ROWS:
    st.warning(t("memories.export_truncated", lang, max=EXPORT_MAX_ROWS))

if page.items:
    actions.bulk_panel(engine, scope, page.items, lang, can_edit=can_edit)

# ---- which memory to inspect (?memory=<id>; may come from another page's link)
st.divider()
by_id: dict[str, Memory] = {str(m.id): m for m in page.items}
selected: Memory | None = None
if url_id is not None:
    selected = by_id.get(str(url_id))
    if selected is None:
        with guard(lang, stop=False) as g:
            selected = reads.get_memory(engine, signin.current_account(), tenant, url_id)
        if g.failed:
            selection.choose(SELECTED, state.QP_MEMORY, None)
    if selected is not None:
        by_id.setdefault(str(selected.id), selected)


def memory_label(mid: str) -> str:
    m = by_id[mid]
    return f"{short_id(mid)} · {actions.status_text(m.status, lang)} · {clip(m.content, 70)}"


def on_memory_selected() -> None:
    selection.choose(SELECTED, state.QP_MEMORY, st.session_state.get(W_MEMORY))
    st.session_state[TABLE_GENERATION] = st.session_state.get(TABLE_GENERATION, 0) + 1


st.session_state[W_MEMORY] = str(selected.id) if selected else None
st.selectbox(
    t("memories.select", lang),
    list(by_id),
    index=None,
    format_func=memory_label,
    key=W_MEMORY,
    placeholder=t("memories.select_placeholder", lang),
    on_change=on_memory_selected,
)
if selected is None:
    st.caption(t("memories.select_hint", lang))
    st.stop()

# ---- detail: fields and history (re-read, so the version is current)
with guard(lang):
    memory = engine.get(scope, selected.id)
    history = engine.history(scope, memory.id)
    linked = reads.memory_entities(engine, signin.current_account(), tenant, memory.id)
mid = str(memory.id)
st.subheader(t("memories.detail", lang, short_id=short_id(mid)))
left, right = st.columns([2, 3])
with left:
    st.markdown(f"**{t('memories.fields', lang)}**")
    st.dataframe(frames.memory_fields_frame(memory, lang), hide_index=True, key="mi_fields")
    st.markdown(f"**{t('memories.entities', lang)}**")
    if linked:
        st.markdown(" · ".join(md(e.name) for e in linked))
    else:
        st.caption(t("memories.entities_empty", lang))
with right:
    st.markdown(f"**{t('memories.history', lang)}**")
    if history.items:
        st.dataframe(
            frames.events_frame(history.items, lang),
            hide_index=True,
            key="mi_history",
            placeholder="",
        )
        st.caption(list_caption(history, lang))
    else:
        st.caption(t("memories.history_empty", lang))
    actions.history_undo(engine, scope, memory, history.items, lang, can_edit=can_edit)
    st.page_link(
        "pages/audit.py",
        label=t("memories.timeline_link", lang),
        query_params={"tenant": tenant, "lang": lang, "memory": mid},
    )

# ---- edit: the version the user started from is kept until a save or an explicit reload
# (a form not on screen in the previous run starts from the version shown now).
base_key = actions.EDIT_BASE.format(mid)
base_version: int | None = st.session_state.get(base_key)
if base_version is None or f"mi_e_content_{mid}_{base_version}" not in st.session_state:
    base_version = memory.version
st.session_state[base_key] = base_version


def reload_memory() -> None:
    """Start over from the current version (the next run re-reads it)."""
    st.session_state.pop(base_key, None)


st.markdown(f"**{t('memories.edit', lang)}**")
deleted = memory.status is MemoryStatus.DELETED
if deleted:  # only restore or purge apply; the form stays visible, read-only
    st.info(t("memories.deleted_note", lang))
if base_version != memory.version:
    st.warning(t("memories.edit_stale", lang, current=memory.version, version=base_version))
    st.button(t("memories.reload", lang), on_click=reload_memory, key="mi_reload")
else:
    st.caption(t("memories.edit_version", lang, version=base_version))

suffix = f"{mid}_{base_version}"
types = [v.value for v in MemoryType]
reason_key = f"mi_e_reason_{suffix}"
if reason_key not in st.session_state:  # the reason persists until the user changes it
    st.session_state[reason_key] = st.session_state.get(actions.KEPT_REASON, "")
with st.form(f"mi_edit_{suffix}"):
    content = st.text_area(
        t("memories.content", lang),
        value=memory.content,
        key=f"mi_e_content_{suffix}",
        height=120,
        disabled=deleted,
    )
    c = st.columns(3)
    importance = c[0].number_input(
        t("memories.importance", lang),
        0.0,
        1.0,
        value=float(memory.importance),
        step=0.05,
        key=f"mi_e_importance_{suffix}",
        disabled=deleted,
    )
    memory_type = c[1].selectbox(
        t("memories.type", lang),
        types,
        index=types.index(memory.memory_type.value),
        format_func=lambda v: value_label("type", v, lang),
        key=f"mi_e_type_{suffix}",
        placeholder=t("common.choose_one", lang),
        disabled=deleted,
    )
    tags_text = c[2].text_input(
        t("memories.tags", lang),
        value=", ".join(memory.tags),
        key=f"mi_e_tags_{suffix}",
        disabled=deleted,
    )
    reason = st.text_input(t("memories.reason", lang), key=reason_key, disabled=deleted)
    b = st.columns([1, 1, 4])
    want_preview = b[0].form_submit_button(t("memories.preview", lang), disabled=deleted)
    want_save = b[1].form_submit_button(
        t("memories.save", lang), type="primary", disabled=deleted or not can_edit
    )

if want_preview or want_save:
    proposed = {
        "content": content,
        "importance": importance,
        "memory_type": memory_type,
        "tags": state.parse_tags(tags_text),
    }
    with guard(lang, stop=False) as g:
        preview = engine.preview_update(scope, memory.id, **proposed)
    if not g.failed:
        changed: dict[str, Any] = {name: proposed[name] for name in preview["fields"]}
        if not changed:
            st.info(t("memories.no_changes", lang))
        else:
            st.markdown(f"**{t('memories.diff', lang)}**")
            st.dataframe(frames.preview_frame(preview, lang), hide_index=True, key="mi_diff")
            if preview["content_diff"]:
                st.code(preview["content_diff"], language="diff")
        if want_save and changed:
            if not reason.strip():
                st.error(t("memories.reason_required", lang))
            else:
                actions.keep_reason(reason.strip())
                with guard(lang, stop=False) as g:
                    updated = engine.update(
                        scope,
                        memory.id,
                        expected_version=base_version,
                        reason=reason.strip(),
                        actor=signin.actor(),
                        **changed,
                    )
                if not g.failed:
                    st.session_state[base_key] = updated.version
                    actions.set_flash(t("memories.saved", lang, version=updated.version))
                    st.rerun()
                if base_version == memory.version:  # changed after this run read it
                    st.button(
                        t("memories.reload", lang),
                        on_click=reload_memory,
                        key="mi_reload_after_conflict",
                    )

# ---- lifecycle: archive / restore / delete (confirmed) / purge (typed), always open
actions.lifecycle_panel(
    engine,
    scope,
    memory,
    base_version,
    lang,
    can_edit=can_edit,
    can_purge=can_purge,
    on_purged=lambda: selection.choose(SELECTED, state.QP_MEMORY, None),
)
