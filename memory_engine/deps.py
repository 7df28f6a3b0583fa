"""``EngineDeps``: the dependency bundle every service of ``MemoryEngine`` is built from.

Every part can be injected; a part left out is built from the settings the first time it is
used (the extractor excepted: it is built at construction), under one lock, exactly once:

=================  ==============================================================  ==========
part               default                                                          built when
=================  ==============================================================  ==========
``store``          ``stores.build_store(settings)``                                 first use
``embedder``       ``embedding.build_embedder(settings)``, then checked once        first use
                   against the store's recorded model and dimension
``llm``            ``llm.build_llm(settings)`` (``MEMORY_LLM_PROVIDER``)            first use
``journal``        ``WriteJournal(MEMORY_WRITE_QUEUE_PATH or data_dir/JOURNAL_FILE)``  first use
                   (the SQLite file is created then)
``working_store``  ``build_working_store(settings)`` (Redis when                    first use
                   ``MEMORY_REDIS_URL`` is set, else in-process)
``extractor``      ``raw_extractor(settings)`` (one memory per chunk)               construction
``reranker``       none (search runs without a rerank stage)                        -
``clock``          ``models.utcnow`` (timezone-aware UTC)                           -
=================  ==============================================================  ==========

An injected embedder is checked against the store too (once, on first use). ``settings`` is a
plain attribute: services read it at call time, so replacing it takes effect on the next call.

Helpers ``check_scope`` and ``as_uuid`` validate the two arguments every public call takes.
"""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_engine.config import Settings
from memory_engine.config.layout import JOURNAL_FILE
from memory_engine.embedding.base import Embedder
from memory_engine.errors import InvalidInputError, MemoryNotFoundError
from memory_engine.llm import WriteLLM, build_llm
from memory_engine.models import Scope, utcnow
from memory_engine.stores.base import MemoryStore

if TYPE_CHECKING:  # the feature types only: their builders come in through ``DefaultParts``
    from memory_engine.context.working import WorkingMemory
    from memory_engine.context.working_store import WorkingStore
    from memory_engine.retrieval.rerank import Reranker
    from memory_engine.write.journal import WriteJournal
    from memory_engine.write.raw import Extractor

#: A clock: returns the current time, timezone-aware UTC.
Clock = Callable[[], datetime]


@dataclass(frozen=True)
class DefaultParts:
    """Builders of the parts a feature package owns, used when that part is not injected.

    The facade (``engine.py``) passes them, so this module imports no feature package: the
    dependency bundle sits below the services that use it.

    Attributes:
        journal: path of the SQLite file -> the write journal (the file is created then).
        working_memory: (backend or None for the configured one, settings) -> session buffers.
        extractor: settings -> the raw-mode extractor (one memory per chunk).
    """

    journal: Callable[[Path], WriteJournal]
    working_memory: Callable[[WorkingStore | None, Settings], WorkingMemory]
    extractor: Callable[[Settings], Extractor]


def check_scope(scope: Any) -> Scope:
    """Return ``scope`` if it is a ``Scope``. Raises InvalidInputError otherwise."""
    if not isinstance(scope, Scope):
        raise InvalidInputError("scope must be a memory_engine.Scope (use Scope.of(tenant))")
    return scope


def as_uuid(value: uuid.UUID | str) -> uuid.UUID:
    """Parse a memory id. Raises MemoryNotFoundError for anything that is not a UUID."""
    if isinstance(value, uuid.UUID):
        return value
    try:
        return uuid.UUID(str(value))
    except ValueError as exc:
        raise MemoryNotFoundError(f"no memory {value!r}", memory_id=value) from exc


