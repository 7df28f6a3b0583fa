"""memory_engine: agent memory with hybrid retrieval, lifecycle, tenant isolation and audit.

Public API::

    from memory_engine import MemoryEngine, Scope
    engine = MemoryEngine()
    engine.write(Scope.of("acme", user_id="u1"), "I am allergic to peanuts")
    result = engine.search(Scope.of("acme", user_id="u1"), "allergies")
    print(result.block)
"""

from memory_engine.config import Settings
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
    StoreError,
    StoreUnavailableError,
    TenantScopeError,
    VersionConflictError,
)
from memory_engine.models import (
    Candidate,
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
from memory_engine.retrieval.pipeline import SearchOptions
from memory_engine.write.ingest import Turn
from memory_engine.write.raw import WriteRequest, WriteResult

__version__ = "0.1.0"

__all__ = [
    "Candidate",
    "ConfigError",
    "ContentTooLargeError",
    "EmbeddingError",
    "EmbeddingMismatchError",
    "EmptyContentError",
    "Event",
    "IngestFormatError",
    "InvalidInputError",
    "Memory",
    "MemoryEngine",
    "MemoryEngineError",
    "MemoryFilter",
    "MemoryNotFoundError",
    "MemorySource",
    "MemoryStatus",
    "MemoryType",
    "Page",
    "Scope",
    "SearchOptions",
    "SearchResult",
    "Settings",
    "StoreError",
    "StoreUnavailableError",
    "TenantScopeError",
    "Trace",
    "Turn",
    "VersionConflictError",
    "WriteRequest",
    "WriteResult",
]
