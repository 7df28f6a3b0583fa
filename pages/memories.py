"""Memories: facets with counts, an entity filter, keyset-paginated table, detail (with the
memory's entities) + history, edit with diff preview + reason + version check,
archive/restore/delete, CSV/JSON export."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import streamlit as st

from memory_engine import Memory, MemorySource, MemoryStatus, MemoryType
from memory_engine.dashboard import reads, signin, state
from memory_engine.dashboard.errors import guard
from memory_engine.dashboard.frames import memories as frames
from memory_engine.dashboard.frames.cells import clip, list_caption, short_id
from memory_engine.dashboard.frames.labels import value_label
from memory_engine.dashboard.i18n import t
from memory_engine.dashboard.markdown import md
from memory_engine.dashboard.page import empty_tenant_hint, open_page
from memory_engine.dashboard.signin import Action

PAGE_SIZES = (25, 50, 100)
EXPORT_MAX_ROWS = 50_000
W_TYPES, W_STATUSES, W_SOURCES = "mi_f_types", "mi_f_statuses", "mi_f_sources"
W_TEXT, W_DATES, W_SIZE, W_MEMORY = "mi_f_text", "mi_f_dates", "mi_f_size", "mi_w_memory"
W_ENTITY = "mi_f_entity"
#: Most entities offered by the entity filter (the most linked ones).
ENTITY_OPTIONS = 200
FLASH = "mi_flash"
#: Bumped when a memory is picked outside the table, so the table re-renders with that row.
TABLE_GENERATION = "mi_table_generation"

page = open_page("memories.title")
lang, engine = page.lang, page.engine
url_id, bad_id = state.url_id(state.QP_MEMORY)
if bad_id is not None:
    st.warning(
        t("common.invalid_id", lang, param=t("common.param_memory", lang), value=md(bad_id[:80]))
    )
scope = page.require_tenant()
tenant = scope.tenant_id
can_edit = signin.allowed(Action.EDIT, tenant)  # viewers see the controls disabled

flash = st.session_state.pop(FLASH, None)
if flash:
    st.success(flash)

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
if st.session_state.get(W_ENTITY) not in entity_names:  # e.g. its last memory was purged
    st.session_state[W_ENTITY] = None
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
        facet: engine.facet_counts(scope, filters=state.without_facet(filters, facet)).get(
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
        key=W_TYPES,
        placeholder=t("memories.filter_any", lang),
    )
    row1[1].multiselect(
        t("memories.filter_status", lang),
        [v.value for v in MemoryStatus],
        format_func=facet_label("status"),
        key=W_STATUSES,
        placeholder=t("memories.filter_any", lang),
    )
    row1[2].multiselect(
        t("memories.filter_source", lang),
        [v.value for v in MemorySource],
        format_func=facet_label("source"),
        key=W_SOURCES,
        placeholder=t("memories.filter_any", lang),
    )
    row2 = st.columns([2, 2, 2, 1])
    row2[0].selectbox(
        t("memories.filter_entity", lang),
        list(entity_names),
        index=None,
        format_func=lambda key: entity_names.get(key, key),
        key=W_ENTITY,
        placeholder=t("memories.filter_any", lang),
    )
    row2[1].text_input(t("memories.filter_text", lang), key=W_TEXT)
    row2[2].date_input(t("memories.filter_dates", lang), value=[], key=W_DATES)
    row2[3].selectbox(
        t("memories.page_size", lang),
        PAGE_SIZES,
        key=W_SIZE,
        placeholder=t("common.choose_one", lang),
    )
    if entity_page.truncated:
        st.caption(t("memories.entities_truncated", lang, n=ENTITY_OPTIONS))

# ---- the current page (keyset pagination; cursor stack reset when filters change)
page_size = int(st.session_state.get(W_SIZE) or PAGE_SIZES[0])
signature = json.dumps([tenant, filters.model_dump(mode="json"), page_size], sort_keys=True)
stack = state.CursorStack(st.session_state, "mi_cursors", signature)
with guard(lang):
    page = reads.list_memories(
        engine,
        signin.current_account(),
        tenant,
        filters=filters,
        limit=page_size,
        cursor=stack.cursor,
    )
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
            state.set_param(state.QP_MEMORY, page_ids[rows[0]])
        elif not rows:  # the checked row was clicked again: close the detail
            state.set_param(state.QP_MEMORY, None)

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
        return engine.export(scope, filters=filters, fmt=fmt, max_rows=EXPORT_MAX_ROWS)[0]

    return data


nav = st.columns([1, 1, 1, 1, 2])
nav[0].button(
    t("memories.prev", lang), on_click=stack.pop, disabled=stack.page_index == 0, key="mi_prev"
)
nav[1].button(
    t("memories.next", lang),
    on_click=stack.push,
    args=(page.next_cursor,),
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
            state.set_param(state.QP_MEMORY, None)
    if selected is not None:
        by_id.setdefault(str(selected.id), selected)


def memory_label(mid: str) -> str:
    m = by_id[mid]
    return (
        f"{short_id(mid)} · {value_label('status', m.status.value, lang)} · {clip(m.content, 70)}"
    )


def on_memory_selected() -> None:
    state.set_param(state.QP_MEMORY, st.session_state.get(W_MEMORY))
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
    st.page_link(
        "pages/audit.py",
        label=t("memories.timeline_link", lang),
        query_params={"tenant": tenant, "lang": lang, "memory": mid},
    )

# ---- edit: the version the user started from is kept until a save or an explicit reload
# (a form not on screen in the previous run starts from the version shown now).
base_key = f"mi_edit_base_{mid}"
base_version: int | None = st.session_state.get(base_key)
if base_version is None or f"mi_e_content_{mid}_{base_version}" not in st.session_state:
    base_version = memory.version
st.session_state[base_key] = base_version


def reload_memory() -> None:
    """Start over from the current version (the next run re-reads it)."""
    st.session_state.pop(base_key, None)


st.markdown(f"**{t('memories.edit', lang)}**")
if base_version != memory.version:
    st.warning(t("memories.edit_stale", lang, current=memory.version, version=base_version))
    st.button(t("memories.reload", lang), on_click=reload_memory, key="mi_reload")
else:
    st.caption(t("memories.edit_version", lang, version=base_version))

suffix = f"{mid}_{base_version}"
types = [v.value for v in MemoryType]
with st.form(f"mi_edit_{suffix}"):
    content = st.text_area(
        t("memories.content", lang), value=memory.content, key=f"mi_e_content_{suffix}", height=120
    )
    c = st.columns(3)
    importance = c[0].number_input(
        t("memories.importance", lang),
        0.0,
        1.0,
        value=float(memory.importance),
        step=0.05,
        key=f"mi_e_importance_{suffix}",
    )
    memory_type = c[1].selectbox(
        t("memories.type", lang),
        types,
        index=types.index(memory.memory_type.value),
        format_func=lambda v: value_label("type", v, lang),
        key=f"mi_e_type_{suffix}",
        placeholder=t("common.choose_one", lang),
    )
    tags_text = c[2].text_input(
        t("memories.tags", lang), value=", ".join(memory.tags), key=f"mi_e_tags_{suffix}"
    )
    reason = st.text_input(t("memories.reason", lang), key=f"mi_e_reason_{suffix}")
    b = st.columns([1, 1, 4])
    want_preview = b[0].form_submit_button(t("memories.preview", lang))
    want_save = b[1].form_submit_button(
        t("memories.save", lang), type="primary", disabled=not can_edit
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
                    st.session_state[FLASH] = t("memories.saved", lang, version=updated.version)
                    st.rerun()
                if base_version == memory.version:  # changed after this run read it
                    st.button(
                        t("memories.reload", lang),
                        on_click=reload_memory,
                        key="mi_reload_after_conflict",
                    )

# ---- lifecycle: archive / restore / delete, same version check, reason required
with st.expander(t("memories.lifecycle", lang)):
    life_reason = st.text_input(t("memories.lifecycle_reason", lang), key=f"mi_l_reason_{suffix}")
    c = st.columns(3)
    actions = (
        (c[0], "memories.archive", engine.archive, memory.status != MemoryStatus.ACTIVE),
        (c[1], "memories.restore", engine.restore, memory.status == MemoryStatus.ACTIVE),
        (c[2], "memories.delete", engine.delete, memory.status == MemoryStatus.DELETED),
    )
    for col, label_key, action, disabled in actions:
        if col.button(t(label_key, lang), key=f"mi_{label_key}", disabled=disabled or not can_edit):
            if not life_reason.strip():
                st.error(t("memories.reason_required", lang))
                continue
            with guard(lang, stop=False) as g:
                changed_memory = action(
                    scope,
                    uuid.UUID(mid),
                    expected_version=base_version,
                    reason=life_reason.strip(),
                    actor=signin.actor(),
                )
            if not g.failed:
                st.session_state[base_key] = changed_memory.version
                st.session_state[FLASH] = t(
                    "memories.status_changed",
                    lang,
                    status=changed_memory.status.value,
                    version=changed_memory.version,
                )
                st.rerun()
