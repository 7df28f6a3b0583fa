"""View state in the URL: widgets bound to query parameters, so that a reload or a shared link
shows the same view and the browser's back button walks the views.

A page declares its parameters once and lets the binding restore widget state from the URL at
the start of every run (the URL wins: a reload, a shared link or a back-button step) and write
each change back (a widget's ``on_change``)::

    view = UrlState((
        UrlParam("status", "mi_f_statuses", choices(MemoryStatus)),
        UrlParam("q", "mi_f_text", TEXT),
        UrlParam("page", "mi_page", positive_int(), resets_with=False),
    ), resets=("page",))
    view.restore()                                   # before the widgets are created
    st.multiselect(..., **view.bind("status"))       # key + on_change
    st.text_input(..., **view.bind("q"))

A value equal to the parameter's default is removed from the URL (clean links). A value the
page cannot use (an unknown status, a page number below 1) is never guessed at: it is dropped
and the default is used. Every ``st.query_params`` change made by Python is a new browser
history entry (Streamlit pushes it), so back/forward replays the views; a history step reruns
the script with the older query string, which :meth:`UrlState.restore` applies.

Widgets inside an ``st.form`` have no ``on_change``: their page restores with
``restore(when_changed=True)`` (the URL is applied only when it differs from the one this
session last applied or wrote, so a submit is not overwritten by the older URL) and writes the
submitted values with :meth:`UrlState.write`.

No parsing here touches Streamlit; the codecs are plain functions (tested alone).
"""

from __future__ import annotations

import math
import re
import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, time
from enum import Enum
from typing import Any

import streamlit as st

from memory_engine.models import ID_PATTERN

#: Separator of list values in one parameter (``?status=active,archived``).
LIST_SEP = ","


@dataclass(frozen=True)
class Codec:
    """How one parameter's value travels: ``encode(value) -> text`` and back.

    Attributes:
        encode: widget value -> URL text ("" = the default, removed from the URL).
        decode: URL text -> widget value; raises ValueError for text the page cannot use.
        default: the widget value when the URL has no (usable) value.
    """

    encode: Callable[[Any], str]
    decode: Callable[[str], Any]
    default: Any = None


def _text_encode(value: Any) -> str:
    return str(value or "").strip()


#: Control characters no text field can hold (NUL is refused by PostgreSQL; the others are
#: never typed): a URL carrying one is garbage, not a value to search for. Tab and line
#: breaks stay (a pasted conversation has them).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def _text_decode(raw: str) -> str:
    """URL text -> a text widget's value; ValueError for text with control characters."""
    if _CONTROL.search(raw):
        raise ValueError("control characters in a text parameter")
    return raw.strip()


#: Free text (search box, an id filter); blank = default; text with control characters
#: (``%00``) is dropped.
TEXT = Codec(_text_encode, lambda raw: _text_decode(raw) or "", "")


def text(default: str, *, max_chars: int = 4000) -> Codec:
    """Free text whose default is not blank (a prompt prefilled from the settings).

    Args:
        default: the widget's value when the URL has none; not written to the URL.
        max_chars: longer text is not written (the URL stays loadable; the page says so).
    """

    def encode(value: Any) -> str:
        value = str(value or "").strip()
        return "" if value == default.strip() or len(value) > max_chars else value

    return Codec(encode, lambda raw: _text_decode(raw) or default, default)


def choices(allowed: Iterable[Any], *, many: bool = True) -> Codec:
    """Values from a fixed set (enum members or strings), as their text.

    Args:
        allowed: the accepted values (``Enum`` members are written as ``.value``).
        many: a list (multiselect; ``a,b``, unknown entries dropped) or one value (selectbox;
            an unknown value raises ValueError, so the default is used).
    """
    names = [str(getattr(v, "value", v)) for v in allowed]
    known = set(names)

    if many:

        def encode_many(value: Any) -> str:
            return LIST_SEP.join(str(v) for v in value or () if str(v) in known)

        def decode_many(raw: str) -> list[str]:
            picked = [p.strip() for p in raw.split(LIST_SEP)]
            return list(dict.fromkeys(p for p in picked if p in known))

        return Codec(encode_many, decode_many, [])

    def encode_one(value: Any) -> str:
        return str(value) if value is not None and str(value) in known else ""

    def decode_one(raw: str) -> str:
        if raw not in known:
            raise ValueError(f"unknown value {raw!r}")
        return raw

    return Codec(encode_one, decode_one, None)