class EngineDeps:
    """Settings, store, embedder, LLM, write journal, working memory, reranker, extractor, clock.

    Args:
        settings: engine settings (default: read from ``MEMORY_*`` env and ``.env``).
        parts: builders of the feature-owned defaults (journal, working memory, extractor).
        store: a ``MemoryStore``; the others are described in the module docstring.

    Closing is the facade's job (``MemoryEngine.close``); ``close_working_memory``,
    ``close_journal`` and ``close_store`` close one part each and are safe to call twice.
    """

    def __init__(
        self,
        settings: Settings | None = None,
        *,
        parts: DefaultParts,
        store: MemoryStore | None = None,
        embedder: Embedder | None = None,
        llm: WriteLLM | None = None,
        journal: WriteJournal | None = None,
        reranker: Reranker | None = None,
        working_store: WorkingStore | None = None,
        extractor: Extractor | None = None,
        clock: Clock | None = None,
    ) -> None:
        self.settings = settings or Settings()
        self.reranker = reranker
        self.clock: Clock = clock or utcnow
        self._parts = parts
        self.extractor: Extractor = extractor or parts.extractor(self.settings)
        self.lock = threading.Lock()
        self._store = store
        self._embedder = embedder
        self._embedding_checked = False
        self._llm = llm
        self._journal = journal
        self._working_store = working_store
        self._working: WorkingMemory | None = None

    @property
    def store(self) -> MemoryStore:
        """The store (opened on first use). Raises StoreUnavailableError."""
        if self._store is None:
            with self.lock:
                if self._store is None:
                    from memory_engine.stores import build_store

                    self._store = build_store(self.settings)
        return self._store

    @property
    def embedder(self) -> Embedder:
        """The embedder, checked against the store's recorded model and dimension.

        Raises:
            EmbeddingMismatchError: the store holds vectors of another model or dimension.
        """
        if self._embedder is None:
            with self.lock:
                if self._embedder is None:
                    from memory_engine.embedding import build_embedder

                    self._embedder = build_embedder(self.settings)
        if not self._embedding_checked:
            self.store.ensure_embedding(self._embedder.model_name, self._embedder.dim)
            self._embedding_checked = True
        return self._embedder

    def warm_up(self, sample: str | None = None, *, open_store: bool = False) -> None:
        """Load the embedder's model and the text tokenizers now (idempotent, thread-safe).

        Builds the embedder from the settings (checked against the store only when
        ``open_store``) and calls its ``warm_up()`` when it has one; then
        :func:`memory_engine.text.warm_up` with ``sample``; then, if ``open_store``, opens
        the store and checks the embedder against it. Loads already under way in another
        thread are waited for, never repeated.

        Args:
            sample: the text about to be searched or written, or ``None`` (any language).
            open_store: also open the store (start the embedded PostgreSQL).

        Raises:
            MemoryEngineError: the embedder cannot be built, its model cannot be loaded, or
                (``open_store``) the store is unavailable or holds another model's vectors.
        """
        if self._embedder is None:
            with self.lock:
                if self._embedder is None:
                    from memory_engine.embedding import build_embedder

                    self._embedder = build_embedder(self.settings)
        load = getattr(self._embedder, "warm_up", None)
        if callable(load):
            load()
        from memory_engine import text

        text.warm_up(sample)
        if open_store:
            _ = self.embedder  # opens the store and checks the model against it

    @property
    def llm(self) -> WriteLLM:
        """The write-decision LLM (``MEMORY_LLM_PROVIDER`` unless injected)."""
        if self._llm is None:
            with self.lock:
                if self._llm is None:
                    self._llm = build_llm(self.settings)
        return self._llm

    @property
    def journal(self) -> WriteJournal:
        """The SQLite write journal (``MEMORY_WRITE_QUEUE_PATH`` or data_dir/JOURNAL_FILE)."""
        if self._journal is None:
            with self.lock:
                if self._journal is None:
                    # beside the embedded database, never inside a folder initdb needs
                    # empty (config/layout.py)
                    path = self.settings.write.queue_path or Path(
                        self.settings.storage.data_dir
                    ) / (JOURNAL_FILE)
                    self._journal = self._parts.journal(Path(path))
        return self._journal

    @property
    def working_memory(self) -> WorkingMemory:
        """The session buffers over the working store (built on first use)."""
        if self._working is None:
            with self.lock:
                if self._working is None:
                    self._working = self._parts.working_memory(self._working_store, self.settings)
        return self._working

    def page_limit(self, limit: int) -> int:
        """``limit`` capped at ``list_max_limit``. Raises InvalidInputError below 1."""
        if limit < 1:
            raise InvalidInputError("limit must be >= 1", limit=limit)
        return min(limit, self.settings.limits.list_max_limit)

    # ------------------------------------------------------------------ closing
    def close_working_memory(self) -> None:
        """Close the working-memory backend if it was opened (kept for a later reuse)."""
        if self._working is not None:
            self._working.store.close()
        elif self._working_store is not None:  # injected, never used: closed all the same
            self._working_store.close()

    def close_journal(self) -> None:
        """Close the write journal if it was opened; a later use opens it again."""
        if self._journal is not None:
            self._journal.close()
            self._journal = None

    def close_store(self) -> None:
        """Close the store's connections if it was opened."""
        if self._store is not None:
            self._store.close()
