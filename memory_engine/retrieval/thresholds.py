"""Per-embedder similarity floors (not one magic 0.7 for every model).

Cosine scales differ by model: all-MiniLM-L6-v2 gives unrelated English sentences ~0.0-0.2,
USE-multilingual-v3 gives ~0.0-0.3 and OpenAI-style models ~0.1-0.3 even for unrelated text.
A dense-only candidate (no keyword hit) below its embedder's floor is dropped with reason
``below_min_cosine``. The floors were calibrated on the development splits (LoCoMo dev
conversations and MADial user 1): each is below the 1st percentile of the cosine between a
question and its gold evidence on both, so it removes noise without removing gold.
Unknown models have no floor (-1.0).
"""

from __future__ import annotations

__all__ = ["CALIBRATED_MIN_COSINE", "min_cosine_for"]

CALIBRATED_MIN_COSINE: dict[str, float] = {
    # gold cosine p1: LoCoMo dev 0.18, MADial-zh dev 0.31 (1,349 / 204 question-evidence pairs)
    "all-MiniLM-L6-v2": 0.15,
    # gold cosine p1: LoCoMo dev 0.07, MADial-zh dev 0.20
    "universal-sentence-encoder-multilingual-3": 0.05,
}


def min_cosine_for(model_name: str | None, configured: float, *, calibrated: bool) -> float:
    """Effective floor: the configured one, raised to the model's calibrated floor when
    ``calibrated`` is true and the model is known."""
    if not calibrated or model_name is None:
        return configured
    return max(configured, CALIBRATED_MIN_COSINE.get(model_name, -1.0))
