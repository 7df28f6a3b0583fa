"""The ``Embedder`` protocol and the checks every embedder applies to its output.

Score contract: vectors are L2-normalised, so the cosine similarity of two texts is the dot
product of their vectors, in [-1, 1], higher = more similar.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

import numpy as np

from memory_engine.errors import EmbeddingError

__all__ = ["Embedder", "normalize_vectors"]


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into unit vectors.

    Attributes:
        model_name: name recorded by the store next to each vector (e.g. "all-MiniLM-L6-v2").
            Two embedders with the same ``model_name`` and ``dim`` must produce comparable
            vectors.
        dim: length of every returned vector (>= 1).
        max_input_chars: longest text, in characters, that the model sees whole under typical
            input; longer texts are truncated by the model or its endpoint. Chunkers keep
            chunks at or below this.
    """

    model_name: str
    dim: int
    max_input_chars: int

    def embed(self, texts: Sequence[str]) -> list[list[float]]:
        """Embed ``texts``.

        Args:
            texts: texts to embed; may be empty.

        Returns:
            One vector per text, in input order, each of length ``dim`` and L2 norm 1
            (cosine = dot product). ``[]`` for an empty input.

        Raises:
            EmbeddingError: the model or endpoint failed, or returned a wrong number of
                vectors or a vector of the wrong length.
        """
        ...


def checked_texts(texts: Sequence[str], model_name: str) -> list[str]:
    """``texts`` as a list, every item checked to be a ``str`` before anything is embedded.

    Raises:
        EmbeddingError: item ``index`` is not a string ("text 3 is int, not str").
    """
    items = list(texts)
    for i, t in enumerate(items):
        if not isinstance(t, str):
            raise EmbeddingError(
                f"text {i} is {type(t).__name__}, not str", model=model_name, index=i
            )
    return items


def normalize_vectors(
    vectors: Sequence[Sequence[float]] | np.ndarray, *, dim: int, model_name: str, expected: int
) -> list[list[float]]:
    """Check shape and L2-normalise vectors returned by a model.

    Args:
        vectors: raw vectors from the model, ``expected`` x ``dim``.
        dim: required length of each vector.
        model_name: model name, for the error message.
        expected: required number of vectors (the number of input texts).

    Returns:
        The vectors as lists of Python floats, each scaled to unit L2 norm.

    Raises:
        EmbeddingError: wrong count, wrong length, a non-finite value or a zero vector.
    """
    if len(vectors) != expected:
        raise EmbeddingError(
            f"embedder {model_name!r} returned {len(vectors)} vectors for {expected} texts",
            model=model_name,
        )
    if expected == 0:
        return []
    for i, vec in enumerate(vectors):
        if len(vec) != dim:
            raise EmbeddingError(
                f"embedder {model_name!r} returned {len(vec)} dims, configured {dim}",
                model=model_name,
                index=i,
            )
    try:
        arr = np.asarray(vectors, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise EmbeddingError(
            f"embedder {model_name!r} returned non-numeric values", model=model_name
        ) from exc
    norms = np.linalg.norm(arr, axis=1)
    bad = np.flatnonzero(~np.isfinite(norms) | (norms == 0.0))
    if bad.size:
        raise EmbeddingError(
            f"embedder {model_name!r} returned a zero or non-finite vector",
            model=model_name,
            index=int(bad[0]),
        )
    result: list[list[float]] = (arr / norms[:, None]).tolist()
    return result
