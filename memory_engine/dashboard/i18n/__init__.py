"""Every UI string of the Memory Inspector (English and Chinese), one file per area.

Callers use this package: ``from memory_engine.dashboard.i18n import t``. The area files
(``shell``, ``labels``, ``overview``, ``memories``, ``replay``, ``retrieval``, ``stores``,
``retention``, ``audit``, ``auth``, ``context``, ``write``, ``pii``, ``isolation``) each hold
the keys of some prefixes (``memories.*``, ``col.*`` ...); :mod:`.catalog` merges them.
"""

from memory_engine.dashboard.i18n.catalog import (
    AREAS,
    DEFAULT_LANG,
    KNOWN_WARNINGS,
    LANG_LABELS,
    LANGS,
    STRINGS,
    drop_label,
    label,
    reason_text,
    stage_label,
    t,
    warning_text,
)

__all__ = [
    "AREAS",
    "DEFAULT_LANG",
    "KNOWN_WARNINGS",
    "LANGS",
    "LANG_LABELS",
    "STRINGS",
    "drop_label",
    "label",
    "reason_text",
    "stage_label",
    "t",
    "warning_text",
]