def one_of(allowed: Callable[[], Iterable[Any]] | Iterable[Any], default: Any = None) -> Codec:
    """One value of a set known only at run time (entity keys, page sizes), kept as text.

    Args:
        allowed: the values, or a function returning them when the URL is read.
        default: the value of an empty or unknown parameter.
    """

    def values() -> list[Any]:
        return list(allowed() if callable(allowed) else allowed)

    def encode(value: Any) -> str:
        return "" if value is None or value == default else str(value)

    def decode(raw: str) -> Any:
        for value in values():
            if str(value) == raw:
                return value
        raise ValueError(f"unknown value {raw!r}")

    return Codec(encode, decode, default)


def positive_int(default: int = 1, maximum: int = 1_000_000) -> Codec:
    """A whole number in ``[1, maximum]`` (a page number); others raise ValueError."""

    def decode(raw: str) -> int:
        number = int(raw)
        if not 1 <= number <= maximum:
            raise ValueError(f"{number} out of range")
        return number

    return Codec(lambda v: "" if not v or int(v) == default else str(int(v)), decode, default)


def number(
    minimum: float, maximum: float, default: float, *, whole: bool = False, digits: int = 6
) -> Codec:
    """A number in ``[minimum, maximum]`` (a slider, a number input).

    Args:
        minimum: the smallest accepted value.
        maximum: the largest accepted value.
        default: the widget's value when the URL has none (not written to the URL).
        whole: an ``int`` widget (``12``) rather than a ``float`` one (``0.35``).
        digits: significant digits written (floats), enough for the widget's step.

    Returns:
        The codec; text outside the range, not a number, NaN or infinite raises ValueError.
    """
    kind: Callable[[Any], float | int] = int if whole else float

    def encode(value: Any) -> str:
        if value is None or isinstance(value, bool):
            return ""
        value = kind(value)
        if math.isclose(value, default, rel_tol=1e-9, abs_tol=1e-12):
            return ""
        return str(value) if whole else format(value, f".{digits}g")

    def decode(raw: str) -> float | int:
        parsed = float(raw)
        if not math.isfinite(parsed) or not minimum <= parsed <= maximum:
            raise ValueError(f"{raw!r} outside [{minimum}, {maximum}]")
        if whole and parsed != int(parsed):
            raise ValueError(f"{raw!r} is not a whole number")
        return kind(parsed)

    return Codec(encode, decode, kind(default))


def _flag_decode(raw: str) -> bool:
    if raw.lower() in ("1", "true", "yes", "on"):
        return True
    if raw.lower() in ("0", "false", "no", "off"):
        return False
    raise ValueError(f"not a flag: {raw!r}")


#: A toggle or checkbox that is off by default: ``?all=1`` when on, absent when off.
FLAG = Codec(lambda v: "1" if v else "", _flag_decode, False)


def _uuid_decode(raw: str) -> str:
    return str(uuid.UUID(raw))


#: An id (UUID) picked in a list (a candidate, a memory); kept as its canonical text. Whether
#: the id is still listed is the page's check (a stale id falls back to the default there).
UUID_TEXT = Codec(lambda v: str(v) if v else "", _uuid_decode, None)


def many_of(allowed: Callable[[], Iterable[Any]] | Iterable[Any]) -> Codec:
    """Several values of a set known only at run time (audit actors, days), as ``a,b``;
    entries not in the set are dropped."""

    def known() -> set[str]:
        return {str(v) for v in (allowed() if callable(allowed) else allowed)}

    def encode(value: Any) -> str:
        return LIST_SEP.join(str(v) for v in value or ())

    def decode(raw: str) -> list[str]:
        names = known()
        picked = [p.strip() for p in raw.split(LIST_SEP)]
        return list(dict.fromkeys(p for p in picked if p in names))

    return Codec(encode, decode, [])


