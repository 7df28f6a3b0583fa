"""The :class:`~memory_engine.stores.base.VectorLegs` methods of a store, delegated to its
backend's leg part (``stores/postgres/legs.py``, ``stores/qdrant/legs.py``): one definition
for both stores."""

from __future__ import annotations

import builtins
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from memory_engine.models import Candidate, MemoryStatus, Scope
from memory_engine.stores.base import LegRecord, LegState


class DelegatedLegs:
    """Adds the ``VectorLegs`` methods to a store whose ``legs`` attribute implements them."""

    legs: Any

    def leg_records(self) -> dict[str, LegRecord]:
        """See :meth:`VectorLegs.leg_records`."""
        return self.legs.leg_records()

    def ensure_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """See :meth:`VectorLegs.ensure_leg`."""
        return self.legs.ensure_leg(leg, model, dim)

    def set_leg_vectors(
        self, leg: str, vectors: Mapping[uuid.UUID, Sequence[float]], *, scope: Scope
    ) -> int:
        """See :meth:`VectorLegs.set_leg_vectors`."""
        return self.legs.set_leg_vectors(leg, vectors, scope=scope)

    def leg_search(
        self,
        leg: str,
        vector: Sequence[float],
        *,
        scope: Scope,
        k: int,
        statuses: Sequence[MemoryStatus] = (MemoryStatus.ACTIVE,),
    ) -> builtins.list[Candidate]:
        """See :meth:`VectorLegs.leg_search`."""
        return self.legs.leg_search(leg, vector, scope=scope, k=k, statuses=statuses)

    def leg_missing(
        self, leg: str, *, scope: Scope, limit: int = 256, after: uuid.UUID | None = None
    ) -> builtins.list[tuple[uuid.UUID, str]]:
        """See :meth:`VectorLegs.leg_missing`."""
        return self.legs.leg_missing(leg, scope=scope, limit=limit, after=after)

    def leg_counts(self, leg: str, *, scope: Scope) -> tuple[int, int]:
        """See :meth:`VectorLegs.leg_counts`."""
        return self.legs.leg_counts(leg, scope=scope)

    def set_leg_state(self, leg: str, state: LegState) -> None:
        """See :meth:`VectorLegs.set_leg_state`."""
        self.legs.set_leg_state(leg, state)

    def commit_primary(self, model: str, dim: int) -> None:
        """See :meth:`memory_engine.stores.base.VectorLegs.commit_primary`."""
        self.legs.commit_primary(model, dim)

    def replace_leg(self, leg: str, model: str, dim: int) -> LegRecord:
        """See :meth:`VectorLegs.replace_leg`."""
        return self.legs.replace_leg(leg, model, dim)
