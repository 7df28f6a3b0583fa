"""How memory content is written where a model or a person reads it: the memory block's escape
(HTML entities, one physical line, look-alike angle brackets as entities) and invisible
formatting characters shown as ``\\uXXXX`` (also used by the dashboard's cells and markdown).

Pure functions of a string; no state.
"""

from __future__ import annotations

import html
import unicodedata

#: Every other character ``str.splitlines()`` breaks lines on (vertical tab, form feed, file/
#: group/record separators, NEL, Unicode line and paragraph separators), shown as ``\\uXXXX``.
_LINE_BREAKS = {ch: f"\\u{ord(ch):04x}" for ch in "\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"}
_LINE_BREAKS_TABLE = str.maketrans(_LINE_BREAKS)


#: Angle brackets that imitate ``<`` and ``>`` (full-width, small, single guillemets, CJK and
#: mathematical angle brackets), written as numeric entities in the block.
_ANGLES = frozenset("\uff1c\uff1e\ufe64\ufe65\u2039\u203a\u3008\u3009\u2329\u232a\u27e8\u27e9")


def _visible(ch: str) -> str:
    code = ord(ch)
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def show_invisible(text: str) -> str:
    """``text`` with every invisible formatting character (Unicode category ``Cf``: bidi
    embeddings, overrides, isolates and marks, zero-width characters, Unicode tag characters,
    the BOM, the soft hyphen) written visibly as ``\\uXXXX`` (``\\UXXXXXXXX`` above U+FFFF).

    So ``Invoice total <U+202E>0001$<U+202C>`` reads ``Invoice total \\u202e0001$\\u202c``
    instead of rendering as ``$1000``, and text spelled in tag characters is seen.
    """
    if text.isascii():
        return text
    return "".join(_visible(ch) if unicodedata.category(ch) == "Cf" else ch for ch in text)


def escape_content(text: str) -> str:
    """Escape memory content for the block: HTML entities for ``& < >`` and the angle
    brackets that imitate them (full-width ``＜`` as ``&#xff1c;``...), one physical line
    (``\\n`` for line breaks, ``\\uXXXX`` for the other line separators), and every invisible
    formatting character shown as ``\\uXXXX`` (``show_invisible``)."""
    escaped = html.escape(text, quote=False)
    escaped = escaped.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")
    escaped = escaped.translate(_LINE_BREAKS_TABLE)
    if not escaped.isascii():
        escaped = "".join(f"&#x{ord(ch):x};" if ch in _ANGLES else ch for ch in escaped)
    return show_invisible(escaped)


def escaped_forms(text: str) -> set[str]:
    """Every form ``text`` may have in a stored block: the current escape, and the escapes
    of blocks written before the other line separators, then the invisible characters and
    look-alike angle brackets were escaped (purge redacts all of them)."""
    html_escaped = html.escape(text, quote=False)
    legacy = html_escaped.replace("\r\n", "\\n").replace("\n", "\\n").replace("\r", "\\n")
    return {escape_content(text), legacy, legacy.translate(_LINE_BREAKS_TABLE)}
