"""English number words the offline ``rules`` provider reads as numbers: one table for the
extractor and the judge ("Miso's seven" is "Miso is 7")."""

from __future__ import annotations

__all__ = ["NUMBER_WORDS", "number_of"]

#: "zero" .. "twelve" -> 0 .. 12.
NUMBER_WORDS: dict[str, int] = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve".split()
    )
}


def number_of(word: str) -> str | None:
    """The digits of an English number word ("Seven" -> "7"; case and a trailing ".,!"
    ignored), or None for any other word."""
    value = NUMBER_WORDS.get(word.lower().strip(".,!"))
    return None if value is None else str(value)
