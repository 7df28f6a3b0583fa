"""The item a page shows (the Memories page's memory), kept in session state and mirrored in
the URL, so that a rerun the browser sent before it applied the page's last URL change does
not undo the user's choice.

Why: the browser sends its own query string with every rerun. When the user picks a memory, the
page writes ``?memory=<id>`` during that run; a rerun the browser sends before that URL change
has reached it (a key pressed right after the pick, a second click) still carries the old query
string. Read as "the URL wins", such a run closed the memory the user had just opened, while the
address bar, updated a moment later, named it: the detail and the edit form were gone and a
reload showed them again. Here the page's own choice wins over a URL value the browser may still
be sending from before that choice (its *stale* values), and the URL is written again so the
address bar shows what the page shows. The URL wins on a new session (a reload, a shared link),
on a back/forward step, and for any other value (a link from another page).

The rules are plain functions on :class:`Picked` (tested alone); :func:`resolve` and
:func:`choose` apply them to ``st.session_state`` and ``st.query_params``.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import streamlit as st


@dataclass(frozen=True)
class Picked:
    """What the page shows and which URL values are stale.

    Attributes:
        shown: the id shown (None: nothing picked).
        stale: URL values the browser may still send from before ``shown`` was picked (the URL
            it had then, and the id shown before); emptied once a run carries ``shown``.
        fresh: picked in this run (by a widget callback, before the page reads the URL): the
            URL this run reads is the one the pick wrote, not one the browser sent.
    """

    shown: str | None
    stale: frozenset[str | None] = field(default_factory=frozenset)
    fresh: bool = False


def settle(picked: Picked | None, url: str | None, *, history: bool) -> tuple[Picked, bool]:
    """The choice of this run from the last one and the URL's value.

    Args:
        picked: the session's record (None: a new session).
        url: the URL's value in this run (None: absent).
        history: this run is a back/forward step of the browser.

    Returns:
        ``(record, rewrite)``: the record to keep (its ``shown`` is what to show) and whether
        the URL must be written again (it carried a stale value).
    """
    if picked is None or history:
        return Picked(url), False
    if picked.fresh:  # this run's URL is the pick's own: the browser has not answered yet
        return Picked(picked.shown, picked.stale), False
    if url == picked.shown:
        return Picked(url), False  # the browser has caught up
    if url in picked.stale:
        return picked, True
    return Picked(url), False  # another view's link: the URL wins


def pick(picked: Picked | None, new: str | None, url: str | None) -> Picked:
    """The record after the user picks ``new`` while the URL says ``url``."""
    stale = {url, picked.shown if picked is not None else url} - {new}
    if picked is not None and picked.fresh:  # picked twice before the browser answered
        stale |= picked.stale - {new}
    return Picked(new, frozenset(stale), fresh=True)


# ----------------------------------------------------------------------------- Streamlit
def _history_step() -> bool:
    """True when this run is a back/forward step (Streamlit's run context says so)."""
    try:
        from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx
    except ImportError:  # pragma: no cover - another Streamlit layout: treat as a normal run
        return False
    ctx = get_script_run_ctx()
    return bool(getattr(ctx, "is_history_navigation", False))


def _url_value(param: str) -> str | None:
    raw = st.query_params.get(param)
    return raw.strip() or None if isinstance(raw, str) else None


def _write_url(param: str, value: str | None) -> None:
    """Write ``param`` and send the whole query string to the browser, even when this run's
    copy already matches (the browser's address bar may not)."""
    query = st.query_params.to_dict()
    if value:
        query[param] = value
    else:
        query.pop(param, None)
    st.query_params.from_dict(query)


def resolve(key: str, param: str) -> str | None:
    """The id to show in this run (call before reading ``param`` elsewhere); fixes the URL
    when the browser sent a stale value.

    Args:
        key: the session-state key of the record.
        param: the URL parameter (``memory``).
    """
    url = _url_value(param)
    record, rewrite = settle(st.session_state.get(key), url, history=_history_step())
    st.session_state[key] = record
    if rewrite:
        _write_url(param, record.shown)
    return record.shown


def choose(key: str, param: str, value: str | None) -> None:
    """The user picked ``value`` (None: closed it): record it and put it in the URL."""
    st.session_state[key] = pick(st.session_state.get(key), value, _url_value(param))
    _write_url(param, value)
