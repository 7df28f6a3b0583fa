"""Token usage of LLM calls, metered per write, and its cost.

A provider reports the ``usage`` of every HTTP response it receives (successful, retried,
truncated or rejected after parsing) with :func:`record`; the write service opens a
:class:`UsageMeter` around one write with :func:`metering` and stores the totals with the
write's journal row. The meter lives in a ``ContextVar``, so concurrent writes in other
threads never mix their counts; outside ``metering`` a report is dropped.

Cost: ``tokens / 1_000_000 * price`` for input (prompt) and output (completion) tokens, in
the currency of the configured prices (``MEMORY_LLM_PRICE_INPUT_PER_MTOK`` /
``MEMORY_LLM_PRICE_OUTPUT_PER_MTOK``); None when no price is configured.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any

__all__ = ["UsageMeter", "cost_of", "metering", "record"]


@dataclass
class UsageMeter:
    """Totals of the LLM requests made while it was open.

    Attributes:
        prompt_tokens: input tokens over all requests (>= 0).
        completion_tokens: output tokens over all requests (>= 0).
        requests: HTTP responses that reported usage (>= 0).
    """

    prompt_tokens: int = 0
    completion_tokens: int = 0
    requests: int = 0
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def add(self, prompt_tokens: int, completion_tokens: int) -> None:
        """Count one response's usage (negative values count as 0)."""
        with self._lock:
            self.prompt_tokens += max(0, int(prompt_tokens))
            self.completion_tokens += max(0, int(completion_tokens))
            self.requests += 1

    def as_dict(
        self, price_input_per_mtok: float | None, price_output_per_mtok: float | None
    ) -> dict[str, Any]:
        """``{"prompt_tokens", "completion_tokens", "requests", "cost"}`` (cost may be None)."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "requests": self.requests,
            "cost": cost_of(
                self.prompt_tokens,
                self.completion_tokens,
                price_input_per_mtok,
                price_output_per_mtok,
            ),
        }


_CURRENT: ContextVar[UsageMeter | None] = ContextVar("memory_engine_llm_usage", default=None)


def cost_of(
    prompt_tokens: int,
    completion_tokens: int,
    price_input_per_mtok: float | None,
    price_output_per_mtok: float | None,
) -> float | None:
    """Cost of the tokens at the prices per million tokens; None when neither price is set
    (an unset price of one side counts as 0 when the other is set)."""
    if price_input_per_mtok is None and price_output_per_mtok is None:
        return None
    total = prompt_tokens * (price_input_per_mtok or 0.0) + completion_tokens * (
        price_output_per_mtok or 0.0
    )
    return round(total / 1_000_000, 8)


def record(prompt_tokens: int, completion_tokens: int) -> None:
    """Add one response's usage to the meter of the current write, if one is open."""
    meter = _CURRENT.get()
    if meter is not None:
        meter.add(prompt_tokens, completion_tokens)


@contextmanager
def metering() -> Iterator[UsageMeter]:
    """Open a fresh meter for the calls made in this context (nested meters: the inner one
    counts, the outer one does not see those calls)."""
    meter = UsageMeter()
    token = _CURRENT.set(meter)
    try:
        yield meter
    finally:
        _CURRENT.reset(token)
