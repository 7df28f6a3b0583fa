"""``EngineDeps``: the dependency bundle every service of ``MemoryEngine`` is built from.

Every part can be injected; a part left out is built from the settings the first time it is
used (the extractor excepted: it is built at construction), under one lock, exactly once:

=================  ==============================================================  ==========
part               default                                                          built when
=================  ==============================================================  ==========
``store``          ``stores.build_store(settings)``                                 first use
``embedder``       ``embedding.build_embedder(settings)``, then checked once        first use
                   against the store's recorded model and dimension
``leg_embedders``  ``embedding.build_leg_embedders(settings, embedder)``, also      first use
                   beside an injected ``embedder`` (``{}`` = no extra leg)
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

import logging
import threading
import time
import uuid
from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from memory_engine.config import Settings
from memory_engine.config.layout import JOURNAL_FILE
from memory_engine.embedding.base import Embedder
from memory_engine.errors import QUOTE_LIMIT, InvalidInputError, MemoryNotFoundError, quoted
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
        raise MemoryNotFoundError(
            f"no memory {quoted(value)}", memory_id=str(value)[:QUOTE_LIMIT]
        ) from exc


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
        leg_embedders: Mapping[str, Embedder] | None = None,
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
        # Building the embedders (no model load) never waits for the store, which ``lock``
        # holds while it starts (an embedded PostgreSQL: ~1-2 s): a background warm-up loads
        # the models meanwhile.
        self._models_lock = threading.Lock()
        self._store = store
        self._embedder = embedder
        self._embedding_checked = False
        # The extra legs come from the settings (MEMORY_EMBEDDER_MULTILINGUAL) whether the
        # primary embedder is injected or built; ``leg_embedders`` replaces them ({} = none).
        self._leg_embedders: dict[str, Embedder] | None = (
            dict(leg_embedders) if leg_embedders is not None else None
        )
        self._legs = LegRegistry()
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
            with self._models_lock:
                if self._embedder is None:
                    from memory_engine.embedding import build_embedder

                    self._embedder = build_embedder(self.settings)
        if not self._embedding_checked:
            # Legs first: a new Qdrant collection is created with every recorded leg's vector.
            self._legs.record(self.store, self.leg_embedders)
            self.store.ensure_embedding(self._embedder.model_name, self._embedder.dim)
            self._embedding_checked = True
        return self._embedder

    @property
    def leg_embedders(self) -> dict[str, Embedder]:
        """Embedders of the extra dense legs: the injected ``leg_embedders``, else built from
        the settings on first use (also beside an injected primary embedder; none when the
        primary already is the multilingual model); what the store holds is :meth:`dense_legs`."""
        if self._leg_embedders is None:
            with self._models_lock:
                if self._leg_embedders is None:
                    from memory_engine.embedding import build_leg_embedders

                    self._leg_embedders = build_leg_embedders(self.settings, self._embedder)
        return self._leg_embedders

    def dense_legs(self, *, searching: bool) -> dict[str, Embedder]:
        """The extra dense legs to use now, leg name -> embedder.

        Args:
            searching: True for a search (only legs the store holds ``ready`` with this
                embedder's model and dimension), False for a write (also legs still
                ``filling``: new memories get their vector at once).

        Returns:
            ``{}`` when no extra leg is configured or the store holds none usable; a leg
            recorded with another model is left out with one warning naming
            ``memory-engine reembed``.
        """
        wanted = self.leg_embedders
        if not wanted:
            return {}
        _ = self.embedder  # the primary record first: a new Qdrant collection declares the legs
        return self._legs.usable(self.store, wanted, searching=searching)

    def warm_up(
        self,
        sample: str | None = None,
        *,
        open_store: bool = False,
        skip_legs: Collection[str] = (),
    ) -> None:
        """Load the embedder's model and the text tokenizers now (idempotent, thread-safe).

        Builds the embedder from the settings (checked against the store only when
        ``open_store``) and calls its ``warm_up()`` when it has one; then
        :func:`memory_engine.text.warm_up` with ``sample``; then, if ``open_store``, opens
        the store and checks the embedder against it. Loads already under way in another
        thread are waited for, never repeated.

        Args:
            sample: the text about to be searched or written, or ``None`` (any language).
            open_store: also open the store (start the embedded PostgreSQL).
            skip_legs: dense legs (``dense`` = the primary embedder, ``dense_ml``, ...) whose
                model is not loaded now (a search that will not embed with them).

        Raises:
            MemoryEngineError: the embedder cannot be built, its model cannot be loaded, or
                (``open_store``) the store is unavailable or holds another model's vectors.
        """
        if self._embedder is None:
            with self._models_lock:
                if self._embedder is None:
                    from memory_engine.embedding import build_embedder

                    self._embedder = build_embedder(self.settings)
        models = [("dense", self._embedder), *self.leg_embedders.items()]
        for leg, model in models:
            if leg in skip_legs:  # loads on first use, if ever
                continue
            load = getattr(model, "warm_up", None)
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


class LegRegistry:
    """Which extra dense legs of a store are usable with the configured embedders.

    Records each configured leg in the store once (``VectorLegs.ensure_leg``), then answers
    from the store's leg records, re-read at most every :attr:`REFRESH_S` seconds so a leg
    that ``memory-engine reembed`` marks ``ready`` in another process is picked up.
    """

    #: Seconds between two reads of the store's leg records.
    REFRESH_S = 30.0

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._records: dict[str, Any] = {}
        self._read_at = -1e18
        self._warned: set[str] = set()

    def record(self, store: Any, embedders: Mapping[str, Embedder]) -> None:
        """Record every leg of ``embedders`` the store does not hold yet (first use).

        A store that cannot take a leg as it is (a Qdrant collection made before the leg) is
        logged once; searches and writes then use the primary leg only.
        """
        from memory_engine.errors import LegUnavailableError

        legs = getattr(store, "legs", None)  # the store's VectorLegs part
        if not embedders or legs is None:
            return
        for leg, emb in embedders.items():
            try:
                legs.ensure_leg(leg, emb.model_name, emb.dim)
            except LegUnavailableError as exc:
                self._warn(leg, exc.message)
        self._read_at = -1e18

    def _warn(self, leg: str, message: str) -> None:
        if leg not in self._warned:
            self._warned.add(leg)
            logging.getLogger(__name__).warning("dense leg %s unused: %s", leg, message)

    def usable(
        self, store: Any, embedders: Mapping[str, Embedder], *, searching: bool
    ) -> dict[str, Embedder]:
        """Legs of ``embedders`` the store holds with the same model and dimension (and
        ``ready`` when ``searching``)."""
        legs = getattr(store, "legs", None)  # the store's VectorLegs part
        if legs is None:
            return {}
        now = time.monotonic()
        with self._lock:
            if now - self._read_at > self.REFRESH_S:
                self._records = legs.leg_records()
                self._read_at = now
            records = dict(self._records)
        out: dict[str, Embedder] = {}
        for leg, emb in embedders.items():
            rec = records.get(leg)
            if rec is None:
                continue
            if (rec.model, rec.dim) != (emb.model_name, emb.dim):
                self._warn(
                    leg,
                    f"the store holds {rec.model} ({rec.dim}-d) vectors, configured "
                    f"{emb.model_name} ({emb.dim}-d); run `memory-engine reembed --leg {leg}`",
                )
                continue
            if searching and rec.state != "ready":
                continue
            out[leg] = emb
        return out
