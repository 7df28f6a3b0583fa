"""Re-embed a store in place: switch the primary embedder, or fill / switch an extra dense leg.

What ``memory-engine reembed`` runs, on any store with :class:`~.base.VectorLegs`:

* **Extra leg** (``dense_ml``): recorded with another model or dimension -> recorded anew
  (its vectors dropped; Qdrant rebuilds its collection); then every memory lacking the leg's
  vector gets one, tenant by tenant, in batches. A leg still ``filling`` is not searched.
* **Primary leg** (``dense``): the configured embedder differs from the store's record -> the
  new vectors are written to the staging leg (:data:`~.base.STAGING_LEG`) while searches keep
  using the old ones; after the verification ``commit_primary`` switches in one step.

Resumable: the state lives in the store (a vector is there or not, the leg record, Qdrant's
rebuild marker), so a run killed at any point is finished by running the command again; only
the batch in flight is embedded twice. Verification, per tenant: every embedded memory has
the vector, and a sample of freshly embedded memories finds itself first on the leg (cosine
>= :data:`VERIFY_MIN_COSINE`). Writes during a run: new memories get the leg's vector from the
write path (a leg's ``filling`` state) or are picked up by the final pass before the switch;
a tenant whose first memory is written during a store-wide run is found by listing the
tenants again (``list_tenants``) before the switch and before a leg is marked ready, and is
filled and verified like the others.
Processes still running with the old embedder must be restarted after a primary switch.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from memory_engine.embedding.base import Embedder
from memory_engine.errors import InvalidInputError, LegUnavailableError
from memory_engine.models import MemoryStatus, Scope
from memory_engine.stores.base import PRIMARY_LEG, STAGING_LEG, LegRecord, VectorLegs

__all__ = ["LegRun", "reembed_store"]

#: Lowest cosine of a sampled memory against its own re-computed vector on the leg.
VERIFY_MIN_COSINE = 0.99
#: Freshly embedded memories per tenant searched back in the verification.
VERIFY_SAMPLE = 5
#: Final fill passes before a primary switch gives up (writes racing the switch).
SWITCH_ATTEMPTS = 3

_ALL = (MemoryStatus.ACTIVE, MemoryStatus.ARCHIVED, MemoryStatus.SUPERSEDED, MemoryStatus.DELETED)

#: ``progress(leg, done, total)`` after each batch.
Progress = Callable[[str, int, int], None]


@dataclass
class LegRun:
    """What one leg's run did.

    Attributes:
        leg: ``dense`` (the primary switch) or an extra leg's name.
        model, dim: the embedder the leg now uses.
        action: ``switched`` (primary), ``filled`` (extra leg completed), ``replaced`` (an
            extra leg recorded anew and filled) or ``unchanged`` (nothing was missing).
        embedded: memories embedded by this run.
        verified: per tenant, ``{"filled", "total", "sampled", "found", "ok"}``, plus
            ``"late"`` (vectors filled after the leg was marked ready: memories written
            without it between the verification and the mark).
        ok: every tenant verified.
    """

    leg: str
    model: str
    dim: int
    action: str = "unchanged"
    embedded: int = 0
    verified: dict[str, dict[str, Any]] = field(default_factory=dict)
    ok: bool = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready form (the ``--json`` report)."""
        return {
            "leg": self.leg,
            "model": self.model,
            "dim": self.dim,
            "action": self.action,
            "embedded": self.embedded,
            "ok": self.ok,
            "verified": self.verified,
        }


def _record_leg(store: VectorLegs, leg: str, embedder: Embedder) -> tuple[LegRecord, bool]:
    """The leg's record for ``embedder`` (recorded or recorded anew); True when replaced."""
    record = store.leg_records().get(leg)
    if record is not None and (record.model, record.dim) == (embedder.model_name, embedder.dim):
        return record, False
    if record is None:
        try:
            return store.ensure_leg(leg, embedder.model_name, embedder.dim), False
        except LegUnavailableError:
            pass  # a Qdrant collection without the leg: rebuilt by replace_leg
    return store.replace_leg(leg, embedder.model_name, embedder.dim), True


def _missing_total(store: VectorLegs, leg: str, scopes: Sequence[Scope]) -> int:
    total = 0
    for scope in scopes:
        filled, embedded = store.leg_counts(leg, scope=scope)
        total += max(0, embedded - filled)
    return total


