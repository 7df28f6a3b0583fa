"""Deletion receipts: what a purge will erase (counted before it) and what every index and
read path still returns after it (re-queried), as one typed record.

A receipt lists one :class:`ErasureCheck` per place a memory's text can live:

* ``index`` checks (the store's :meth:`MemoryStore.index_presence`, the write journal and the
  working-memory buffers): ``row``, ``vector``, ``keyword_terms``, ``entity_links``,
  ``events_with_content`` (audit snapshots still holding the text), ``reasons_with_content``,
  ``traces_with_content`` (stored searches quoting it), ``journal_writes_with_content`` and
  ``working_memory_entries`` (session messages or summaries quoting it) and
  ``as_of_cache_entries`` (the as-of search's embedding cache of this process);
* ``read_path`` checks, each the engine call a frontend makes (:data:`READ_PATHS` names who
  uses it): ``get``, ``list``, ``search`` and ``as_of`` (the memory as recorded just before
  the purge, from its events: a read of the as-of history must show it redacted).

Each check holds its count before the purge and after it; it passes when the count after is 0.
The working-memory scrub lives here too (the working store has no per-message delete: a
session that quotes the text is rewritten without those messages).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import Final, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from memory_engine.context.working_store import Message, WorkingStore
from memory_engine.errors import MemoryEngineError, MemoryNotFoundError
from memory_engine.models import Memory, MemoryFilter, MemoryStatus, Page, Scope, SearchResult
from memory_engine.stores.redaction import quotes

#: Index checks of a receipt, in the order they are listed (module doc).
INDEX_CHECKS: Final = (
    "row",
    "vector",
    "keyword_terms",
    "entity_links",
    "events_with_content",
    "reasons_with_content",
    "traces_with_content",
    "journal_writes_with_content",
    "working_memory_entries",
    "as_of_cache_entries",
)

#: Read paths a receipt re-queries, with the frontends that read through each.
READ_PATHS: Final[dict[str, str]] = {
    "get": "API get, MCP memory_get/memory_history, dashboard Memories",
    "list": "API list, dashboard Memories (text filter, every status)",
    "search": "API search, MCP memory_search, dashboard Query Replay (the memory's own text)",
    "as_of": "API memory_as_of / state_as_of, dashboard Audit as-of browser",
}


#: One read path: how many results of ``scope`` still show the memory (by id, its text
#: unredacted) when asked with its ``content``: ``(scope, memory_id, content, before) -> int``
#: (``before``: a time just before the purge, for the as-of read).
ReadProbe = Callable[[Scope, uuid.UUID, str, datetime], int]


class ErasureCheck(BaseModel):
    """One place checked by a receipt.

    Attributes:
        name: an :data:`INDEX_CHECKS` or :data:`READ_PATHS` name.
        kind: ``index`` or ``read_path``.
        before: count found before the purge (>= 0).
        after: count found after it (>= 0; 0 passes).
        ok: ``after == 0`` and the probe ran.
        error: the probe's error (then ``ok`` is False), else None.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    kind: Literal["index", "read_path"]
    before: int = Field(ge=0)
    after: int = Field(ge=0)
    ok: bool
    error: str | None = None


class PurgePreview(BaseModel):
    """What a purge of one memory would erase, counted now (nothing is changed).

    ``counts`` has every :data:`INDEX_CHECKS` name; ``reads`` every :data:`READ_PATHS` name
    (hits of the memory on that path now). ``total`` is the sum of ``counts``.
    """

    model_config = ConfigDict(frozen=True)

    memory_id: uuid.UUID
    tenant_id: str
    memory_type: str
    status: str
    version: int
    created_at: datetime
    counts: dict[str, int]
    reads: dict[str, int]
    errors: dict[str, str] = Field(default_factory=dict)

    @property
    def total(self) -> int:
        """Sum of the index counts (rows, vectors, postings, snapshots, ...)."""
        return sum(self.counts.values())


def run_probes(
    probes: Mapping[str, ReadProbe],
    scope: Scope,
    memory_id: uuid.UUID,
    content: str,
    before: datetime,
) -> tuple[dict[str, int], dict[str, str]]:
    """Each read probe's hit count, and the errors of those that failed (``name: message``)."""
    counts: dict[str, int] = {}
    errors: dict[str, str] = {}
    for name, probe in probes.items():
        try:
            counts[name] = probe(scope, memory_id, content, before)
        except MemoryEngineError as exc:
            counts[name] = 0
            errors[name] = f"{type(exc).__name__}: {exc}"
    return counts, errors


def build_checks(
    before: Mapping[str, int],
    after: Mapping[str, int],
    reads_before: Mapping[str, int],
    reads_after: Mapping[str, int],
    errors: Mapping[str, str],
) -> list[ErasureCheck]:
    """The receipt's checks: index counts, then read paths (an errored probe fails)."""
    checks = [
        ErasureCheck(
            name=name,
            kind="index",
            before=before.get(name, 0),
            after=after.get(name, 0),
            ok=after.get(name, 0) == 0,
        )
        for name in (*INDEX_CHECKS, *(k for k in after if k not in INDEX_CHECKS))
    ]
    checks += [
        ErasureCheck(
            name=name,
            kind="read_path",
            before=reads_before.get(name, 0),
            after=reads_after.get(name, 0),
            ok=reads_after.get(name, 0) == 0 and name not in errors,
            error=errors.get(name),
        )
        for name in reads_after
    ]
    return checks


