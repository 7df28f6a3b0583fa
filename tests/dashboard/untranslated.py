"""Finding interface text left in English on a page rendered in 中文.

A general check, not a list of strings: any run of Latin-letter words in the page's interface
text (titles, labels, captions, messages, placeholders, widget options, table headers, chart
axes and legends) is untranslated unless it is

* data the test put there (``data``: tenant ids, memory contents, queries...),
* a name kept as is in both languages (:data:`KEPT`: product and protocol names, units),
* code: an inline `code span`, an environment variable (``MEMORY_...``), a command-line
  option (``--format``), a file name (``x.json``), a URL,
* an id: hex/UUID, a number with a unit.

Table cells are data, except that a cell holding exactly a stored enum value (a memory type,
status, source, event action: ``episodic``, ``archived``, ``create``...) is interface text: it
must be shown through the catalog. Used by the AppTest pass (every page, every element of the
tree) and by the browser pass (the visible text of the page).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from typing import Any

from memory_engine.models import EventAction, MemorySource, MemoryStatus, MemoryType

#: Words shown as is in Chinese too (names of products, protocols, formats, units, metrics).
KEPT: frozenset[str] = frozenset(
    w.lower()
    for w in (
        # the search legs' ids, as in MEMORY_LEGS and the trace (dense, dense_ml, keyword)
        "dense",
        "keyword",
        # products, protocols, formats
        "memory-engine",
        "memory_engine",
        "MemoryEngine",
        "Streamlit",
        "PostgreSQL",
        "Postgres",
        "pgvector",
        "pgserver",
        "Qdrant",
        "MCP",
        "LLM",
        "LLMs",
        "API",
        "CLI",
        "JSON",
        "JSONL",
        "CSV",
        "URL",
        "UTC",
        "ID",
        "IDs",
        "UUID",
        "PII",
        "HNSW",
        "OpenAI",
        "LoCoMo",
        "MiniLM",
        "jieba",
        "tiktoken",
        "BM25",
        "bm25",
        "rrf",
        "RRF",
        "MMR",
        "ONNX",
        "SQL",
        "SQLite",
        "HTTP",
        "HTTPS",
        "stdio",
        "Markdown",
        "GDPR",
        "Unicode",
        "z-score",
        "zscore",
        "cosine",
        "k",
        "token",
        "tokens",
        "ms",
        "s",
        "KB",
        "MB",
        "GMT",
        "AM",
        "PM",
        "vs",
        "ok",
        "OK",
        "Δrank",
        "recall",
        "nDCG",
        "MRR",
        "hit",
        "p50",
        "p95",
        "English",
        "Redis",
        "Python",
        "DNS",
        "Spearman",
        "Kendall",
        "ln",
        "exp",
        "log",
        # technical ids shown as is
        "tenant_id",
        "memory_id",
        "write_id",
        "trace_id",
        "user_id",
        "agent_id",
        "session_id",
    )
)

#: Stored enum values: shown in a table cell as they are, they are untranslated.
ENUM_VALUES: frozenset[str] = frozenset(
    str(v.value) for enum in (MemoryType, MemoryStatus, MemorySource, EventAction) for v in enum
)

#: Streamlit markdown directives (``:material/edit:``, ``:orange-background[``) and plotly
#: template fields (``%{x}``, ``<extra></extra>``, ``<br>``): markup, not text.
_DIRECTIVE = re.compile(r":material/\w+:|:[a-z]+(?:-[a-z]+)*\[|%\{[^}]*\}|</?\w+>")
_CODE_SPAN = re.compile(r"`[^`]*`")
_CODE_LIKE = re.compile(
    r"""(
        https?://\S+                          # URLs
      | \bMEMORY_[A-Z0-9_]+(?:=[\w.-]*)?      # environment variables (and a value)
      | (?<!\w)--?[a-z][\w.-]*                # command-line options
      | \b\w+(?:\.\w+)+\b                     # dotted names (memory_engine.scoring)
      | \b[\w.-]+\.(?:py|json|jsonl|txt|csv|md|png|sqlite3|toml|yaml|yml)\b  # file names
      | \b[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}\b  # UUIDs
      | \b[\w.-]*\d[\w.-]*\b                  # numbers, hex, names with digits (bm25, v2)
      | \b\w*[_:]\w*\b                        # snake_case / ids with ':'
      | \{[^}]*\}                             # JSON-ish fragments
    )""",
    re.VERBOSE | re.IGNORECASE,
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]")
#: Two or more Latin words in a row (separated by spaces/punctuation, no CJK between).
_RUN = re.compile(r"[A-Za-z][A-Za-z'’\- ,./()&]*[A-Za-z]")


def english_runs(text: str, data: Iterable[str] = ()) -> list[str]:
    """The runs of untranslated English words in ``text`` (empty when none).

    A run is a stretch of Latin-letter words with no CJK character between them; it counts
    when at least one of its words is neither kept (:data:`KEPT`) nor part of ``data``.

    Args:
        text: interface text of one element (a label, a caption, a message...).
        data: strings the test seeded (tenant ids, contents): removed before checking.
    """
    for item in sorted((d for d in data if d), key=len, reverse=True):
        text = text.replace(item, " ")
    text = _DIRECTIVE.sub(" ", text)
    text = _CODE_SPAN.sub(" ", text)
    text = _CODE_LIKE.sub(" ", text)
    found = []
    for run in _RUN.findall(text):
        words = [w for w in _WORD.findall(run) if w.lower() not in KEPT]
        if words:
            found.append(run.strip())
    return found


# --------------------------------------------------------------------------- AppTest tree
_TEXT_FIELDS = ("body", "label", "help", "placeholder", "text", "value_label")


def _plotly_texts(spec: str) -> Iterator[str]:
    """Axis titles, legend title, trace names and category values of a plotly figure."""
    fig = json.loads(spec)
    layout = fig.get("layout", {})
    for key, axis in layout.items():
        if key.startswith(("xaxis", "yaxis")) and isinstance(axis, dict):
            title = axis.get("title")
            yield str(title.get("text", "") if isinstance(title, dict) else title or "")
    shows_legend = layout.get("showlegend", True) is not False
    legend = (layout.get("legend") or {}).get("title")
    if isinstance(legend, dict) and shows_legend:
        yield str(legend.get("text", ""))
    title = layout.get("title")
    if isinstance(title, dict):
        yield str(title.get("text", ""))
    for trace in fig.get("data", []):
        if shows_legend and trace.get("showlegend", True) is not False:
            yield str(trace.get("name") or "")
        for axis in ("x", "y"):
            values = trace.get(axis)
            if isinstance(values, list) and values and all(isinstance(v, str) for v in values):
                yield from (v for v in values if v in ENUM_VALUES)
        yield str(trace.get("hovertemplate") or "").replace("<br>", " ")


def date_axes_without_format(spec: str) -> list[str]:
    """The date axes of a plotly figure that have no ``tickformat`` (English month names)."""
    fig = json.loads(spec)
    layout = fig.get("layout", {})
    dated = set()
    for trace in fig.get("data", []):
        for axis in ("x", "y"):
            values = trace.get(axis)
            if isinstance(values, list) and values and isinstance(values[0], str):
                if re.match(r"^\d{4}-\d{2}-\d{2}", values[0]):
                    ref = trace.get(f"{axis}axis", axis)
                    dated.add(ref.replace("x", "xaxis").replace("y", "yaxis"))
    return sorted(a for a in dated if not (layout.get(a) or {}).get("tickformat") and a in layout)


def element_texts(element: Any) -> Iterator[tuple[str, str]]:
    """``(where, text)`` for the interface text of one AppTest element.

    Table cells are not interface text, except stored enum values (see the module doc).
    """
    kind = getattr(element, "type", type(element).__name__)
    proto = getattr(element, "proto", None)
    if proto is None:
        return
    for field in _TEXT_FIELDS:
        if hasattr(proto, field):
            value = getattr(proto, field)
            if isinstance(value, str) and value:
                if kind == "html":  # markup: only its text counts
                    value = re.sub(r"<(style|script)\b.*?</\1>|<[^>]+>", " ", value, flags=re.S)
                yield f"{kind}.{field}", value
    for field in ("options", "display_values"):
        for value in getattr(proto, field, None) or ():
            yield f"{kind}.{field}", str(value)
    if kind in ("selectbox", "multiselect") and not proto.placeholder:
        yield f"{kind}.placeholder", "Choose an option"  # Streamlit's English default
    if kind == "arrow_data_frame" or kind == "dataframe":
        frame = element.value
        for column in frame.columns:
            yield f"{kind}.column", str(column)
        for column in frame.columns:
            for cell in frame[column].tolist():
                if isinstance(cell, str) and cell in ENUM_VALUES:
                    yield f"{kind}.cell[{column}]", cell
    if kind == "plotly_chart":
        for text in _plotly_texts(proto.spec):
            yield f"{kind}.figure", text
        for axis in date_axes_without_format(proto.spec):
            yield f"{kind}.{axis}.tickformat", "English month names"
    if kind == "tab":
        yield "tab.label", str(getattr(element, "label", ""))
    if kind == "expandable":
        yield "expander.label", str(proto.expandable.label) if hasattr(proto, "expandable") else ""


def walk(node: Any) -> Iterator[Any]:
    """Every element and block under an AppTest node (depth first)."""
    yield node
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            yield from walk(child)


def untranslated(at: Any, data: Iterable[str] = ()) -> list[tuple[str, str]]:
    """``(where, run)`` for every untranslated English run on the page of ``at``."""
    data = list(data)
    found = []
    for node in walk(at._tree):
        for where, text in element_texts(node):
            if ".cell[" in where or where.endswith(".placeholder") and text == "Choose an option":
                found.append((where, text))
                continue
            found.extend((where, f"{run!r} in {text[:90]!r}") for run in english_runs(text, data))
    return found