def _fill(
    store: VectorLegs,
    leg: str,
    embedder: Embedder,
    scope: Scope,
    *,
    batch: int,
    tick: Callable[[int], None],
    sample: list[tuple[uuid.UUID, list[float]]],
) -> int:
    """Embed every memory of the tenant lacking the leg's vector; returns how many."""
    after: uuid.UUID | None = None
    done = 0
    while True:
        rows = store.leg_missing(leg, scope=scope, limit=batch, after=after)
        if not rows:
            return done
        vectors = embedder.embed([text for _, text in rows])
        store.set_leg_vectors(
            leg, {mid: v for (mid, _), v in zip(rows, vectors, strict=True)}, scope=scope
        )
        if len(sample) < VERIFY_SAMPLE:
            sample += [(mid, v) for (mid, _), v in zip(rows, vectors, strict=True)][
                : VERIFY_SAMPLE - len(sample)
            ]
        after = rows[-1][0]
        done += len(rows)
        tick(len(rows))


def _verify(
    store: VectorLegs, leg: str, scope: Scope, sample: Sequence[tuple[uuid.UUID, list[float]]]
) -> dict[str, Any]:
    """Counts, and each sampled memory found first (or at cosine >= VERIFY_MIN_COSINE)."""
    filled, total = store.leg_counts(leg, scope=scope)
    found = 0
    for mid, vector in sample:
        hits = store.leg_search(leg, vector, scope=scope, k=3, statuses=_ALL)
        if any(h.memory.id == mid or h.scores["cosine"] >= VERIFY_MIN_COSINE for h in hits):
            found += 1
    ok = filled == total and found == len(sample)
    return {"filled": filled, "total": total, "sampled": len(sample), "found": found, "ok": ok}


def _run_leg(
    store: VectorLegs,
    leg: str,
    embedder: Embedder,
    scopes: Sequence[Scope],
    *,
    batch: int,
    progress: Progress | None,
    label: str | None = None,
) -> LegRun:
    run = LegRun(leg=label or leg, model=embedder.model_name, dim=embedder.dim)
    shown = label or leg
    total = _missing_total(store, leg, scopes)
    done = 0

    def tick(n: int) -> None:
        nonlocal done
        done += n
        if progress:
            progress(shown, done, max(total, done))

    if progress:
        progress(shown, 0, total)
    for scope in scopes:
        sample: list[tuple[uuid.UUID, list[float]]] = []
        run.embedded += _fill(store, leg, embedder, scope, batch=batch, tick=tick, sample=sample)
        run.verified[scope.tenant_id] = _verify(store, leg, scope, sample)
    run.ok = all(v["ok"] for v in run.verified.values())
    return run


def _fill_late(
    store: VectorLegs,
    leg: str,
    embedder: Embedder,
    scopes: Sequence[Scope],
    run: LegRun,
    *,
    batch: int,
) -> None:
    """After the leg was marked ``ready``: fill and re-verify the tenants that gained a memory
    without the leg's vector since their verification (a write whose leg embedder failed in
    between), so a ready leg is never left short by the run that declared it ready."""
    for scope in scopes:
        filled, total = store.leg_counts(leg, scope=scope)
        if filled >= total:
            continue
        late = _fill(store, leg, embedder, scope, batch=batch, tick=lambda n: None, sample=[])
        run.embedded += late
        check = _verify(store, leg, scope, [])
        previous = run.verified.get(scope.tenant_id, {})
        check["sampled"], check["found"] = previous.get("sampled", 0), previous.get("found", 0)
        check["late"] = late
        run.verified[scope.tenant_id] = check
    run.ok = all(v["ok"] for v in run.verified.values())


def _new_tenants(
    store: VectorLegs,
    leg: str,
    embedder: Embedder,
    scopes: list[Scope],
    run: LegRun,
    list_tenants: Callable[[], Sequence[str]] | None,
    *,
    batch: int,
) -> None:
    """Fill and verify the tenants ``list_tenants`` names that ``scopes`` lacks (created
    while the run went on), appending them to ``scopes``."""
    if list_tenants is None:
        return
    known = {s.tenant_id for s in scopes}
    for tenant in list_tenants():
        if tenant in known:
            continue
        scope = Scope.of(tenant)
        scopes.append(scope)
        sample: list[tuple[uuid.UUID, list[float]]] = []
        run.embedded += _fill(
            store, leg, embedder, scope, batch=batch, tick=lambda n: None, sample=sample
        )
        run.verified[tenant] = _verify(store, leg, scope, sample)
    run.ok = all(v["ok"] for v in run.verified.values())