class ContentCache(Protocol):
    """A process-local cache keyed by content (the as-of search's embeddings,
    ``HistoryService``): how many entries hold a text, and dropping them."""

    def cached_copies(self, content: str) -> int: ...

    def forget_content(self, content: str) -> int: ...


# --------------------------------------------------------------------------- working memory
def _session_ids(store: WorkingStore, tenant_id: str) -> list[str]:
    """Every session id of the tenant: ``clear_matching`` visits each and (matching none)
    clears none; ``sessions`` would stop at its listing limit."""
    seen: list[str] = []

    def visit(session_id: str) -> bool:
        seen.append(session_id)
        return False

    store.clear_matching(tenant_id, visit)
    return seen


def working_quotes(store: WorkingStore, tenant_id: str, content: str) -> int:
    """Messages and summaries of the tenant's sessions that quote ``content``
    (``redaction.quotes``)."""
    found = 0
    for sid in _session_ids(store, tenant_id):
        state = store.load(tenant_id, sid)
        found += sum(1 for m in state.messages if quotes(m.content, content))
        found += int(bool(state.summary) and quotes(state.summary, content))
    return found


def erase_working_quotes(store: WorkingStore, tenant_id: str, content: str) -> int:
    """Rewrite every session of the tenant that quotes ``content`` without the quoting
    messages (and without its summary when that quotes it). Returns the entries removed.

    A message appended to that session between the read and the rewrite is lost (the buffer
    is short-lived context, not a record)."""
    removed = 0
    for sid in _session_ids(store, tenant_id):
        state = store.load(tenant_id, sid)
        kept: list[Message] = [m for m in state.messages if not quotes(m.content, content)]
        summary_quotes = bool(state.summary) and quotes(state.summary, content)
        if len(kept) == len(state.messages) and not summary_quotes:
            continue
        removed += len(state.messages) - len(kept) + int(summary_quotes)
        store.clear(tenant_id, sid)
        if kept:
            store.append(tenant_id, sid, kept)
        if state.summary and not summary_quotes:
            store.compact(
                tenant_id,
                sid,
                expected_version=0,
                drop=0,
                summary=state.summary,
                summarized_rounds=state.summarized_rounds,
                summarized_tokens=state.summarized_tokens,
            )
    return removed


# --------------------------------------------------------------------------- read paths
#: Most characters of the memory's text a read probe sends as a query or a text filter.
PROBE_QUERY_CHARS: Final = 1000
#: Results a search probe asks for (every candidate of every leg of its trace is checked).
PROBE_SEARCH_K: Final = 50
_ALL_STATUSES = tuple(MemoryStatus)


def read_probes(
    *,
    get: Callable[..., Memory],
    list_memories: Callable[..., Page],
    search: Callable[..., SearchResult],
    memory_as_of: Callable[..., Memory | None],
) -> dict[str, ReadProbe]:
    """The :data:`READ_PATHS` probes over the engine's own read calls.

    Args:
        get: ``ReadService.get(scope, memory_id)`` (raises MemoryNotFoundError).
        list_memories: ``ReadService.list(scope, filters=, limit=)``.
        search: ``SearchService.search(scope, query, k=, save_trace=)`` (no trace is stored,
            no access counted: the probe's query is the erased text).
        memory_as_of: ``HistoryService.memory_as_of(scope, memory_id, as_of)``.
    """

    def probe_get(scope: Scope, mid: uuid.UUID, content: str, before: datetime) -> int:
        try:
            get(scope, mid)
        except MemoryNotFoundError:
            return 0
        return 1

    def probe_list(scope: Scope, mid: uuid.UUID, content: str, before: datetime) -> int:
        text = content[:PROBE_QUERY_CHARS]
        filters = MemoryFilter(statuses=_ALL_STATUSES, text_contains=text)
        page = list_memories(scope, filters=filters, limit=PROBE_SEARCH_K)
        return sum(1 for m in page.items if m.id == mid)

    def probe_search(scope: Scope, mid: uuid.UUID, content: str, before: datetime) -> int:
        result = search(scope, content[:PROBE_QUERY_CHARS], k=PROBE_SEARCH_K, save_trace=False)
        found = {c.memory.id for c in result.memories}
        found |= {c.memory_id for c in result.trace.candidates}
        found |= {c.memory_id for leg in result.trace.legs.values() for c in leg}
        return int(mid in found)

    def probe_as_of(scope: Scope, mid: uuid.UUID, content: str, before: datetime) -> int:
        try:
            then = memory_as_of(scope, mid, before)
        except MemoryNotFoundError:
            return 0
        return int(then is not None and quotes(then.content, content))

    return {"get": probe_get, "list": probe_list, "search": probe_search, "as_of": probe_as_of}
