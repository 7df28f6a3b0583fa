"""Pytest fixtures of tests/support; import them in tests/conftest.py::

from tests.support.fixtures import openai_stub, stub  # noqa: F401
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.openai_stub import OpenAIStub, iter_stub

__all__ = ["STUB_MODEL", "openai_stub", "stub"]

#: Embedding model of the ``stub`` fixture: 64 dims, deterministic.
STUB_MODEL = "stub-64"


@pytest.fixture
def openai_stub() -> Iterator[OpenAIStub]:
    """A started :class:`OpenAIStub` (models ``stub-8``: 8 dims, ``stub-12``: 12 dims),
    fresh per test, stopped afterwards. ``openai_stub.base_url`` is its ``.../v1`` URL."""
    yield from iter_stub()


@pytest.fixture
def stub() -> Iterator[OpenAIStub]:
    """A started stub with a 64-dim embedding model (``STUB_MODEL``) and a chat endpoint."""
    with OpenAIStub({STUB_MODEL: 64}) as server:
        yield server
