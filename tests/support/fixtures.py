"""Pytest fixtures of tests/support; import them in tests/conftest.py::

from tests.support.fixtures import openai_stub  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_stub import OpenAIStub, iter_stub

__all__ = ["openai_stub"]


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    """A started :class:`OpenAIStub` (models ``stub-8``: 8 dims, ``stub-12``: 12 dims),
    fresh per test, stopped afterwards. ``openai_stub.base_url`` is its ``.../v1`` URL."""
    yield from iter_stub()
