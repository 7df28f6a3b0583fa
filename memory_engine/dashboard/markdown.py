"""Untrusted text inside Streamlit markdown (``st.markdown``, ``st.caption``, ``st.error``, ...).

Those elements render Markdown: a value such as ``![x](https://evil.example/p.png)`` from a
shared link (``?tenant=``, ``?trace=``), a stored search query (an agent's, over MCP) or an
engine message quoting input became an image the browser fetched, or a link. ``md(value)``
backslash-escapes the characters that make links, images, autolinks, HTML, Streamlit's
directives (``:red[...]``), code, bold and LaTeX (KaTeX has ``\\href``): ``\\ [ ] < > ` * $``.
Everything else (``. - _ ! :``) stays as it is, so ids and messages keep their exact text,
except invisible formatting characters (bidi overrides and isolates, zero-width and Unicode tag
characters), which are shown as ``\\uXXXX`` (``memory_engine.escaping.show_invisible``) so a value
cannot reorder or hide what is displayed around it.
"""

from __future__ import annotations

import re

from memory_engine.escaping import show_invisible

__all__ = ["Md", "escape", "md"]

_SPECIAL = re.compile(r"([\\`*\[\]<>$])")


def escape(text: str) -> str:
    """``text`` with those characters backslash-escaped (renders as the same characters) and
    its invisible formatting characters shown as ``\\uXXXX``."""
    return _SPECIAL.sub(r"\\\1", show_invisible(text))


class Md(str):
    """An escaped string for ``i18n.t`` fields: ``{value}`` gives the escaped text and
    ``{value!r}`` the escaped ``repr`` of the original (not the repr of the escaped text)."""

    _repr: str

    def __new__(cls, value: object) -> Md:
        raw = str(value)
        obj = super().__new__(cls, escape(raw))
        obj._repr = escape(repr(raw))
        return obj

    def __repr__(self) -> str:
        return self._repr


def md(value: object) -> Md:
    """``value`` as text that Streamlit markdown shows literally (see the module docstring)."""
    return value if isinstance(value, Md) else Md(value)