def day(default: date) -> Codec:
    """One day (``st.date_input``) as ``2026-05-01``; ``default`` is not written."""

    def encode(value: Any) -> str:
        return value.isoformat() if isinstance(value, date) and value != default else ""

    return Codec(encode, date.fromisoformat, default)


def time_of_day(default: time) -> Codec:
    """A time of day (``st.time_input``, minutes) as ``09:30``; ``default`` is not written."""

    def encode(value: Any) -> str:
        if not isinstance(value, time) or value.replace(second=0, microsecond=0) == default.replace(
            second=0, microsecond=0
        ):
            return ""
        return value.strftime("%H:%M")

    def decode(raw: str) -> time:
        return time.fromisoformat(raw).replace(microsecond=0)

    return Codec(encode, decode, default)


def _dates_encode(value: Any) -> str:
    days = [d for d in (value or ()) if isinstance(d, date)]
    if not days:
        return ""
    return days[0].isoformat() if len(days) == 1 else f"{days[0]}..{days[-1]}"


def _dates_decode(raw: str) -> tuple[date, ...]:
    parts = [date.fromisoformat(p) for p in raw.split("..") if p]
    if not parts or len(parts) > 2 or parts[0] > parts[-1]:
        raise ValueError(f"bad date range {raw!r}")
    return tuple(parts)


#: A date range of ``st.date_input``: ``2024-05-01..2024-05-31`` or one day ``2024-05-01``.
DATES = Codec(_dates_encode, _dates_decode, ())


@dataclass(frozen=True)
class UrlParam:
    """One widget bound to one URL parameter.

    Attributes:
        name: the URL parameter (short, readable: ``status``, ``page``).
        key: the widget's session-state key.
        codec: how the value is written and read.
        resets_with: a change of this parameter resets the page's ``resets`` parameters
            (a filter change goes back to page 1); False for those parameters themselves.
    """

    name: str
    key: str
    codec: Codec
    resets_with: bool = True


