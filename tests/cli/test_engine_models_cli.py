"""Embedding model drift through the engine (docs/architecture.md#f7-embedding-drift) with the real openai
client against a local stub server, and the real CLI as a subprocess."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from memory_engine import EmbeddingMismatchError, MemoryEngine, Scope
from tests.support.openai_stub import OpenAIStub

REPO = Path(__file__).resolve().parents[2]


def _stub_settings(
    factory: Callable[..., Any], stub: OpenAIStub, model: str, dim: int, url: Any = None
) -> Any:
    overrides = dict(
        embedder="openai_compat",
        embedding_base_url=stub.base_url,
        embedding_model=model,
        embedding_dim=dim,
    )
    settings = factory(**overrides)
    if url is not None:
        settings = settings.model_copy(update={"database_url": url})
    return settings


def test_dimension_and_model_drift_refused(
    pg_settings_factory: Callable[..., Any], openai_stub: OpenAIStub, tenant: str
) -> None:
    s8 = _stub_settings(pg_settings_factory, openai_stub, "stub-8", 8)
    scope = Scope.of(tenant)
    with MemoryEngine(s8) as eng:
        for text in ("alpha one", "beta two", "gamma three"):
            eng.write(scope, text)
    # restart with a 12-dim model on the same database
    s12 = _stub_settings(
        pg_settings_factory, openai_stub, "stub-12", 12, url=s8.storage.database_url
    )
    with MemoryEngine(s12) as eng:
        with pytest.raises(EmbeddingMismatchError) as info:
            eng.write(scope, "delta four")
        assert "re-embed" in info.value.message
        with pytest.raises(EmbeddingMismatchError):
            eng.search(scope, "alpha")
        assert eng.list(scope).total == 3  # nothing dropped, nothing half-written
    # same dimension, different model name: refused too
    openai_stub_dims = {"other-8": 8}
    stub2 = OpenAIStub(openai_stub_dims).start()
    try:
        s_other = _stub_settings(
            pg_settings_factory, stub2, "other-8", 8, url=s8.storage.database_url
        )
        with MemoryEngine(s_other) as eng, pytest.raises(EmbeddingMismatchError):
            eng.search(scope, "alpha")
    finally:
        stub2.stop()


def test_cli_ingest_and_search_json(
    pg_settings_factory: Callable[..., Any], tmp_path: Path, tenant: str
) -> None:
    settings = pg_settings_factory()
    env = {
        **os.environ,
        "MEMORY_DATABASE_URL": settings.storage.database_url.get_secret_value(),
        "PYTHONPATH": str(REPO),
    }
    chat = tmp_path / "chat.json"
    chat.write_text(
        json.dumps(
            [
                {
                    "role": "user",
                    "content": "My sister Lena lives in Porto",
                    "timestamp": "2024-01-02T10:00:00Z",
                },
                {"role": "assistant", "content": "Nice, Porto is lovely."},
                {"role": "user", "content": "我对花生过敏"},
            ],
            ensure_ascii=False,
        ),
        encoding="utf-8",
    )
    cli = [sys.executable, "-m", "memory_engine.cli"]
    ing = subprocess.run(
        [*cli, "ingest", str(chat), "--tenant", tenant, "--format", "openai", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert ing.returncode == 0, ing.stderr
    assert json.loads(ing.stdout)[tenant]["created"] == 3
    res = subprocess.run(
        [*cli, "search", "Where does Lena live?", "--tenant", tenant, "--json", "--k", "2"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert res.returncode == 0, res.stderr
    payload = json.loads(res.stdout)
    assert set(payload) == {"memories", "block", "trace", "explain"}
    assert "Lena lives in Porto" in payload["memories"][0]["content"]
    assert payload["trace"]["legs"]["dense"]
    bad = subprocess.run(
        [*cli, "search", "   ", "--tenant", tenant, "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert bad.returncode == 2 and "Traceback" not in bad.stderr
    assert json.loads(bad.stderr.strip().splitlines()[-1])["error"] == "empty_content"
    stats = subprocess.run(
        [*cli, "stats", "--json"],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=300,
    )
    assert stats.returncode == 0 and json.loads(stats.stdout)["tenants"][tenant] == 3
