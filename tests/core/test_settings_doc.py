"""Contract: every setting is documented in the README's settings table (docs/architecture.md#contracts-are-tests), advanced
ones marked; the flat MEMORY_* names, .env and flat keywords reach the nested domains."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from pydantic import ValidationError

from memory_engine.config import Settings, is_advanced
from memory_engine.config.retrieval import TRACE_DEFAULTS, SearchOptions
from memory_engine.errors import ConfigError, InvalidInputError
from memory_engine.retrieval.pipeline import SearchOptions as PipelineSearchOptions

README = Path(__file__).resolve().parents[2] / "README.md"
ROW = re.compile(r"^\| `(MEMORY_[A-Z0-9_]+)` \| [^|]* \| `([a-z_.]+)` \| (.*) \|$", re.M)


def _rows() -> dict[str, tuple[str, str]]:
    return {m[1]: (m[2], m[3]) for m in ROW.finditer(README.read_text(encoding="utf-8"))}


def test_every_setting_is_in_readme_table() -> None:
    documented = set(_rows())
    expected = {f"MEMORY_{name.upper()}" for name in Settings.env_names()}
    assert len(expected) == 117
    assert expected - documented == set(), "settings missing from README"
    assert documented - expected == set(), "README documents settings that do not exist"


def test_readme_gives_each_setting_its_place_and_marks_advanced_ones() -> None:
    rows = _rows()
    for flat, place in Settings.env_names().items():
        documented_place, meaning = rows[f"MEMORY_{flat.upper()}"]
        assert documented_place == place, flat
        assert meaning.startswith("*advanced:*") == is_advanced(flat), flat


def test_settings_are_frozen_and_read_env(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMORY_SEARCH_K", "7")
    monkeypatch.setenv("MEMORY_STORE", "qdrant")
    monkeypatch.setenv("MEMORY_QDRANT_PATH", ":memory:")
    monkeypatch.setenv("MEMORY_PII_KINDS", '["email"]')
    monkeypatch.setenv("MEMORY_LOG_LEVEL", "INFO")
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert s.retrieval.k == 7 and s.storage.backend == "qdrant"
    assert s.security.pii_kinds == ("email",) and s.log_level == "INFO"
    with pytest.raises(ValidationError):
        s.retrieval.k = 3  # type: ignore[misc]
    with pytest.raises(ValidationError):
        s.log_level = "DEBUG"  # type: ignore[misc]


def test_dotenv_file_uses_the_flat_names(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    env = tmp_path / ".env"
    env.write_text(
        "MEMORY_SEARCH_K=4\nMEMORY_NEAR_DUPLICATE=1.01\nMEMORY_KEYWORD_TERMS_REF=0\n"
        "MEMORY_STORAGE=not-a-setting\nOTHER_TOOL=1\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("MEMORY_SEARCH_K", "6")  # the environment wins over .env
    s = Settings(_env_file=env)  # type: ignore[call-arg]
    assert s.retrieval.k == 6
    assert s.retrieval.near_duplicate is None  # the old "off" value 1.01 reads as off
    assert s.retrieval.keyword_terms_ref is None  # the old "off" value 0 reads as off


def test_flat_keywords_route_into_domains_and_win_over_env(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("MEMORY_SEARCH_K", "7")
    s = Settings(  # type: ignore[call-arg]
        _env_file=None, search_k=3, retention_search_weight=0.5, embedder="use_m3"
    )
    assert s.retrieval.k == 3 and s.retrieval.retention_weight == 0.5
    assert s.embedding.provider == "use_m3"
    nested = Settings(_env_file=None, retrieval={"k": 5})  # type: ignore[call-arg, arg-type]
    assert nested.retrieval.k == 5
    copied = Settings.model_validate({**s.model_dump(), "store": "postgres", "search_k": 2})
    assert copied.retrieval.k == 2 and copied.embedding.provider == "use_m3"
    assert copied.flat_value("embedder") == "use_m3"
    assert Settings.env_names()["search_k"] == "retrieval.k"


def test_settings_reject_contradictions() -> None:
    with pytest.raises(ConfigError):
        Settings(chunk_min_chars=600, chunk_max_chars=500)  # type: ignore[call-arg]
    with pytest.raises(ConfigError):
        Settings(embedder="openai_compat")  # type: ignore[call-arg]
    with pytest.raises(ConfigError):
        Settings(search_k=150, search_max_k=100)  # type: ignore[call-arg]
    with pytest.raises(ValidationError):
        Settings(rrf_k=0)  # type: ignore[call-arg]


def test_retrieval_settings_are_the_search_options() -> None:
    assert PipelineSearchOptions is SearchOptions
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    assert isinstance(s.retrieval, SearchOptions)
    assert s.retrieval == SearchOptions()  # one default per field
    assert SearchOptions().fusion == "zscore" and SearchOptions().near_duplicate is None


def test_old_traces_replay_with_the_stages_they_ran() -> None:
    # a trace stored before fusion and session smoothing existed ran with both off
    old = SearchOptions.from_trace_config({"k": 3, "near_duplicate": 1.01, "as_of": "x"})
    assert old.fusion == "rrf" and old.session_weight == 0.0 and old.near_duplicate is None
    assert {k: getattr(old, k) for k in TRACE_DEFAULTS} == TRACE_DEFAULTS
    new = SearchOptions().model_dump(mode="json")
    assert SearchOptions.from_trace_config(new) == SearchOptions()


def test_search_options_validates_overrides(engine) -> None:  # type: ignore[no-untyped-def]
    opts = engine.search_options(k=3, fusion="rrf", min_score=None)
    assert opts.k == 3 and opts.fusion == "rrf"
    assert opts.min_score == engine.settings.retrieval.min_score
    with pytest.raises(InvalidInputError, match="k must be <="):
        engine.search_options(k=engine.settings.limits.search_max_k + 1)
    with pytest.raises(InvalidInputError, match="invalid mmr_lambda"):
        engine.search_options(mmr_lambda=2.0)


def test_model_copy_takes_flat_and_nested_updates(monkeypatch: pytest.MonkeyPatch) -> None:
    for key in [k for k in os.environ if k.startswith("MEMORY_")]:  # session fixtures set some
        monkeypatch.delenv(key)
    s = Settings(_env_file=None)  # type: ignore[call-arg]
    t = s.model_copy(update={"database_url": "postgresql://x", "search_k": 3, "gc_freeze": True})
    assert t.storage.database_url == "postgresql://x" and t.retrieval.k == 3 and t.gc_freeze
    assert s.retrieval.k == 10 and s.storage.database_url is None  # the original is unchanged
    u = t.model_copy(update={"retrieval": {"fusion": "rrf"}})
    assert u.retrieval.fusion == "rrf" and u.retrieval.k == 3
