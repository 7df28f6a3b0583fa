"""The guarded search: ``run_search`` behind the cross-tenant guard of ``stores.guard``.

Every candidate of every leg and every memory of the final result must belong to the scope's
tenant. A foreign row is dropped (from the legs before fusion, or from the final result, whose
block is then re-rendered and whose trace loses its candidate entries); the trace gets
``tenant_alarms`` (one entry per stage, see :mod:`memory_engine.stores.guard`), an ERROR log
line names the foreign tenants and ids, and a ``tenant_alarm`` audit event is appended.
"""

from __future__ import annotations

from collections.abc import Mapping

from memory_engine.embedding.base import Embedder
from memory_engine.models import Scope, SearchResult
from memory_engine.retrieval.block import render_block
from memory_engine.retrieval.expansion import Expander
from memory_engine.retrieval.pipeline import SearchOptions, run_search
from memory_engine.retrieval.rerank import Reranker
from memory_engine.retrieval.weighting import WeightFn
from memory_engine.stores.base import AuditedSearchIndex
from memory_engine.stores.guard import GuardedStore, report_alarms


def guarded_search(
    query: str,
    *,
    scope: Scope,
    options: SearchOptions,
    store: AuditedSearchIndex,
    embedder: Embedder | None,
    expander: Expander | None = None,
    reranker: Reranker | None = None,
    weight_fn: WeightFn | None = None,
    extra_legs: Mapping[str, Embedder] | None = None,
) -> SearchResult:
    """``run_search`` (same arguments) with the cross-tenant guard on every leg and the result.

    Args:
        store: the candidate searches, and the audit log an alarm is appended to.

    Returns:
        The SearchResult of ``run_search``; when a foreign row was dropped, its trace carries
        ``tenant_alarms`` and a ``tenant_alarm`` audit event was appended (never raises for
        an audit failure: it is logged).
    """
    guard = GuardedStore(store, scope)
    result = run_search(
        query,
        scope=scope,
        options=options,
        store=guard,
        embedder=embedder,
        expander=expander,
        reranker=reranker,
        weight_fn=weight_fn,
        extra_legs=extra_legs,
    )
    memories = guard.keep("final", result.memories)
    if not guard.alarms:
        return result
    guard.sort_alarms()
    block = (
        result.block
        if len(memories) == len(result.memories)
        else render_block([c.memory for c in memories])
    )
    gone = {i for ids in guard.foreign.values() for i in ids}
    kept = [c for c in result.trace.candidates if str(c.memory_id) not in gone]
    trace = result.trace.model_copy(
        update={"tenant_alarms": guard.alarms, "block": block, "candidates": kept}
    )
    # the alarm is in the trace (and the log) even if the audit fails
    report_alarms(guard, reason="cross-tenant rows dropped from a search", trace_id=str(trace.id))
    return SearchResult(memories=memories, block=block, trace=trace)