@dataclass
class UrlState:
    """The URL parameters of one page (see the module docstring).

    Args:
        params: the bound parameters.
        resets: names of parameters cleared whenever another parameter changes (the page
            number, the selected row).
    """

    params: Sequence[UrlParam]
    resets: Sequence[str] = ()
    _by_name: dict[str, UrlParam] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        self._by_name = {p.name: p for p in self.params}

    def param(self, name: str) -> UrlParam:
        """The declared parameter ``name`` (KeyError when undeclared)."""
        return self._by_name[name]

    # ------------------------------------------------------------------ reading
    def read(self, name: str, query: Mapping[str, Any] | None = None) -> Any:
        """The value of ``name`` in the URL (``query`` or ``st.query_params``), decoded;
        the default when missing or unusable."""
        param = self._by_name[name]
        raw = (st.query_params if query is None else query).get(param.name)
        if isinstance(raw, list):
            raw = raw[-1] if raw else None
        if raw is None or not str(raw).strip():
            return _fresh(param.codec.default)
        try:
            return param.codec.decode(str(raw).strip())
        except ValueError:
            return _fresh(param.codec.default)

    def restore(self, *, when_changed: bool = False) -> bool:
        """URL -> widget state for every parameter (call before the widgets are created).

        An unusable value is also removed from the URL, so the link shows what is applied.

        Args:
            when_changed: apply the URL only when its values of these parameters differ from
                those this session last applied or wrote (widgets in an ``st.form``, whose
                submitted values must not be overwritten by the older URL); otherwise only
                widgets missing from the session state get their URL value.

        Returns:
            True when the URL was applied.
        """
        if when_changed and st.session_state.get(self._memo_key) == self.snapshot():
            for param in self.params:  # a widget Streamlit dropped (not drawn on a run)
                if param.key not in st.session_state:
                    st.session_state[param.key] = self.read(param.name)
            return False
        for param in self.params:
            value = self.read(param.name)
            raw = st.query_params.get(param.name)
            if raw is not None and param.codec.encode(value) != str(raw).strip():
                self._write_url(param, value)
            if param.key not in st.session_state or st.session_state[param.key] != value:
                st.session_state[param.key] = value
        st.session_state[self._memo_key] = self.snapshot()
        return True

    def write(self, names: Iterable[str] | None = None) -> None:
        """Widget state -> URL for ``names`` (default: every parameter), e.g. after a form's
        submit; no resets. The URL written counts as applied (see :meth:`restore`)."""
        for name in self._by_name if names is None else names:
            param = self._by_name[name]
            self._write_url(param, st.session_state.get(param.key, param.codec.default))
        st.session_state[self._memo_key] = self.snapshot()

    @property
    def _memo_key(self) -> str:
        return "mi_url_applied_" + "_".join(p.name for p in self.params)

    def snapshot(self) -> tuple[str | None, ...]:
        """The URL's raw values of these parameters (None: absent), in declaration order."""

        def raw(name: str) -> str | None:
            value = st.query_params.get(name)
            return None if value is None else str(value)

        return tuple(raw(p.name) for p in self.params)

    # ------------------------------------------------------------------ writing
    def set(self, name: str, value: Any) -> None:
        """Put ``value`` in the URL (and the widget state on the next run); resets as a change
        by the user would."""
        param = self._by_name[name]
        self._write_url(param, value)
        if param.resets_with:
            self._reset_dependants(name)

    def on_change(self, name: str, then: Callable[[], None] | None = None) -> Callable[[], None]:
        """A widget callback writing the widget's value of ``name`` to the URL, then ``then``."""

        def changed() -> None:
            self.set(name, st.session_state.get(self._by_name[name].key))
            if then is not None:
                then()

        return changed

    def bind(self, name: str, then: Callable[[], None] | None = None) -> dict[str, Any]:
        """Keyword arguments binding a widget to ``name``: ``key`` and ``on_change``."""
        return {"key": self._by_name[name].key, "on_change": self.on_change(name, then)}

    def _write_url(self, param: UrlParam, value: Any) -> None:
        text = param.codec.encode(value)
        if text:
            if st.query_params.get(param.name) != text:
                st.query_params[param.name] = text
        elif param.name in st.query_params:
            del st.query_params[param.name]

    def _reset_dependants(self, changed: str) -> None:
        for name in self.resets:
            if name == changed:
                continue
            if name in self._by_name:
                param = self._by_name[name]
                self._write_url(param, param.codec.default)  # the next run's restore applies it
            elif name in st.query_params:
                del st.query_params[name]


def search_settings(query: str, config: Mapping[str, Any]) -> dict[str, Any]:
    """The search form's values of a stored search (a ``?trace=`` link fills the form).

    Args:
        query: the trace's query text.
        config: the trace's ``config`` (``SearchOptions`` as JSON: ``k``, ``legs``,
            ``min_score``, ``token_budget``).

    Returns:
        ``{query, k, min_score, token_budget, dense, keyword}``; a setting the trace does not
        hold (or holds with a wrong type) is None, so the form keeps its own value.
    """
    legs = config.get("legs")
    legs_known = isinstance(legs, (list, tuple))

    def number(name: str, kind: type) -> Any:
        value = config.get(name)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return None
        return kind(value)

    return {
        "query": query,
        "k": number("k", int),
        "min_score": number("min_score", float),
        "token_budget": number("token_budget", int),
        "dense": ("dense" in legs) if legs_known else None,  # type: ignore[operator]
        "keyword": ("keyword" in legs) if legs_known else None,  # type: ignore[operator]
    }


def valid_id(value: str) -> bool:
    """True when ``value`` is a usable user/agent/session id (``[A-Za-z0-9_.:-]{1,64}``)."""
    return bool(ID_PATTERN.match(value))


def _fresh(value: Any) -> Any:
    """A copy of a mutable default (a list) so widget state never shares it."""
    return list(value) if isinstance(value, list) else value


def enum_values(enum: type[Enum]) -> list[str]:
    """The ``.value`` texts of an enum, in declaration order."""
    return [str(m.value) for m in enum]
