"""memory_engine: agent memory with hybrid retrieval, lifecycle, tenant isolation and audit."""

__version__ = "0.1.0"
