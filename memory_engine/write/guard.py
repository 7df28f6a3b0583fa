"""Write guard: the first stage of every write (DESIGN.md section 5, FAILURES.md section 8).

Validates and normalises text before anything is embedded or stored, raising a typed error for
input that must not become a memory.
"""

from __future__ import annotations

import unicodedata

from memory_engine.errors import ContentTooLargeError, EmptyContentError, InvalidInputError

MEMORY_TOOL_PREFIXES = ("memory_write", "memory_search", "memory_update", "memory_delete")


def clean_text(
    text: object, *, max_chars: int, field: str = "text", limit_name: str = "MEMORY_MAX_INPUT_CHARS"
) -> str:
    """Return ``text`` with NUL and other C0 control characters (except tab/newline) removed.

    Args:
        text: caller input; must be ``str``.
        max_chars: largest accepted length in characters (before cleaning).
        field: name used in error messages.
        limit_name: where the limit comes from, named in the error message.

    Raises:
        InvalidInputError: not a string.
        ContentTooLargeError: longer than ``max_chars`` characters.
        EmptyContentError: empty, whitespace-only, or only control characters.
    """
    if not isinstance(text, str):
        raise InvalidInputError(f"{field} must be a string, got {type(text).__name__}", field=field)
    if len(text) > max_chars:
        raise ContentTooLargeError(
            f"{field} has {len(text):,} characters; the limit is {max_chars:,} ({limit_name})",
            field=field,
            length=len(text),
            limit=max_chars,
        )
    cleaned = "".join(
        ch for ch in text if ch in "\t\n" or unicodedata.category(ch) not in ("Cc", "Cs")
    )
    if not cleaned.strip():
        raise EmptyContentError(f"{field} is empty or whitespace-only", field=field)
    return cleaned.strip()
