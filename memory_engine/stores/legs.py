"""Bookkeeping of the extra dense legs shared by both stores' ``VectorLegs`` parts.

What every backend keeps the same way: which leg names exist (:data:`~.base.EXTRA_LEGS` and
the reembed staging leg), the leg records read from the store and cached until they change
(:class:`LegBook`), the state a newly recorded leg starts in, and the checks of a primary
switch (the staged leg recorded for the new model; no memory left without a staged vector).
How a backend stores a record or a vector (a PostgreSQL row and column, a Qdrant meta point
and named vector) stays in ``stores/postgres/legs.py`` and ``stores/qdrant/legs.py``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import numpy as np

from memory_engine.errors import InvalidInputError
from memory_engine.stores.base import EXTRA_LEGS, STAGING_LEG, LegRecord, LegState
from memory_engine.stores.common import check_embedding_spec, vector_param

__all__ = ["LegBook", "check_leg", "first_state", "unstaged_error"]

#: Every leg name a store's ``VectorLegs`` part takes: the extra legs and the staging leg.
KNOWN_LEGS: tuple[str, ...] = (*EXTRA_LEGS, STAGING_LEG)


def check_leg(leg: str) -> None:
    """Raise InvalidInputError unless ``leg`` is an extra leg or the staging leg."""
    if leg not in KNOWN_LEGS:
        raise InvalidInputError(f"unknown dense leg {leg!r}", leg=leg, known=list(EXTRA_LEGS))


def first_state(embedding_recorded: bool) -> LegState:
    """State of a leg recorded now: ``ready`` on a store that has not recorded its primary
    embedding (no memory exists, every write fills the leg), else ``filling`` (older memories
    lack the leg's vector until ``memory-engine reembed`` fills them)."""
    return "filling" if embedding_recorded else "ready"


def unstaged_error(missing: int) -> InvalidInputError:
    """The error of a primary switch while ``missing`` memories have no staged vector."""
    return InvalidInputError(
        f"{missing} memories have no staged vector yet; fill them and switch again",
        missing=missing,
    )


class LegBook:
    """The leg records of one store, read through ``read`` and cached until they change.

    Args:
        read: reads every leg record from the store (leg name -> record).
    """

    def __init__(self, read: Callable[[], dict[str, LegRecord]]) -> None:
        self._read = read
        self._records: dict[str, LegRecord] | None = None

    def records(self) -> dict[str, LegRecord]:
        """Every recorded leg, read from the store now (and cached)."""
        self._records = self._read()
        return dict(self._records)

    def forget(self) -> None:
        """Drop the cache (a record was written): the next :meth:`get` reads the store."""
        self._records = None

    def get(self, leg: str) -> LegRecord:
        """The leg's record (cached; read again when the cache lacks it).

        Raises:
            InvalidInputError: unknown leg, or the leg is not recorded in this store.
        """
        check_leg(leg)
        cached = self._records
        records = cached if cached and leg in cached else self.records()
        if leg not in records:
            raise InvalidInputError(f"dense leg {leg!r} is not recorded in this store", leg=leg)
        return records[leg]

    def insert_vectors(self, vectors: Mapping[str, Sequence[float]]) -> dict[str, np.ndarray]:
        """Check the leg vectors of one new memory (``NewMemory.legs``) against the records.

        Returns:
            Leg name -> the vector as float32, of the leg's recorded dimension.

        Raises:
            InvalidInputError: not an extra leg (the staging leg is filled by reembed only),
                the leg is not recorded, or a bad vector or dimension.
        """
        out: dict[str, np.ndarray] = {}
        for leg, vector in vectors.items():
            if leg not in EXTRA_LEGS:
                raise InvalidInputError(
                    f"a new memory cannot carry a {leg!r} vector", leg=leg, known=list(EXTRA_LEGS)
                )
            out[leg] = vector_param(vector, self.get(leg).dim, f"{leg} vector")
        return out

    def known(self, leg: str, model: str, dim: int) -> LegRecord | None:
        """Check an ``ensure_leg`` call and return the leg's record when there is one.

        Raises:
            InvalidInputError: unknown leg, empty model or dimension out of range.
        """
        check_leg(leg)
        check_embedding_spec(model, dim)
        return self.records().get(leg)

    def staged(self, model: str, dim: int) -> LegRecord:
        """The staging leg's record, checked to hold ``(model, dim)`` (a primary switch).

        Raises:
            InvalidInputError: no staging leg recorded for that model and dimension.
        """
        record = self.records().get(STAGING_LEG)
        if record is None or (record.model, record.dim) != (model, dim):
            raise InvalidInputError(
                f"no staged {model} ({dim}-d) vectors to switch to: run `memory-engine reembed`",
                model=model,
                dim=dim,
            )
        return record
