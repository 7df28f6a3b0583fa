"""``MemoryEngine``: the facade every caller uses (CLI, dashboard, MCP server, benchmarks).

Every method takes a ``Scope`` first; there is no unscoped call. Cross-tenant reads go through
``tenant_counts`` only, which the store audits.

The facade holds no logic: it builds one :class:`~memory_engine.deps.EngineDeps` and the
services over it, and each public method is one line naming the service that does the work:

================  ==========================================  =================================
service           module                                      needs
================  ==========================================  =================================
writes            ``write.service.WriteService``              deps
search            ``retrieval.service.SearchService``         deps, history, access, retention
history           ``history.service.HistoryService``          deps
access            ``lifecycle.access.AccessBookkeeper``       deps
context           ``context.service.ContextService``          deps, search, writes
lifecycle         ``lifecycle.service.LifecycleService``      deps, context, reads, search, history
reads             ``reads.service.ReadService``               deps
edits             ``edits.service.EditService``               deps
conflicts         ``edits.conflicts.ConflictReview``          deps
================  ==========================================  =================================
"""

from __future__ import annotations

import contextlib
import functools
import logging
import threading
from collections.abc import Callable, Mapping
from concurrent.futures import Future
from typing import Any, Concatenate, Generic, ParamSpec, Self, TypeVar, overload

from memory_engine.config import Settings
from memory_engine.context.service import ContextService
from memory_engine.context.working import WorkingMemory
from memory_engine.context.working_store import WorkingStore, build_working_store
from memory_engine.deps import Clock, DefaultParts, EngineDeps
from memory_engine.edits.conflicts import ConflictReview
from memory_engine.edits.service import EDITABLE_FIELDS, EditService
from memory_engine.embedding.base import Embedder
from memory_engine.history.service import HistoryService
from memory_engine.lifecycle.access import AccessBookkeeper
from memory_engine.lifecycle.erasure import read_probes
from memory_engine.lifecycle.service import LifecycleService
from memory_engine.lifecycle.service import retention_params as settings_retention_params
from memory_engine.llm.base import WriteLLM
from memory_engine.reads.service import ReadService
from memory_engine.retrieval.pipeline import muted_dense_legs
from memory_engine.retrieval.rerank import Reranker
from memory_engine.retrieval.service import MAX_QUERY_CHARS, SearchService
from memory_engine.stores.base import MemoryStore
from memory_engine.write.journal import WriteJournal
from memory_engine.write.raw import Extractor, raw_extractor
from memory_engine.write.service import WriteService

_WARM_UP_JOIN_S = 120.0  # seconds close() waits for a background warm-up
_log = logging.getLogger(__name__)

__all__ = ["EDITABLE_FIELDS", "MAX_QUERY_CHARS", "MemoryEngine"]


def _working_memory(backend: WorkingStore | None, settings: Settings) -> WorkingMemory:
    """Session buffers over ``backend`` (default: Redis when ``MEMORY_REDIS_URL`` is set)."""
    return WorkingMemory(backend or build_working_store(settings), settings)


#: The defaults of the parts the feature packages own (``deps.DefaultParts``).
FEATURE_DEFAULTS = DefaultParts(
    journal=WriteJournal, working_memory=_working_memory, extractor=raw_extractor
)

P = ParamSpec("P")
R = TypeVar("R")


class _Delegate(Generic[P, R]):
    """A public method of the facade: ``engine.<name>(...)`` calls ``<service>.<name>(...)``.

    On an engine it gives the service's bound method (same signature and docstring). On the
    class it gives a function of ``(engine, ...)`` that does the same, so
    ``MemoryEngine.search(engine, scope, query)`` and ``help(MemoryEngine.search)`` work.
    """

    def __init__(self, service: str, method: Callable[Concatenate[Any, P], R]) -> None:
        self.service = service
        self.method = method
        self.__doc__ = method.__doc__

        @functools.wraps(method)
        def unbound(engine: Any, *args: P.args, **kwargs: P.kwargs) -> R:
            bound: Callable[P, R] = getattr(getattr(engine, service), method.__name__)
            return bound(*args, **kwargs)

        self._unbound = unbound

    def __set_name__(self, owner: type, name: str) -> None:
        self._unbound.__name__ = name
        self._unbound.__qualname__ = f"{owner.__name__}.{name}"

    @overload
    def __get__(self, obj: None, owner: type) -> Callable[Concatenate[Any, P], R]: ...
    @overload
    def __get__(self, obj: object, owner: type) -> Callable[P, R]: ...
    def __get__(self, obj: object | None, owner: type) -> Callable[..., R]:
        if obj is None:
            return self._unbound
        bound: Callable[P, R] = getattr(getattr(obj, self.service), self.method.__name__)
        return bound


