"""Contract: every setting is documented in the README's settings table (STYLE.md 8)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from memory_engine.config import Settings
from memory_engine.errors import ConfigError

README = Path(__file__).resolve().parents[2] / "README.md"


def test_every_setting_is_in_readme_table() -> None:
    documented = set(
        re.findall(r"^\| `(MEMORY_[A-Z0-9_]+)` \|", README.read_text(encoding="utf-8"), re.M)
    )
    expected = {f"MEMORY_{name.upper()}" for name in Settings.model_fields}
    assert expected - documented == set(), "settings missing from README"
    assert documented - expected == set(), "README documents settings that do not exist"


def test_settings_are_frozen_and_read_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_SEARCH_K", "7")
    s = Settings()
    assert s.search_k == 7
    with pytest.raises(ValidationError):
        s.search_k = 3  # type: ignore[misc]


def test_settings_reject_contradictions() -> None:
    with pytest.raises(ConfigError):
        Settings(chunk_min_chars=600, chunk_max_chars=500)
    with pytest.raises(ConfigError):
        Settings(embedder="openai_compat")
