"""Security screens applied on write: PII and secrets (``pii``), prompt injection (``injection``)."""

from memory_engine.security.injection import ScreenAction, Screening, screen
from memory_engine.security.pii import Finding, PiiKind, PiiPolicy, detect, redact

__all__ = [
    "Finding",
    "PiiKind",
    "PiiPolicy",
    "ScreenAction",
    "Screening",
    "detect",
    "redact",
    "screen",
]