class MemoryEngine:
    """Agent memory: write, ingest, search, inspect, edit and audit, per tenant.

    Args:
        settings: engine settings (default: read from ``MEMORY_*`` env and ``.env``).
        store: a ``MemoryStore`` (default: built from settings on first use).
        embedder: an ``Embedder`` (default: built from settings on first write or search;
            checked once against the store's recorded model and dimension).
        leg_embedders: embedders of the extra dense legs, leg name -> embedder (``dense_ml``:
            the multilingual leg); they replace the settings' legs, ``{}`` = the primary leg
            only. Default: built from the settings (``MEMORY_EMBEDDER_MULTILINGUAL``, USE-m3),
            also when ``embedder`` is given: an injected primary replaces the primary leg only
            (no second leg when it already is USE-m3, or with ``MEMORY_EMBEDDER_MULTILINGUAL=none``).
        llm: the write-decision ``WriteLLM`` (default: ``MEMORY_LLM_PROVIDER``, on first use).
        journal: the ``WriteJournal`` (default: ``MEMORY_WRITE_QUEUE_PATH`` or
            ``data_dir/write_journal.sqlite3``, created on first use).
        reranker: rescores the best fused candidates of every search (default: none).
        working_store: the working-memory backend (default: Redis when ``MEMORY_REDIS_URL``
            is set, else in-process; on first use).
        extractor: turns one input into memories (default: raw mode, one memory per chunk).
        clock: current time, timezone-aware UTC (default ``models.utcnow``).

    See :mod:`memory_engine.deps` for when each default is built.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        store: MemoryStore | None = None,
        embedder: Embedder | None = None,
        leg_embedders: Mapping[str, Embedder] | None = None,
        llm: WriteLLM | None = None,
        journal: WriteJournal | None = None,
        reranker: Reranker | None = None,
        working_store: WorkingStore | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
    ) -> None:
        deps = EngineDeps(
            settings,
            parts=FEATURE_DEFAULTS,
            store=store,
            embedder=embedder,
            leg_embedders=leg_embedders,
            llm=llm,
            journal=journal,
            reranker=reranker,
            working_store=working_store,
            extractor=extractor,
            clock=clock,
        )
        self._deps = deps
        self._warm_ups: list[threading.Thread] = []  # joined by close()
        self._writes = WriteService(deps)
        self._history = HistoryService(deps)
        self._access = AccessBookkeeper(deps)
        self._search = SearchService(
            deps,
            history=self._history,
            bookkeeping=self._access,
            retention_params=lambda: settings_retention_params(deps.settings),
        )
        self._context = ContextService(deps, search=self._search.search, write=self._writes.write)
        self._reads = ReadService(deps)
        self._lifecycle = LifecycleService(
            deps,
            clear_user_sessions=self._context.clear_user_sessions,
            read_probes=read_probes(
                get=self._reads.get,
                list_memories=self._reads.list,
                search=self._search.search,
                memory_as_of=self._history.memory_as_of,
            ),
            content_cache=self._history,
        )
        self._edits = EditService(deps)
        self._conflicts = ConflictReview(deps)

    # ------------------------------------------------------------------ dependencies
    @property
    def settings(self) -> Settings:
        """The engine's settings; assigning new ones takes effect on the next call."""
        return self._deps.settings

    @settings.setter
    def settings(self, value: Settings) -> None:
        self._deps.settings = value

    @property
    def store(self) -> MemoryStore:
        """The store (opened on first use). Raises StoreUnavailableError."""
        return self._deps.store

    @property
    def embedder(self) -> Embedder:
        """The embedder, checked once against the store. Raises EmbeddingMismatchError."""
        return self._deps.embedder

    @property
    def llm(self) -> WriteLLM:
        """The write-decision LLM (``MEMORY_LLM_PROVIDER`` unless injected)."""
        return self._deps.llm

    @property
    def write_journal(self) -> WriteJournal:
        """The SQLite write journal (``MEMORY_WRITE_QUEUE_PATH`` or data_dir/JOURNAL_FILE)."""
        return self._deps.journal

    @property
    def working_memory(self) -> WorkingMemory:
        """The session buffers (Redis when ``MEMORY_REDIS_URL`` is set, else in-process)."""
        return self._deps.working_memory

    # ------------------------------------------------------------------ write
    write = _Delegate("_writes", WriteService.write)
    write_many = _Delegate("_writes", WriteService.write_many)
    ingest = _Delegate("_writes", WriteService.ingest)
    write_extract = _Delegate("_writes", WriteService.write_extract)
    ingest_extract = _Delegate("_writes", WriteService.ingest_extract)
    rate_limit = _Delegate("_writes", WriteService.rate_limit)
    enqueue_write = _Delegate("_writes", WriteService.enqueue_write)
    process_pending_writes = _Delegate("_writes", WriteService.process_pending_writes)
    start_write_worker = _Delegate("_writes", WriteService.start_write_worker)
    stop_write_worker = _Delegate("_writes", WriteService.stop_write_worker)
    wait_for_writes = _Delegate("_writes", WriteService.wait_for_writes)
    write_status = _Delegate("_writes", WriteService.write_status)
    write_trail = _Delegate("_writes", WriteService.write_trail)
    list_writes = _Delegate("_writes", WriteService.list_writes)
    write_usage = _Delegate("_writes", WriteService.write_usage)
    retry_write = _Delegate("_writes", WriteService.retry_write)
    consolidate = _Delegate("_writes", WriteService.consolidate)

    # ------------------------------------------------------------------ search
    search_options = _Delegate("_search", SearchService.search_options)
    search = _Delegate("_search", SearchService.search)
    replay = _Delegate("_search", SearchService.replay)
    get_trace = _Delegate("_search", SearchService.get_trace)
    list_traces = _Delegate("_search", SearchService.list_traces)

    # ------------------------------------------------------------------ history (as-of)
    state_as_of = _Delegate("_history", HistoryService.state_as_of)
    memory_as_of = _Delegate("_history", HistoryService.memory_as_of)
    search_as_of = _Delegate("_history", HistoryService.search_as_of)
    compare_trace = _Delegate("_history", HistoryService.compare_trace)

    # ------------------------------------------------------------------ reads
    get = _Delegate("_reads", ReadService.get)
    list = _Delegate("_reads", ReadService.list)
    list_entities = _Delegate("_reads", ReadService.list_entities)
    memory_entities = _Delegate("_reads", ReadService.memory_entities)
    facet_counts = _Delegate("_reads", ReadService.facet_counts)
    history = _Delegate("_reads", ReadService.history)
    events = _Delegate("_reads", ReadService.events)
    stats = _Delegate("_reads", ReadService.stats)
    tenant_counts = _Delegate("_reads", ReadService.tenant_counts)
    export = _Delegate("_reads", ReadService.export)

    # ------------------------------------------------------------------ edits and review
    preview_update = _Delegate("_edits", EditService.preview_update)
    update = _Delegate("_edits", EditService.update)
    archive = _Delegate("_edits", EditService.archive)
    restore = _Delegate("_edits", EditService.restore)
    delete = _Delegate("_edits", EditService.delete)
    purge = _Delegate("_edits", EditService.purge)
    list_conflicts = _Delegate("_conflicts", ConflictReview.list_conflicts)
    review_conflict = _Delegate("_conflicts", ConflictReview.review_conflict)

    # ------------------------------------------------------------------ lifecycle
    retention_params = _Delegate("_lifecycle", LifecycleService.retention_params)
    maintenance_policy = _Delegate("_lifecycle", LifecycleService.maintenance_policy)
    retention = _Delegate("_lifecycle", LifecycleService.retention)
    iter_memories = _Delegate("_lifecycle", LifecycleService.iter_memories)
    plan_maintenance = _Delegate("_lifecycle", LifecycleService.plan_maintenance)
    maintain = _Delegate("_lifecycle", LifecycleService.maintain)
    maintain_all = _Delegate("_lifecycle", LifecycleService.maintain_all)
    purge_preview = _Delegate("_lifecycle", LifecycleService.purge_preview)
    purge_verified = _Delegate("_lifecycle", LifecycleService.purge_verified)
    forget_user = _Delegate("_lifecycle", LifecycleService.forget_user)
    flush_accesses = _Delegate("_access", AccessBookkeeper.flush)

    # ------------------------------------------------------------------ context
    clear_user_sessions = _Delegate("_context", ContextService.clear_user_sessions)
    add_turn = _Delegate("_context", ContextService.add_turn)
    context = _Delegate("_context", ContextService.context)
    observe = _Delegate("_context", ContextService.observe)

    def warm_up(
        self,
        *,
        sample: str | None = None,
        open_store: bool = False,
        background: bool = False,
        searching: bool = False,
    ) -> Future[None]:
        """Load the embedding model and the tokenizers before the first search or write.

        A long-lived process (dashboard, MCP server) calls this with ``open_store=True,
        background=True`` at start; a search or write arriving while it runs waits for the
        loads in progress instead of starting them again.

        Args:
            sample: the text about to be searched or written (jieba is loaded only if it
                holds Han characters), or ``None`` for any language.
            open_store: also open the store (start the embedded PostgreSQL) and check the
                embedder against it.
            background: run in a daemon thread and return at once.
            searching: ``sample`` is a search query: the models of dense legs weighted 0 for
                its script (``retrieval.pipeline.muted_dense_legs``: MiniLM for an all-CJK
                query) are not loaded, as the search will not embed with them.

        Returns:
            A future done when warm-up ends; its ``result()`` raises what the warm-up
            raised (a failed warm-up is also logged as a warning and is otherwise harmless:
            the first search raises the same error itself).

        Raises:
            MemoryEngineError: ``background=False`` and the model cannot be loaded.
        """
        future: Future[None] = Future()

        def run() -> None:
            try:
                skip: frozenset[str] = frozenset()
                if searching and sample is not None:
                    skip = muted_dense_legs(
                        sample, self._search.search_options(), self._deps.leg_embedders
                    )
                self._deps.warm_up(sample, open_store=open_store, skip_legs=skip)
            except Exception as exc:
                if not background:
                    raise
                _log.warning("warm-up failed (the first search will retry): %s", exc)
                future.set_exception(exc)
            else:
                future.set_result(None)

        if background:
            thread = threading.Thread(target=run, name="memory-engine-warm-up", daemon=True)
            self._warm_ups.append(thread)
            thread.start()
        else:
            run()
        return future

    # ------------------------------------------------------------------ closing
    def close(self) -> None:
        """Close everything this engine opened, in this order; safe to call twice:

        0. wait for a background :meth:`warm_up` still loading a model: a process that
           exits while a native library (onnxruntime) is mid-load can crash at shutdown;
        1. stop the background write worker (after its current write);
        2. finish the queued search bookkeeping (access counts, restores) and stop its worker;
        3. close the working-memory backend;
        4. close the write journal;
        5. close the store's connections (last: every step before may still write to it).

        Parts never opened are left alone; injected parts are closed too. When a step raises,
        the later steps still run and the first error is raised after them.
        """
        while self._warm_ups:  # bounded: a stuck load must not stop the process closing
            self._warm_ups.pop().join(timeout=_WARM_UP_JOIN_S)
        with contextlib.ExitStack() as steps:  # every step runs even if one before it raises
            for step in (
                self._deps.close_store,
                self._deps.close_journal,
                self._deps.close_working_memory,
                self._access.close,
                self._writes.stop_write_worker,
            ):
                steps.callback(step)  # last in, first run: the worker stops first

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
