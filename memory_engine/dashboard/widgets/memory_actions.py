"""Memories page: the safe edit controls of one memory and of a selection.

* :func:`render_flash`: the message of the last change, with an Undo button after an archive
  or a delete (a callback: the undo runs before the next script run).
* :func:`reason_input`: a reason field that starts from the last reason typed (it persists
  until the user changes it, across actions, versions and memories).
* :func:`lifecycle_panel`: archive / restore / delete (delete asks for confirmation) and, for
  accounts that may purge, purge behind a typed confirmation (the id's first 8 characters);
  always open; controls that cannot apply (a deleted memory) are disabled with the reason.
* :func:`history_undo`: Undo of the memory's last archive or delete, from its history.
* :func:`bulk_panel`: archive / restore / delete / retag of several memories of the page with
  one reason (delete asks for confirmation; archive and delete can be undone).

The changes themselves are :mod:`memory_engine.dashboard.editing` (engine calls, audited).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

import streamlit as st

from memory_engine import Memory, MemoryEngine, MemoryStatus, Scope
from memory_engine.dashboard import editing, signin, state
from memory_engine.dashboard.errors import error_message, guard
from memory_engine.dashboard.frames.cells import clip, short_id
from memory_engine.dashboard.i18n import label, t
from memory_engine.dashboard.markdown import md
from memory_engine.models import Event

FLASH: Final = "mi_flash"
#: The last reason the user typed (the default of every reason field).
KEPT_REASON: Final = "mi_reason_kept"
#: A delete waiting for its confirmation: ``{"ids": [...], "versions": [...]}``.
PENDING_DELETE: Final = "mi_pending_delete"
W_BULK_IDS, W_BULK_ACTION = "mi_bulk_ids", "mi_bulk_action"
W_BULK_ADD, W_BULK_REMOVE = "mi_bulk_add", "mi_bulk_remove"
#: Set after a bulk action: the next run starts with an empty selection.
BULK_CLEAR: Final = "mi_bulk_clear"
#: The version an edit form started from, per memory (``EDIT_BASE.format(id)``; the page's).
EDIT_BASE: Final = "mi_edit_base_{}"


def forget_edit_bases(memories: Sequence[Memory]) -> None:
    """After a change made here, the edit form of each memory starts from its new version."""
    for memory in memories:
        st.session_state.pop(EDIT_BASE.format(memory.id), None)


def status_text(status: MemoryStatus | str, lang: str) -> str:
    """A status in the UI language (``已归档``)."""
    value = getattr(status, "value", status)
    return label(f"value.status.{value}", lang, str(value))


def action_text(action: str, lang: str) -> str:
    """An action in the UI language (``删除``)."""
    return label(f"value.action.{action}", lang, action)


# ----------------------------------------------------------------------------- flash + undo
def set_flash(text: str, *, undo: editing.UndoRecord | None = None, ok: bool = True) -> None:
    """The message the next run shows at the top of the page (once)."""
    st.session_state[FLASH] = {"text": text, "undo": undo, "ok": ok}


def outcome_flash(outcome: editing.BulkOutcome, done_key: str, lang: str, **values: Any) -> None:
    """Flash ``done_key`` (formatted with ``n`` and ``values``) plus one line per failure."""
    forget_edit_bases(outcome.changed)
    lines = [t(done_key, lang, n=len(outcome.changed), **values)]
    for memory_id, exc in outcome.failed:
        lines.append(
            t("memories.failed_one", lang, id=short_id(memory_id), error=error_message(exc, lang))
        )
    set_flash("  \n".join(md(line) for line in lines), undo=outcome.undo, ok=not outcome.failed)


def _run_undo(engine: MemoryEngine, scope: Scope, record: editing.UndoRecord, lang: str) -> None:
    reason = t(
        "memories.undo_reason", lang, action=action_text(record.action, lang), reason=record.reason
    )
    outcome = editing.undo(engine, scope, record, reason=reason, actor=signin.actor())
    outcome_flash(outcome, "memories.undone", lang, action=action_text(record.action, lang))


def undo_button(
    engine: MemoryEngine, scope: Scope, record: editing.UndoRecord, lang: str, *, key: str
) -> None:
    """A button that takes ``record`` back (runs in the next run's callback phase)."""
    st.button(
        t("memories.undo", lang, action=action_text(record.action, lang)),
        key=key,
        on_click=_run_undo,
        args=(engine, scope, record, lang),
    )


def render_flash(engine: MemoryEngine, scope: Scope, lang: str, *, can_edit: bool) -> None:
    """The last change's message (shown once), with its Undo when there is one."""
    flash = st.session_state.pop(FLASH, None)
    if not flash:
        return
    if isinstance(flash, str):
        st.success(flash)
        return
    (st.success if flash.get("ok", True) else st.warning)(flash["text"])
    record = flash.get("undo")
    if record is not None and can_edit:
        undo_button(engine, scope, record, lang, key="mi_undo")


# ----------------------------------------------------------------------------- reason
def _keep(key: str) -> None:
    st.session_state[KEPT_REASON] = st.session_state.get(key, "")


def reason_input(label_key: str, key: str, lang: str, *, disabled: bool = False) -> str:
    """A reason field showing the last reason typed in any reason field (they all follow it,
    so the reason persists until the user changes it); returns it stripped."""
    if KEPT_REASON in st.session_state:
        st.session_state[key] = st.session_state[KEPT_REASON]
    elif key not in st.session_state:
        st.session_state[key] = ""
    value = st.text_input(
        t(label_key, lang), key=key, on_change=_keep, args=(key,), disabled=disabled
    )
    return (value or "").strip()


def keep_reason(reason: str) -> None:
    """Remember ``reason`` as the default of the next reason field."""
    st.session_state[KEPT_REASON] = reason


# ----------------------------------------------------------------------------- one memory
def _confirm_delete(
    engine: MemoryEngine,
    scope: Scope,
    memories: Sequence[Memory],
    reason: str,
    lang: str,
    *,
    key: str,
) -> None:
    """The confirmation of a pending delete: Yes (delete, flash with Undo) or Cancel."""
    count = len(memories)
    if count == 1:
        st.warning(
            t(
                "memories.confirm_delete",
                lang,
                id=short_id(memories[0].id),
                content=md(clip(memories[0].content, 80)),
            )
        )
    else:
        st.warning(t("memories.confirm_delete_many", lang, n=count))
    c = st.columns([1, 1, 4])
    if c[0].button(t("memories.confirm_yes", lang), key=f"{key}_yes", type="primary"):
        st.session_state.pop(PENDING_DELETE, None)
        with guard(lang, stop=False) as g:
            outcome = editing.change_status(
                engine, scope, memories, "delete", reason=reason, actor=signin.actor()
            )
        if not g.failed:
            keep_reason(reason)
            if count == 1 and outcome.changed:
                after = outcome.changed[0]
                forget_edit_bases([after])
                text = t(
                    "memories.status_changed",
                    lang,
                    status=status_text(after.status, lang),
                    version=after.version,
                )
                set_flash(text, undo=outcome.undo)
            else:
                outcome_flash(outcome, "memories.deleted_n", lang)
            st.session_state[BULK_CLEAR] = True
            st.rerun()
    if c[1].button(t("memories.confirm_cancel", lang), key=f"{key}_no"):
        st.session_state.pop(PENDING_DELETE, None)
        st.rerun()


def _pending_for(where: str, ids: Sequence[str]) -> bool:
    pending = st.session_state.get(PENDING_DELETE)
    return (
        isinstance(pending, dict)
        and pending.get("where") == where
        and pending.get("ids") == list(ids)
    )


def lifecycle_panel(
    engine: MemoryEngine,
    scope: Scope,
    memory: Memory,
    base_version: int,
    lang: str,
    *,
    can_edit: bool,
    can_purge: bool,
    on_purged: Callable[[], None] | None = None,
) -> None:
    """Archive / restore / delete / purge of one memory (module docstring).

    Args:
        on_purged: called after a purge (the page closes the memory); default: remove
            ``?memory=`` from the URL.
    """
    mid = str(memory.id)
    seen = memory.model_copy(update={"version": base_version})  # the version the user saw
    status = memory.status
    deleted = status is MemoryStatus.DELETED
    with st.container(border=True, key="mi_lifecycle"):
        st.markdown(f"**{t('memories.lifecycle', lang)}**")
        reason = reason_input(
            "memories.lifecycle_reason", f"mi_l_reason_{mid}_{base_version}", lang
        )
        c = st.columns(3)
        now = status_text(status, lang)
        buttons = (
            (c[0], "archive", status is not MemoryStatus.ACTIVE, "memories.archive_disabled"),
            (c[1], "restore", status is MemoryStatus.ACTIVE, "memories.restore_disabled"),
            (c[2], "delete", deleted, "memories.delete_disabled"),
        )
        clicked = None
        for col, action, off, why in buttons:
            if col.button(
                t(f"memories.{action}", lang),
                key=f"mi_memories.{action}",
                disabled=off or not can_edit,
                help=t(why, lang, status=now) if off else None,
            ):
                clicked = action
        if clicked is not None:
            if not reason:
                st.error(t("memories.reason_required", lang))
            elif clicked == "delete":
                st.session_state[PENDING_DELETE] = {"where": "one", "ids": [mid], "reason": reason}
            else:
                with guard(lang, stop=False) as g:
                    outcome = editing.change_status(
                        engine, scope, [seen], clicked, reason=reason, actor=signin.actor()
                    )
                if not g.failed:
                    keep_reason(reason)
                    if outcome.failed:
                        _, exc = outcome.failed[0]
                        st.error(md(error_message(exc, lang)))
                    else:
                        after = outcome.changed[0]
                        forget_edit_bases([after])
                        set_flash(
                            t(
                                "memories.status_changed",
                                lang,
                                status=status_text(after.status, lang),
                                version=after.version,
                            ),
                            undo=outcome.undo,
                        )
                        st.rerun()
        if _pending_for("one", [mid]):
            pending_reason = st.session_state[PENDING_DELETE].get("reason") or reason
            _confirm_delete(engine, scope, [seen], pending_reason, lang, key="mi_delete_confirm")
        if can_purge:
            _purge_section(engine, scope, memory, reason, lang, on_purged)


def _purge_section(
    engine: MemoryEngine,
    scope: Scope,
    memory: Memory,
    reason: str,
    lang: str,
    on_purged: Callable[[], None] | None,
) -> None:
    """Purge (erase for good) behind a typed confirmation: the id's first 8 characters."""
    mid = str(memory.id)
    word = short_id(mid)
    st.markdown(f"**{t('memories.purge_header', lang)}**")
    st.caption(t("memories.purge_caption", lang))
    typed = st.text_input(
        t("memories.purge_type", lang, word=word), key=f"mi_purge_confirm_{mid}"
    ).strip()
    ready = typed == word
    if st.button(
        t("memories.purge", lang),
        key="mi_memories.purge",
        disabled=not ready,
        help=None if ready else t("memories.purge_disabled", lang, word=word),
    ):
        if not reason:
            st.error(t("memories.reason_required", lang))
            return
        with guard(lang, stop=False) as g:
            proof = engine.purge_verified(
                scope,
                memory.id,
                reason=reason,
                actor=signin.actor(),
                expected_version=memory.version,
            )
        if not g.failed:
            keep_reason(reason)
            if on_purged is not None:
                on_purged()
            else:
                state.set_param(state.QP_MEMORY, None)
            key = "memories.purged" if proof.ok else "memories.purged_unverified"
            set_flash(t(key, lang, id=word), ok=proof.ok)
            st.rerun()


def history_undo(
    engine: MemoryEngine,
    scope: Scope,
    memory: Memory,
    events: Sequence[Event],
    lang: str,
    *,
    can_edit: bool,
) -> None:
    """Undo of the memory's newest event when it is an archive or a delete."""
    record = editing.undo_from_history(memory, events[-1] if events else None)
    if record is None or not can_edit:
        return
    undo_button(engine, scope, record, lang, key="mi_history_undo")


# ----------------------------------------------------------------------------- bulk
def _bulk_label(by_id: dict[str, Memory], lang: str):  # noqa: ANN202 - a format_func
    def fmt(mid: str) -> str:
        m = by_id[mid]
        return f"{short_id(mid)} · {status_text(m.status, lang)} · {clip(m.content, 60)}"

    return fmt


def _select_all(ids: list[str]) -> None:
    st.session_state[W_BULK_IDS] = list(ids)


def bulk_panel(
    engine: MemoryEngine, scope: Scope, memories: Sequence[Memory], lang: str, *, can_edit: bool
) -> None:
    """Archive / restore / delete / retag several memories of this page with one reason."""
    by_id = {str(m.id): m for m in memories}
    ids = list(by_id)
    if st.session_state.pop(BULK_CLEAR, False):
        st.session_state[W_BULK_IDS] = []
    kept = [i for i in st.session_state.get(W_BULK_IDS, []) or [] if i in by_id]
    st.session_state[W_BULK_IDS] = kept  # rows of another page are not selected here
    with st.container(border=True, key="mi_bulk"):
        st.markdown(f"**{t('memories.bulk', lang)}**")
        top = st.columns([5, 1])
        chosen: list[str] = top[0].multiselect(
            t("memories.bulk_select", lang),
            ids,
            format_func=_bulk_label(by_id, lang),
            key=W_BULK_IDS,
            placeholder=t("memories.bulk_placeholder", lang),
        )
        top[1].button(
            t("memories.bulk_all", lang), key="mi_bulk_all", on_click=_select_all, args=(ids,)
        )
        c = st.columns([1, 2, 2])
        action = c[0].selectbox(
            t("memories.bulk_action", lang),
            editing.BULK_ACTIONS,
            format_func=lambda a: t(f"memories.{a}", lang),
            key=W_BULK_ACTION,
            placeholder=t("common.choose_one", lang),
        )
        add = remove = ""
        if action == "retag":
            add = c[1].text_input(t("memories.bulk_add_tags", lang), key=W_BULK_ADD)
            remove = c[2].text_input(t("memories.bulk_remove_tags", lang), key=W_BULK_REMOVE)
        reason = reason_input("memories.bulk_reason", "mi_bulk_reason", lang)
        picked = [by_id[i] for i in chosen]
        apply = st.button(
            t("memories.bulk_apply", lang, n=len(picked)),
            key="mi_bulk_apply",
            disabled=not picked or not can_edit,
            type="primary",
        )
        if apply:
            if not reason:
                st.error(t("memories.reason_required", lang))
            elif action == "delete":
                st.session_state[PENDING_DELETE] = {
                    "where": "bulk",
                    "ids": chosen,
                    "reason": reason,
                }
            else:
                _apply_bulk(engine, scope, picked, action, reason, add, remove, lang)
        if picked and _pending_for("bulk", chosen):
            pending_reason = st.session_state[PENDING_DELETE].get("reason") or reason
            _confirm_delete(engine, scope, picked, pending_reason, lang, key="mi_bulk_confirm")


def _apply_bulk(
    engine: MemoryEngine,
    scope: Scope,
    picked: list[Memory],
    action: str,
    reason: str,
    add: str,
    remove: str,
    lang: str,
) -> None:
    with guard(lang, stop=False) as g:
        if action == "retag":
            outcome = editing.retag(
                engine,
                scope,
                picked,
                add=state.parse_tags(add),
                remove=state.parse_tags(remove),
                reason=reason,
                actor=signin.actor(),
            )
        else:
            outcome = editing.change_status(
                engine, scope, picked, action, reason=reason, actor=signin.actor()
            )
    if g.failed:
        return
    keep_reason(reason)
    outcome_flash(
        outcome, f"memories.{action}d_n" if action != "retag" else "memories.retagged_n", lang
    )
    st.session_state[BULK_CLEAR] = True
    st.rerun()
