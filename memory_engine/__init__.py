"""memory_engine: agent memory with hybrid retrieval, lifecycle, tenant isolation and audit.

Public API::

    from memory_engine import MemoryEngine, Scope
    engine = MemoryEngine()
    engine.write(Scope.of("acme", user_id="u1"), "I am allergic to peanuts")
    result = engine.search(Scope.of("acme", user_id="u1"), "allergies")
    print(result.block)

Besides the engine, its models and errors, this module exports the result types of engine
methods (``ContextResult``, ``TraceComparison``, ``MaintenancePlan``) and the pure tools over a
search trace that the dashboard's Query Replay uses (``why_not``, ``compare_traces``,
``returned_ids``, ``precision_at_k`` / ``mrr`` / ``ndcg_at_k``, ``delta_rank``, ``score_label``,
the score waterfall, block accounting and stale facts: ``waterfall``, ``block_accounting``,
``stale_facts``, ``explain_search``,
golden sets: ``GoldenStore``, ``run_golden`` ...).
"""

from memory_engine.config import Settings
from memory_engine.context.service import ContextResult
from memory_engine.context.working import message_tokens
from memory_engine.engine import MemoryEngine
from memory_engine.errors import (
    ConfigError,
    ContentTooLargeError,
    EmbeddingError,
    EmbeddingMismatchError,
    EmptyContentError,
    IngestFormatError,
    InvalidInputError,
    MemoryEngineError,
    MemoryNotFoundError,
    SensitiveDataError,
    StoreError,
    StoreUnavailableError,
    TenantScopeError,
    VersionConflictError,
)
from memory_engine.history.service import TraceComparison
from memory_engine.lifecycle.plan import MaintenancePlan
from memory_engine.models import (
    Candidate,
    Entity,
    Event,
    Memory,
    MemoryFilter,
    MemorySource,
    MemoryStatus,
    MemoryType,
    Page,
    Scope,
    SearchResult,
    Trace,
)
from memory_engine.reads.spreadsheet import spreadsheet_csv
from memory_engine.retrieval.accounting import (
    BlockAccounting,
    NearMiss,
    SearchExplanation,
    StaleFact,
    block_accounting,
    explain_search,
    stale_facts,
)
from memory_engine.retrieval.explain import (
    Comparison,
    WhyNot,
    compare_traces,
    mrr,
    ndcg_at_k,
    precision_at_k,
    returned_ids,
    why_not,
)
from memory_engine.retrieval.golden import (
    GoldenCase,
    GoldenRun,
    GoldenStore,
    parse_golden,
    run_golden,
)
from memory_engine.retrieval.pipeline import SearchOptions, delta_rank
from memory_engine.retrieval.scores import score_label
from memory_engine.retrieval.waterfall import (
    CandidateWaterfall,
    Waterfall,
    WaterfallStep,
    waterfall,
)
from memory_engine.write.ingest import Turn
from memory_engine.write.raw import WriteRequest, WriteResult

__version__ = "0.1.0"

__all__ = [
    "BlockAccounting",
    "Candidate",
    "CandidateWaterfall",
    "Comparison",
    "ConfigError",
    "ContentTooLargeError",
    "ContextResult",
    "EmbeddingError",
    "EmbeddingMismatchError",
    "EmptyContentError",
    "Entity",
    "Event",
    "GoldenCase",
    "GoldenRun",
    "GoldenStore",
    "IngestFormatError",
    "InvalidInputError",
    "MaintenancePlan",
    "Memory",
    "MemoryEngine",
    "MemoryEngineError",
    "MemoryFilter",
    "MemoryNotFoundError",
    "MemorySource",
    "MemoryStatus",
    "MemoryType",
    "NearMiss",
    "Page",
    "Scope",
    "SearchExplanation",
    "SearchOptions",
    "SearchResult",
    "SensitiveDataError",
    "Settings",
    "StaleFact",
    "StoreError",
    "StoreUnavailableError",
    "TenantScopeError",
    "Trace",
    "TraceComparison",
    "Turn",
    "VersionConflictError",
    "Waterfall",
    "WaterfallStep",
    "WhyNot",
    "WriteRequest",
    "WriteResult",
    "block_accounting",
    "compare_traces",
    "delta_rank",
    "explain_search",
    "message_tokens",
    "mrr",
    "ndcg_at_k",
    "parse_golden",
    "precision_at_k",
    "returned_ids",
    "run_golden",
    "score_label",
    "spreadsheet_csv",
    "stale_facts",
    "waterfall",
    "why_not",
]