def reembed_store(
    store: Any,
    *,
    primary: Embedder,
    legs: Mapping[str, Embedder],
    tenants: Sequence[str],
    all_tenants: bool,
    only_leg: str | None = None,
    batch: int = 128,
    progress: Progress | None = None,
    list_tenants: Callable[[], Sequence[str]] | None = None,
) -> list[LegRun]:
    """Bring the store's dense legs to the configured embedders (see the module docstring).

    Args:
        store: a ``MemoryStore`` with a ``legs`` part (``VectorLegs``).
        primary: the configured primary embedder.
        legs: the configured extra legs (leg name -> embedder).
        tenants: the tenants to run over (every tenant of the store for a store-wide run).
        all_tenants: ``tenants`` is every tenant: a primary switch and a leg's ``ready``
            state need it (``--tenant`` only fills and verifies that tenant).
        only_leg: ``dense``, an extra leg's name, or None for every leg.
        batch: memories per embed call and write (>= 1).
        progress: called after each batch with ``(leg, done, total)``.
        list_tenants: with ``all_tenants``, lists every tenant again (e.g.
            ``store.admin_tenant_ids``) before a primary switch and before a leg is marked
            ready, so a tenant created during the run is filled too.

    Returns:
        One :class:`LegRun` per leg run (the primary first).

    Raises:
        InvalidInputError: a primary switch asked for one tenant, an unknown leg, or a switch
            that could not complete (writes kept racing it; run again).
    """
    if batch < 1:
        raise InvalidInputError("batch must be >= 1", batch=batch)
    if only_leg is not None and only_leg != PRIMARY_LEG and only_leg not in legs:
        raise InvalidInputError(
            f"leg {only_leg!r} is not configured (configured: {[PRIMARY_LEG, *legs]})",
            leg=only_leg,
        )
    part: VectorLegs | None = getattr(store, "legs", None)
    if part is None:
        raise InvalidInputError("this store has no dense legs to re-embed")
    scopes = [Scope.of(t) for t in tenants]
    runs: list[LegRun] = []
    recorded = store.embedding_info()
    wanted = (primary.model_name, primary.dim)
    if only_leg in (None, PRIMARY_LEG):
        if recorded is None:
            store.ensure_embedding(*wanted)
        elif recorded != wanted:
            if not all_tenants:
                raise InvalidInputError(
                    "the primary embedder is recorded for the whole store: switch it without "
                    "--tenant",
                    stored_model=recorded[0],
                )
            _record_leg(part, STAGING_LEG, primary)
            run = _run_leg(
                part,
                STAGING_LEG,
                primary,
                scopes,
                batch=batch,
                progress=progress,
                label=PRIMARY_LEG,
            )
            _new_tenants(part, STAGING_LEG, primary, scopes, run, list_tenants, batch=batch)
            if run.ok:
                for attempt in range(SWITCH_ATTEMPTS):
                    try:
                        part.commit_primary(*wanted)
                        run.action = "switched"
                        break
                    except InvalidInputError:  # memories written since the fill
                        if attempt == SWITCH_ATTEMPTS - 1:
                            raise
                        _new_tenants(
                            part, STAGING_LEG, primary, scopes, run, list_tenants, batch=batch
                        )
                        for scope in scopes:
                            _fill(
                                part,
                                STAGING_LEG,
                                primary,
                                scope,
                                batch=batch,
                                tick=lambda n: None,
                                sample=[],
                            )
            runs.append(run)
            if not run.ok:
                return runs
    for leg, embedder in legs.items():
        if only_leg not in (None, leg):
            continue
        record, replaced = _record_leg(part, leg, embedder)
        run = _run_leg(part, leg, embedder, scopes, batch=batch, progress=progress)
        run.action = "replaced" if replaced else ("filled" if run.embedded else "unchanged")
        if all_tenants:
            _new_tenants(part, leg, embedder, scopes, run, list_tenants, batch=batch)
        if run.ok and all_tenants and record.state != "ready":
            part.set_leg_state(leg, "ready")
            _fill_late(part, leg, embedder, scopes, run, batch=batch)
        runs.append(run)
    return runs
