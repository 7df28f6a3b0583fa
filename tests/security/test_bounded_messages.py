"""Error messages quote at most a bounded part of what the caller sent: a 5,000-character
tenant id, session id or memory id is named by its start and its length, never echoed whole
into a terminal, a log line, an MCP result or a page."""

from __future__ import annotations

import pytest

from memory_engine.deps import as_uuid
from memory_engine.errors import (
    QUOTE_LIMIT,
    IngestFormatError,
    MemoryNotFoundError,
    TenantScopeError,
    quoted,
)
from memory_engine.models import Scope
from memory_engine.write.ingest import read_openai

HUGE = "租户" * 2500  # 5,000 characters


def _bounded(message: str, prefix: str = "") -> None:
    assert len(message) < len(prefix) + QUOTE_LIMIT + 120, message
    assert "5000 characters" in message


def test_a_huge_tenant_or_user_id_is_named_by_its_length() -> None:
    with pytest.raises(TenantScopeError) as err:
        Scope.of(HUGE)
    _bounded(err.value.message)
    with pytest.raises(TenantScopeError) as err:
        Scope.of("acme", user_id="u" * 5000)
    _bounded(err.value.message)


def test_a_huge_memory_id_is_named_by_its_length() -> None:
    with pytest.raises(MemoryNotFoundError) as err:
        as_uuid("x" * 5000)
    _bounded(err.value.message)
    assert all(len(v) <= QUOTE_LIMIT for v in err.value.to_dict()["details"].values())


def test_a_huge_session_id_in_an_imported_file_is_named_by_its_length(tmp_path) -> None:
    path = tmp_path / "chat.json"
    path.write_text(
        '[{"role": "user", "content": "我对花生过敏", "session_id": "' + "s" * 5000 + '"}]',
        encoding="utf-8",
    )
    with pytest.raises(IngestFormatError) as err:
        read_openai(path)
    _bounded(err.value.message, prefix=str(path))


def test_short_values_are_quoted_whole() -> None:
    assert quoted("bad id!") == "'bad id!'"
    with pytest.raises(TenantScopeError) as err:
        Scope.of("bad tenant")
    assert "'bad tenant'" in err.value.message
