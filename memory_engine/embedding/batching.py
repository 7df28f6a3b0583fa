"""Micro-batching of concurrent ``embed`` calls, for servers that answer many clients at once.

A model embeds a batch of texts for much less than the sum of one call per text (all-MiniLM-L6
in numpy: ~18 ms for one short query, ~230 ms for 32 of them, ~7 ms each), and the offline
models run one forward pass at a time anyway. :class:`MicroBatchingEmbedder` wraps an embedder
so that calls arriving from several threads while a forward pass is running are merged into
the next one: the first caller runs the inner ``embed`` on its own texts; callers arriving
meanwhile queue up, and when it returns, one of them (the leader) embeds everything queued, up
to ``max_texts`` texts, in one inner call and hands every caller its own vectors. A lone caller
never waits for a batch to fill: there is no timer, only the time the running pass takes.

Search queries go first: an ``embed`` call made inside :func:`query_embedding` (the search
legs do this) is queued as a query, and the next inner call takes the queued queries only
(FIFO among them) before any queued write texts. A query arriving while a write batch runs
then waits for that pass and one short pass of queries, never for the writes queued behind
it. Writes wait while queries keep arriving, which a search load can only make last while it
outpaces the model.

:func:`limit_blas_threads` keeps numpy's BLAS to one thread in such a process: concurrent
requests then use the cores, and a contended machine does not spin BLAS threads (measured on
the 2-core machine under load: one short query 17.7 ms on one thread, 36 ms on two).
"""

from __future__ import annotations

import contextvars
import logging
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from memory_engine.embedding.base import Embedder, checked_texts
from memory_engine.errors import EmbeddingError, MemoryEngineError

__all__ = ["MicroBatchingEmbedder", "limit_blas_threads", "query_embedding"]

log = logging.getLogger(__name__)

#: Most texts merged into one inner call (a single larger call runs alone).
MAX_BATCH_TEXTS = 64


_QUERY: contextvars.ContextVar[bool] = contextvars.ContextVar(
    "memory_engine_query_embedding", default=False
)


@contextmanager
def query_embedding() -> Iterator[None]:
    """Within this block, ``embed`` calls of this thread (context) are search queries: a
    :class:`MicroBatchingEmbedder` embeds them before queued write texts. Other embedders
    ignore it."""
    token = _QUERY.set(True)
    try:
        yield
    finally:
        _QUERY.reset(token)


@dataclass
class _Pending:
    """One caller's texts and, once embedded, its vectors or its error."""

    texts: list[str]
    query: bool = False
    vectors: list[list[float]] | None = None
    error: BaseException | None = None
    done: bool = field(default=False)


class MicroBatchingEmbedder:
    """An ``Embedder`` that merges concurrent ``embed`` calls into batched inner calls.

    Thread-safe; the inner embedder is only ever called from one thread at a time.

    Attributes:
        inner: the wrapped embedder.
        model_name, dim, max_input_chars: the inner embedder's.
        max_texts: most texts of one merged call.
    """

    def __init__(self, inner: Embedder, *, max_texts: int = MAX_BATCH_TEXTS) -> None:
        """Wrap ``inner``.

        Args:
            inner: the embedder that computes the vectors.
            max_texts: most texts merged into one inner call, >= 1.

        Raises:
            ValueError: ``max_texts < 1``.
        """
        if max_texts < 1:
            raise ValueError(f"max_texts must be >= 1, got {max_texts}")
        self.inner = inner
        self.model_name = inner.model_name
        self.dim = inner.dim
        self.max_input_chars = inner.max_input_chars
        self.max_texts = max_texts
        self._cond = threading.Condition()
        self._queue: list[_Pending] = []
        self._busy = False
        self.calls = 0  # inner calls made (for tests and benchmarks)
        self.merged = 0  # callers served by those calls
        self.query_calls = 0  # inner calls that embedded queued queries first

    def warm_up(self) -> None:
        """The inner embedder's ``warm_up`` (model load), when it has one."""
        load = getattr(self.inner, "warm_up", None)
        if callable(load):
            load()

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts``, possibly in one inner call with other threads' texts.

        Returns:
            One unit vector per text, in input order (see ``Embedder.embed``).

        Raises:
            EmbeddingError: an item is not a string, or the inner embedder failed on these
                texts (a merged call that fails is retried caller by caller, so one caller's
                bad input never fails another's).
        """
        mine = _Pending(checked_texts(texts, self.model_name), query=_QUERY.get())
        if not mine.texts:
            return []
        with self._cond:
            self._queue.append(mine)
            while not mine.done and self._busy:
                self._cond.wait()
            if mine.done:  # a leader embedded it while this thread waited
                leader = False
            else:
                self._busy = leader = True
        if leader:
            try:
                while not mine.done:
                    self._run_one_batch()
            finally:
                with self._cond:
                    self._busy = False
                    self._cond.notify_all()
        if mine.error is not None:
            raise mine.error
        assert mine.vectors is not None
        return mine.vectors

    def _take(self) -> list[_Pending]:
        """Pop the queued callers of the next inner call: the queued queries when there are
        any, else the queued writes (FIFO, at most ``max_texts`` texts, always at least one
        caller)."""
        with self._cond:
            lane = any(p.query for p in self._queue)
            waiting = [p for p in self._queue if p.query == lane]
            batch = [waiting[0]]
            size = len(waiting[0].texts)
            for pending in waiting[1:]:
                if size + len(pending.texts) > self.max_texts:
                    break
                size += len(pending.texts)
                batch.append(pending)
            taken = {id(p) for p in batch}
            self._queue = [p for p in self._queue if id(p) not in taken]
            self.query_calls += lane
            return batch

    def _run_one_batch(self) -> None:
        """Embed one batch of queued callers and wake them (called by the leader only)."""
        batch = self._take()
        try:
            self._embed_into(batch)
        finally:
            with self._cond:
                for pending in batch:
                    pending.done = True
                self._cond.notify_all()

    def _embed_into(self, batch: list[_Pending]) -> None:
        texts = [t for p in batch for t in p.texts]
        self.calls += 1
        self.merged += len(batch)
        try:
            vectors = self.inner.embed(texts)
            if len(vectors) != len(texts):
                raise EmbeddingError(
                    f"embedder {self.model_name!r} returned {len(vectors)} vectors for "
                    f"{len(texts)} texts",
                    model=self.model_name,
                )
        except BaseException as exc:
            if len(batch) == 1:
                batch[0].error = exc
                return
            if not isinstance(exc, MemoryEngineError):
                log.warning("merged embedding call failed (%s); retrying caller by caller", exc)
            for pending in batch:  # isolate the failing caller
                self._embed_into([pending])
            return
        start = 0
        for pending in batch:
            pending.vectors = vectors[start : start + len(pending.texts)]
            start += len(pending.texts)

    def __repr__(self) -> str:
        return f"MicroBatchingEmbedder({self.inner!r}, max_texts={self.max_texts})"


def limit_blas_threads(threads: int = 1) -> bool:
    """Limit numpy's BLAS (OpenBLAS, MKL, BLIS) to ``threads`` threads in this process.

    For long-lived processes that serve concurrent requests (the MCP http server): requests
    run in parallel on the cores instead of one forward pass taking both.

    Returns:
        True when a limit was applied; False when ``threadpoolctl`` is not installed (the
        BLAS default stays; nothing else changes).
    """
    try:
        from threadpoolctl import threadpool_limits
    except ImportError:  # pragma: no cover - an optional speed-up
        return False
    threadpool_limits(limits=threads, user_api="blas")
    return True
