"""Every UI string of the Memory Inspector, in English and Chinese, merged from one file per area.

``t(key, lang, **fields)`` looks a string up and fills ``{placeholders}`` with
``str.format``. Unknown languages fall back to English; an unknown key raises ``KeyError``
(tests check every key has both languages with the same placeholders, and that every key
prefix, the part before the first ``.``, lives in exactly one area file).
"""

from __future__ import annotations

import re
from types import MappingProxyType
from typing import Final

from memory_engine.dashboard.i18n import (
    audit,
    auth,
    context,
    evaluation,
    isolation,
    labels,
    memories,
    overview,
    pii,
    replay,
    retention,
    retrieval,
    shell,
    stores,
    write,
)

LANGS: Final = ("en", "zh")
DEFAULT_LANG: Final = "en"
LANG_LABELS: Final = {"en": "English", "zh": "中文"}

#: The area modules, by area name (the module's name); each holds ``STRINGS``.
AREAS: Final = MappingProxyType(
    {
        module.__name__.rsplit(".", 1)[-1]: module.STRINGS
        for module in (
            shell,
            labels,
            overview,
            memories,
            replay,
            retrieval,
            stores,
            retention,
            audit,
            auth,
            context,
            write,
            evaluation,
            pii,
            isolation,
        )
    }
)


def _merge(parts: dict[str, dict[str, dict[str, str]]]) -> dict[str, dict[str, str]]:
    """One table from the area tables; a key defined twice is an error, not an override.

    Raises:
        KeyError: a key is defined in two areas.
    """
    out: dict[str, dict[str, str]] = {}
    for part in parts.values():
        duplicates = out.keys() & part.keys()
        if duplicates:
            raise KeyError(f"UI string keys defined twice: {sorted(duplicates)[:5]}")
        out.update(part)
    return out


#: Every UI string: ``{key: {"en": text, "zh": text}}``.
STRINGS: Final = _merge(dict(AREAS))


def t(key: str, lang: str, **fields: object) -> str:
    """The UI string ``key`` in ``lang`` (``en`` or ``zh``), with ``{fields}`` filled in.

    Raises:
        KeyError: ``key`` is not a known string.
    """
    entry = STRINGS[key]
    text = entry.get(lang) or entry[DEFAULT_LANG]
    return text.format(**fields) if fields else text


def label(key: str, lang: str, default: str) -> str:
    """``t(key, lang)`` when ``key`` is a known string, else ``default`` (an id shown as is)."""
    return t(key, lang) if key in STRINGS else default


#: Engine warnings the dashboard translates (exact engine text -> string key); any other
#: warning is shown in English with the ``replay.engine_warning`` label.
KNOWN_WARNINGS: Final = dict(replay.WARNINGS)


def warning_text(warning: str, lang: str) -> str:
    """A pipeline warning of a trace for display: translated when known, else labelled."""
    key = KNOWN_WARNINGS.get(warning.strip())
    return t(key, lang) if key else t("replay.engine_warning", lang, message=warning)


def reason_text(reason: str | None, lang: str) -> str:
    """A write decision's reason for display: a coded reason ("[no_fact] ...", see
    ``memory_engine.llm.reasons``) in the viewer's language; an uncoded one (an LLM's own
    words) as it is. The offline rules extractor's ``matched: schedule, habit`` names the kinds
    of facts found: shown with each kind's label."""
    m = re.match(r"^\[(?P<code>[a-z_]+)\]\s*", reason or "")
    if m and f"write.skip.{m.group('code')}" in STRINGS:
        return t(f"write.skip.{m.group('code')}", lang)
    matched = re.match(r"^matched: (?P<kinds>[a-z_]+(?:, [a-z_]+)*)$", reason or "")
    if matched:  # the offline rules extractor: the kinds of facts it found
        kinds = [label(f"write.kind.{k}", lang, k) for k in matched.group("kinds").split(", ")]
        return t(
            "write.matched", lang, kinds="、".join(kinds) if lang == "zh" else ", ".join(kinds)
        )
    return reason or ""


def stage_label(stage: str, lang: str) -> str:
    """Human label of a pipeline stage of ``Trace.timings_ms`` (unknown stages as they are)."""
    return label(f"stage.{stage}", lang, stage)


def drop_label(reason: str | None, lang: str) -> str:
    """Human label of a pipeline drop reason (``""`` for returned candidates)."""
    if not reason:
        return ""
    return label(f"drop.{reason}", lang, reason)
